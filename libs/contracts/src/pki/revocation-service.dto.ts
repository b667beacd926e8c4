import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { digitsToNumber } from '../pagination/page';
import { IssuerCaRequest, IssuerIdRequest } from './revocation.dto';

/** A serial as a client may type it: 1 to 40 hex digits, either case (normalised by the service). */
export const SERIAL_HEX_INPUT_PATTERN = /^[0-9a-fA-F]{1,40}$/;

/**
 * revocation.v1.get-crl: the current CRL of an issuer's issuing CA, or of one of its CAs with
 * `ca_id` (a retired one too), DER, base64 on the bus.
 *
 * With `part`, the answer carries only that part of the DER (at most 512 KiB, so a CRL of any size
 * crosses NATS, whose messages are limited to max_payload, 1 MiB by default) and says how many
 * parts there are: ask for part 0, then for parts 1..parts-1 with the `ca_id` part 0 named, and
 * start again from part 0 when a part names another `crl_number` (a new CRL was stored meanwhile).
 * Without `part`, the whole CRL in one answer, which fails for a CRL larger than one message.
 */
export class GetCrlRequest extends IssuerCaRequest {
  @IsOptional()
  @IsInt({ message: 'part must be an integer' })
  @Min(0, { message: 'part must be at least 0' })
  @Max(4095, { message: 'part must be at most 4095' })
  part?: number;
}

export interface CrlDocument {
  issuer_id: string;
  /** The CA that signed the CRL. */
  ca_id: string;
  /** Decimal: CRL numbers may exceed 2^53. */
  crl_number: string;
  this_update: string;
  next_update: string;
  /** The DER CRL, or with `part` in the request, that part of it. */
  crl_base64: string;
  /** When asked for a part: which one (0-based). */
  part?: number;
  /** When asked for a part: how many parts the CRL numbered `crl_number` has. */
  parts?: number;
}

/** revocation.v1.get-ocsp-response: the signed OCSP response about one serial (SHA-1 CertID). */
export class GetOcspResponseRequest extends IssuerCaRequest {
  @IsString()
  @Matches(SERIAL_HEX_INPUT_PATTERN, { message: 'serial must be 1 to 40 hex digits' })
  serial_hex!: string;
}

export interface OcspResponseDocument {
  response_base64: string;
  produced_at?: string;
  this_update?: string;
  next_update?: string;
}

/**
 * revocation.v1.answer-ocsp: a relying party's OCSP request as it reached the gateway, answered as
 * the revocation service's own listener would (ADR 0038): `get` carries the raw path after
 * /ocsp/<issuer_id>/ (RFC 5019 GET, still percent-encoded), `post` the base64 of the DER body
 * (RFC 6960 POST). The answer is always an OCSP response (errors too).
 */
export class AnswerOcspRequest extends IssuerIdRequest {
  @IsIn(['get', 'post'])
  form!: 'get' | 'post';

  /** The GET path or the base64 POST body; bounded by MAX_OCSP_REQUEST_BYTES on both sides. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(32 * 1024)
  request!: string;
}

/** revocation.v1.list-revocations: the revocation list as JSON (spec 4.4), all issuers or one. */
export class ListRevocationsRequest {
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  issuer_id?: string;

  @IsOptional()
  @Transform(digitsToNumber)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1, { message: 'limit must be at least 1' })
  @Max(10_000, { message: 'limit must be at most 10000' })
  limit?: number;

  @IsOptional()
  @Transform(digitsToNumber)
  @IsInt({ message: 'offset must be an integer' })
  @Min(0, { message: 'offset must be at least 0' })
  offset?: number;
}

export interface RevocationListEntry {
  issuer_id: string;
  serial_number: string;
  revocation_date: string;
  revocation_reason: string;
}

export interface RevocationList {
  /** The CRL number of the issuer asked for, or the highest of all issuers (0 before any CRL). */
  version: number;
  entries: RevocationListEntry[];
  total: number;
  generated_at: string;
}
