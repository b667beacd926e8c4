import { Transform } from 'class-transformer';
import { IsIn, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

/** RFC 5280 reason codes, camelCase on the wire, spelt as spec 2.16 spells them. */
export const REVOCATION_REASONS = [
  'unspecified',
  'keyCompromise',
  'caCompromise',
  'affiliationChanged',
  'superseded',
  'cessationOfOperation',
  'certificateHold',
  'removeFromCRL',
  'privilegeWithdrawn',
  'aaCompromise',
] as const;
export type RevocationReason = (typeof REVOCATION_REASONS)[number];

/**
 * RFC 5280's ASN.1 spelling of two reasons, the spelling this API demanded before ADR 0037: still
 * accepted on input and in events, read as the spec's spelling, never written.
 */
const REVOCATION_REASON_ALIASES: Readonly<Record<string, RevocationReason>> = {
  cACompromise: 'caCompromise',
  aACompromise: 'aaCompromise',
};

/** The spec's spelling of a reason given in the old ASN.1 spelling; anything else unchanged. */
export function revocationReasonFromWire(value: unknown): unknown {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(REVOCATION_REASON_ALIASES, value)
    ? REVOCATION_REASON_ALIASES[value]
    : value;
}

export function isRevocationReason(value: unknown): value is RevocationReason {
  return (REVOCATION_REASONS as readonly unknown[]).includes(value);
}

/**
 * An optional `reason` field of a request (single, bulk and EST bulk revoke, the bus revoke): one
 * of spec 2.16's reasons (or of `allowed`), the old spelling read as the new one, anything else 400.
 */
export function OptionalRevocationReason(
  allowed: readonly RevocationReason[] = REVOCATION_REASONS,
): PropertyDecorator {
  const decorators: PropertyDecorator[] = [
    IsOptional(),
    Transform(({ value }) => revocationReasonFromWire(value)),
    IsIn(allowed as unknown as string[], {
      message: `reason must be one of ${allowed.join(', ')}`,
    }),
  ];
  return (target, property) => decorators.forEach((decorate) => decorate(target, property));
}

/** Serial numbers travel as lower-case hex without leading zeros beyond one byte, at most 20 octets. */
export const SERIAL_HEX_PATTERN = /^[0-9a-f]{1,40}$/;

export class IssuerIdRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  issuer_id!: string;
}

/** A local CA certificate id (`ca-...`). */
export const CA_ID_PATTERN = /^ca-[a-z0-9-]{1,80}$/;

/**
 * An issuer and, optionally, one of its CAs (any status but pending); without `ca_id`, the
 * issuer's issuing CA (ADR 0023).
 */
export class IssuerCaRequest extends IssuerIdRequest {
  @IsOptional()
  @IsString()
  @Matches(CA_ID_PATTERN, { message: 'ca_id must be a CA id like ca-0123abcd' })
  ca_id?: string;
}

/** One CA certificate of an issuer, as the revocation service routes OCSP and publishes CRLs. */
export interface IssuerCaSummary {
  ca_id: string;
  certificate_pem: string;
  status: 'active' | 'retired' | 'revoked';
  /** The issuer's current issuing CA. */
  issuing: boolean;
}

/** What the revocation service needs to know about an issuing CA (issuance.v1.get-issuer-ca). */
export interface IssuerCaInfo {
  issuer_id: string;
  kind: string;
  capabilities: { crl: boolean; ocsp: boolean };
  /** The CA described: the one asked for, else the issuer's issuing CA. */
  ca_id: string;
  /** The CA certificate that signs this CA's certificates and CRLs. */
  ca_certificate_pem: string;
  /** The CA certificate and its parents up to the root. */
  chain_pem: string;
  /** The X.509 signature algorithm the CA key signs with, e.g. `ecdsa-with-SHA256`, `sha256WithRSAEncryption`. */
  signature_algorithm: string;
  /** Every CA of the issuer that has a certificate (active or retired), the issuing one included. */
  cas: IssuerCaSummary[];
}

/**
 * issuance.v1.sign-digest: the CA signs a digest the caller computed over data it built (a
 * TBSCertList), so CA private keys never leave the issuance service (ADR 0021).
 */
export class SignDigestRequest extends IssuerCaRequest {
  @IsIn(['crl'])
  purpose!: 'crl';

  @IsIn(['sha256', 'sha384', 'sha512'])
  digest_algorithm!: 'sha256' | 'sha384' | 'sha512';

  @IsString()
  @Matches(/^[A-Za-z0-9+/]{40,88}={0,2}$/, { message: 'digest_base64 must be a base64 digest' })
  digest_base64!: string;
}

export interface SignDigestResponse {
  /** The signature in the X.509 encoding of the CA's signature algorithm (ECDSA as DER). */
  signature_base64: string;
  signature_algorithm: string;
}

/** issuance.v1.issue-ocsp-responder: a delegated OCSP responder certificate for the caller's key. */
export class IssueOcspResponderRequest extends IssuerCaRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(16384)
  csr_pem!: string;
}

export interface OcspResponderCertificate {
  certificate_pem: string;
  chain_pem: string;
  not_after: string;
}

/** issuance.v1.revoke-certificate: records a revocation for the issuer and publishes it. */
export class RevokeCertificateRequest extends IssuerIdRequest {
  @IsString()
  @Matches(SERIAL_HEX_PATTERN, { message: 'serial_hex must be 1 to 40 lower-case hex digits' })
  serial_hex!: string;

  @OptionalRevocationReason()
  reason?: RevocationReason;
}

/**
 * Event issuance.v1.certificate.revoked (consumed by the revocation service). With reason
 * `removeFromCRL` it is what that reason is in an RFC 5280 delta CRL entry: the serial's
 * `certificateHold` is released and the certificate is no longer revoked (ADR 0037); it travels
 * on this subject so one ordered consumer sees a hold and its release in order.
 */
export interface CertificateRevoked {
  issuer_id: string;
  serial_hex: string;
  reason: RevocationReason;
  /** When it was revoked; for `removeFromCRL`, when the hold was released. */
  revoked_at: string;
  certificate_id?: string;
}

/**
 * issuance.v1.revoke-certificate's answer: the serial's revocation (for `removeFromCRL`, the hold's
 * release), and whether the issuer had recorded it before this request (RFC 8555 7.6
 * `alreadyRevoked`; false for a release).
 */
export interface SerialRevoked extends CertificateRevoked {
  already_revoked: boolean;
}

/**
 * Event issuance.v1.certificate.issued: the local CA issued a certificate (published through the
 * outbox in the transaction that records it). The revocation service keeps the serials, so OCSP
 * answers `good` only for certificates that exist (ADR 0023).
 */
export interface CertificateIssued {
  issuer_id: string;
  /** The CA that signed it. */
  ca_id: string;
  serial_hex: string;
  not_before: string;
  not_after: string;
  fingerprint_sha256: string;
  issued_at: string;
}

/** issuance.v1.get-issued-certificate: did the issuer issue this serial, and under which CA? */
export class GetIssuedCertificateRequest extends IssuerIdRequest {
  @IsString()
  @Matches(SERIAL_HEX_PATTERN, { message: 'serial_hex must be 1 to 40 lower-case hex digits' })
  serial_hex!: string;
}

export interface IssuedCertificateLookup {
  /** The certificate, or null when the issuer never issued this serial. */
  certificate: CertificateIssued | null;
}
