import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { PageQuery } from '../pagination/page';
import { PROFILE_EKU_NAMES, ProfileEkuName } from './eku-names';
import { OptionalRevocationReason, REVOCATION_REASONS, RevocationReason } from './revocation.dto';

/**
 * The twelve issuer connector kinds (spec section 1), as type ids on the wire (ADR 0022). Only
 * `local_ca` issues today; the others are stored and validated, and their test answers
 * `not_implemented`.
 */
export const ISSUER_TYPES = [
  'local_ca',
  'acme',
  'vault_pki',
  'aws_private_ca',
  'google_cas',
  'azure_key_vault',
  'digicert',
  'sectigo',
  'globalsign',
  'entrust',
  'adcs',
  'script',
] as const;
export type IssuerType = (typeof ISSUER_TYPES)[number];

/** The id of the issuer the baseline seed creates (a local CA with a root and an issuing intermediate). */
export const DEFAULT_ISSUER_ID = 'iss-local';
/** What a redacted secret-bearing config value reads as in responses. */
export const REDACTED = '********';

/** An issuer as the API returns it: secret-bearing config values redacted, ciphertext never. */
export interface IssuerDto {
  id: string;
  name: string;
  type: IssuerType;
  config: Record<string, unknown>;
  capabilities: { crl: boolean; ocsp: boolean; revoke: boolean; issue: boolean };
  /** The CA this issuer issues under (local CA only), or null. */
  issuing_ca_id: string | null;
  created_at: string;
  updated_at: string;
}

export class ListIssuersRequest extends PageQuery {}

export class IssuerIdOnlyRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

/** POST /api/v1/issuers. `config` is validated per type by the issuance service. */
export class CreateIssuerRequest {
  @IsString({ message: 'name must be a string' })
  @Length(1, 255, { message: 'name must be 1 to 255 characters' })
  name!: string;

  @IsIn(ISSUER_TYPES as unknown as string[], { message: `type must be one of ${ISSUER_TYPES.join(', ')}` })
  type!: IssuerType;

  @IsOptional()
  @IsObject({ message: 'config must be an object' })
  config?: Record<string, unknown>;
}

/**
 * PUT /api/v1/issuers/{id}: `name` and `config` replace the stored ones when present; a
 * secret-bearing value sent back as `********` keeps the stored secret. `type` may be repeated
 * but not changed.
 */
export class IssuerChanges {
  @IsOptional()
  @IsString({ message: 'name must be a string' })
  @Length(1, 255, { message: 'name must be 1 to 255 characters' })
  name?: string;

  @IsOptional()
  @IsIn(ISSUER_TYPES as unknown as string[], { message: `type must be one of ${ISSUER_TYPES.join(', ')}` })
  type?: IssuerType;

  @IsOptional()
  @IsObject({ message: 'config must be an object' })
  config?: Record<string, unknown>;
}

export class UpdateIssuerRequest extends IssuerChanges {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

export interface IssuerDeleted {
  id: string;
}

/** POST /api/v1/issuers/{id}/test: a StatusResponse (spec 4.1) with the connector's verdict. */
export interface IssuerTestResult {
  status: 'ok' | 'failed' | 'not_implemented';
  message: string;
  latency_ms?: number;
}

export type SanType = 'dns' | 'ip' | 'email' | 'uri';

export class SanInput {
  @IsIn(['dns', 'ip', 'email', 'uri'])
  type!: SanType;

  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  value!: string;
}

/** What a certificate certifies in place of the CSR's names, when the requester says (ACME). */
export class CertifiedNamesOverride {
  /** Replace the CSR's requested SANs. */
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => SanInput)
  sans?: SanInput[];

  /**
   * Replace the CSR's subject with one holding only this common name ('' for an empty subject,
   * the SANs then critical): what ACME certifies, never the CSR's unvalidated O, OU, C...
   */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  subject_common_name?: string;
}

/** issuance.v1.issue-certificate: a certificate from a CSR (the local CA signs it at once). */
export class IssueCertificateRequest extends CertifiedNamesOverride {
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  issuer_id?: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(65536)
  csr_pem!: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3650)
  validity_days?: number;

  /** The exact validity asked for (ACME's notBefore/notAfter); not_after wins over validity_days. */
  @IsOptional()
  @IsISO8601({ strict: true })
  not_before?: string;

  @IsOptional()
  @IsISO8601({ strict: true })
  not_after?: string;

  @IsOptional()
  @IsBoolean()
  must_staple?: boolean;

  /** The leaf's extended key usages (the issuer's default, serverAuth and clientAuth, when absent). */
  @IsOptional()
  @IsArray()
  @IsIn(PROFILE_EKU_NAMES, { each: true })
  extended_key_usage?: ProfileEkuName[];

  @IsOptional()
  @IsString()
  @MaxLength(128)
  idempotency_key?: string;
}

export interface IssuedCertificateDto {
  issuer_id: string;
  ca_id: string;
  certificate_pem: string;
  /** Issuing CA first, up to the root. */
  chain_pem: string;
  /** Leaf then chain. */
  full_pem: string;
  /**
   * Other chains of the same leaf to other trust anchors (RFC 8555 7.4.2 alternates), each like
   * `chain_pem` (issuing CA first, up to a root), through cross-certificates of the CAs on
   * `chain_pem`; absent when there is none.
   */
  alternate_chains_pem?: string[];
  serial_hex: string;
  fingerprint_sha256: string;
  not_before: string;
  not_after: string;
}

export interface CertificateRevocationDto {
  issuer_id: string;
  serial_hex: string;
  reason: string;
  revoked_at: string;
}

// ---- Local CA certificates (intermediate-CA routes, ADR 0022) ----

export const CA_KEY_ALGORITHMS = ['ECDSA-P256', 'ECDSA-P384', 'RSA-2048', 'RSA-3072', 'RSA-4096'] as const;
export type CaKeyAlgorithm = (typeof CA_KEY_ALGORITHMS)[number];

export interface CaCertificateDto {
  id: string;
  issuer_id: string | null;
  parent_id: string | null;
  subject: string;
  status: 'active' | 'retired' | 'pending' | 'revoked';
  /** Whether its issuer issues under it now. */
  issuing: boolean;
  certificate_pem: string | null;
  /** Only while pending: the CSR for the external root to sign. */
  csr_pem: string | null;
  /**
   * A sub-CA an external root signed: the certificates above it, as it was activated with them
   * (up to the external root); null otherwise.
   */
  external_chain_pem: string | null;
  serial_hex: string | null;
  not_before: string | null;
  not_after: string | null;
  created_at: string;
  retired_at: string | null;
  /** When its parent revoked it (ADR 0075); null otherwise. */
  revoked_at: string | null;
  revocation_reason: RevocationReason | null;
}

export class ListCaCertificatesRequest extends PageQuery {
  @IsOptional()
  @IsString()
  @MaxLength(128)
  issuer_id?: string;
}

export class CaIdRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

/**
 * POST /api/v1/intermediate-cas: without `parent_id` a self-signed root; with `parent_id` a child
 * CA signed by that CA; with `external: true` a sub-CA whose key is made here and whose
 * certificate an external root signs (status pending, CSR out; then
 * POST /api/v1/intermediate-cas/{id}/certificate).
 */
export class CreateCaRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  issuer_id!: string;

  @IsString()
  @Length(1, 64, { message: 'common_name must be 1 to 64 characters' })
  common_name!: string;

  @IsOptional()
  @IsString()
  @Length(1, 64)
  organization?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  parent_id?: string;

  @IsOptional()
  @IsBoolean()
  external?: boolean;

  @IsOptional()
  @IsIn(CA_KEY_ALGORITHMS as unknown as string[], {
    message: `key_algorithm must be one of ${CA_KEY_ALGORITHMS.join(', ')}`,
  })
  key_algorithm?: CaKeyAlgorithm;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(36500)
  validity_days?: number;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10)
  path_length?: number;

  /** Make it the issuer's issuing CA (not with `external`: send `issuing` with its certificate). */
  @IsOptional()
  @IsBoolean()
  issuing?: boolean;
}

/** Body of POST /api/v1/intermediate-cas/{id}/certificate. */
export class CaCertificateUpload {
  @IsString()
  @IsNotEmpty()
  @MaxLength(65536)
  certificate_pem!: string;

  /** The external CA's chain up to its root, PEM. */
  @IsOptional()
  @IsString()
  @MaxLength(262144)
  chain_pem?: string;

  /** Make it the issuer's issuing CA now (it is anyway when the issuer has none). */
  @IsOptional()
  @IsBoolean()
  issuing?: boolean;
}

export class UploadCaCertificateRequest extends CaCertificateUpload {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

/**
 * The reasons a CA certificate is revoked with (ADR 0075): a CA's revocation here is final, so
 * certificateHold and removeFromCRL are not among them.
 */
export const CA_REVOCATION_REASONS: readonly RevocationReason[] = REVOCATION_REASONS.filter(
  (reason) => reason !== 'certificateHold' && reason !== 'removeFromCRL',
);

/**
 * Event issuance.v1.ca.revoked (ADR 0075): a CA of the local CA was revoked. `key_identifiers` are
 * the subjectKeyIdentifiers (hex) of it and of every CA below it (retired with it): the
 * authorityKeyIdentifiers of what they issued, none of which validates any more, so followers find
 * those certificates (the ACME server moves their renewal windows to now, RFC 9773).
 */
export interface CaRevoked {
  issuer_id: string;
  ca_id: string;
  serial_hex: string;
  key_identifiers: string[];
  /** The CAs below it that were active and are now retired. */
  retired_ca_ids: string[];
  reason: RevocationReason;
  revoked_at: string;
}

/**
 * Event issuance.v1.ca.expiry-warning (ADR 0077): a CA held here (active, or retired and still
 * the signer of what it issued) has crossed one of the CA alert thresholds before its end. Sent
 * once per CA, end date and threshold, by whichever replica records it first.
 */
export interface CaExpiryWarning {
  ca_id: string;
  issuer_id: string;
  subject: string;
  status: 'active' | 'retired';
  /** The issuer's issuing CA: new certificates are signed by it. */
  issuing: boolean;
  /** A root (no parent here). */
  root: boolean;
  not_after: string;
  threshold_days: number;
  days_remaining: number;
}

/** Body of POST /api/v1/intermediate-cas/{id}/revoke. */
export class RevokeCaBody {
  /** RFC 5280 reason for the parent's CRL and OCSP (default unspecified). */
  @OptionalRevocationReason(CA_REVOCATION_REASONS)
  reason?: RevocationReason;
}

export class RevokeCaRequest extends RevokeCaBody {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

// ---- Cross-certificates of local CAs (ADR 0070) ----

/**
 * Another certificate of a CA's subject and key, signed by another CA: by a CA held here
 * (`parent_id`) or by an external CA (imported, `parent_id` null unless its issuer is held here).
 * Active ones give the certificates issued under the CA alternate chains (`alternate_chains_pem`).
 */
export interface CaCrossCertificateDto {
  id: string;
  /** The CA whose subject and key it certifies. */
  ca_id: string;
  /** The CA held here that signed it, or null (an external CA). */
  parent_id: string | null;
  /** Its issuer's subject. */
  issuer: string;
  serial_hex: string;
  not_before: string;
  not_after: string;
  certificate_pem: string;
  /** `retired`: no longer put in alternate chains; `revoked`: retired and revoked by its parent (ADR 0075). */
  status: 'active' | 'retired' | 'revoked';
  created_at: string;
  retired_at: string | null;
  revoked_at: string | null;
  revocation_reason: RevocationReason | null;
}

/**
 * Body of POST /api/v1/intermediate-cas/{id}/cross-certificates: exactly one of `parent_id` (a
 * CA held here signs one) and `certificate_pem` (one an external CA signed, imported).
 */
export class CaCrossCertificateBody {
  /** An active CA held here, not the CA itself nor one of its descendants. */
  @ValidateIf(
    (body: CaCrossCertificateBody) => body.certificate_pem === undefined || body.parent_id !== undefined,
  )
  @IsString({ message: 'parent_id must be a string (give parent_id or certificate_pem)' })
  @IsNotEmpty()
  @MaxLength(128)
  parent_id?: string;

  /** A CA certificate of exactly the CA's subject and public key, currently valid. */
  @ValidateIf(
    (body: CaCrossCertificateBody) => body.parent_id === undefined || body.certificate_pem !== undefined,
  )
  @IsString({ message: 'certificate_pem must be a string (give parent_id or certificate_pem)' })
  @IsNotEmpty()
  @MaxLength(65536)
  certificate_pem?: string;

  /** With `parent_id`: its validity from now; default: until the CA's own certificate ends (never beyond the parent's). */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(36500)
  validity_days?: number;
}

export class CreateCaCrossCertificateRequest extends CaCrossCertificateBody {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

export class ListCaCrossCertificatesRequest extends PageQuery {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

export class CaCrossCertificateIdRequest {
  /** The CA. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  cross_id!: string;
}

/** POST /api/v1/intermediate-cas/{id}/cross-certificates/{cross_id}/revoke over the bus. */
export class RevokeCaCrossCertificateRequest extends CaCrossCertificateIdRequest {
  @OptionalRevocationReason(CA_REVOCATION_REASONS)
  reason?: RevocationReason;
}
