import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { PageQuery } from '../pagination/page';
import { IssueCertificateRequest, IssuedCertificateDto } from '../pki/issuers.dto';
import { OptionalRevocationReason, RevocationReason } from '../pki/revocation.dto';

/** Every status a managed certificate can be in (docs/decisions/0024-certificate-inventory-and-jobs.md). */
export const CERTIFICATE_STATUSES = [
  'Pending',
  'Active',
  'Expiring',
  'Expired',
  'RenewalInProgress',
  'Failed',
  'Revoked',
  'Archived',
] as const;
export type CertificateStatus = (typeof CERTIFICATE_STATUSES)[number];

/** Provenance (spec 2.2). Unspecified is stored and returned as the empty string. */
export const CERTIFICATE_SOURCES = ['', 'EST', 'SCEP', 'API', 'Agent', 'ACME'] as const;
export type CertificateSource = (typeof CERTIFICATE_SOURCES)[number];

/** Key algorithms a certificate can ask for when the key is generated for it. */
export const KEY_ALGORITHMS = [
  'ECDSA-P256',
  'ECDSA-P384',
  'RSA-2048',
  'RSA-3072',
  'RSA-4096',
  'Ed25519',
] as const;
export type KeyAlgorithmName = (typeof KEY_ALGORITHMS)[number];

/** Ids chosen by callers: lower-case letters, digits, `-`, `_`, `.`; 1..128 characters. */
export const RESOURCE_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,127}$/;
const RESOURCE_ID_MESSAGE =
  'must be 1 to 128 lower-case letters, digits, ".", "_" or "-", starting with a letter or digit';

/** "Unspecified" on the wire is the stored empty string. */
const sourceFromWire = ({ value }: { value: unknown }): unknown => (value === 'Unspecified' ? '' : value);

/** A managed certificate as the API returns it. Serial, fingerprint and key data live on versions. */
export interface CertificateDto {
  id: string;
  name: string;
  common_name: string;
  sans: string[];
  environment: string;
  owner_id: string;
  team_id: string;
  issuer_id: string;
  renewal_policy_id: string;
  profile_id: string;
  agent_id: string;
  source: CertificateSource;
  status: CertificateStatus;
  key_algorithm: KeyAlgorithmName;
  tags: Record<string, string>;
  /** not_before / expires_at of the current version; null before the first issuance. */
  not_before: string | null;
  expires_at: string | null;
  current_version_id: string | null;
  last_renewed_at: string | null;
  revoked_at: string | null;
  revocation_reason: RevocationReason | null;
  created_at: string;
  updated_at: string;
}

/** Fields a caller may set; shared by create and update. */
export class CertificateFields {
  @IsOptional()
  @IsString()
  @Length(1, 255)
  name?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @Length(1, 253, { each: true })
  sans?: string[];

  @IsOptional()
  @IsString()
  @MaxLength(64)
  environment?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  owner_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  team_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  issuer_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  renewal_policy_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  profile_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  agent_id?: string;

  @IsOptional()
  @Transform(sourceFromWire)
  @IsIn(CERTIFICATE_SOURCES as unknown as string[], {
    message: 'source must be one of Unspecified, EST, SCEP, API, Agent',
  })
  source?: CertificateSource;

  @IsOptional()
  @IsIn(KEY_ALGORITHMS as unknown as string[], {
    message: `key_algorithm must be one of ${KEY_ALGORITHMS.join(', ')}`,
  })
  key_algorithm?: KeyAlgorithmName;

  @ValidateIf((_, value) => value !== undefined)
  @IsObject()
  tags?: Record<string, string>;
}

/** POST /api/v1/certificates. Without an id one is generated (`mc-<hex>`). */
export class CreateCertificateRequest extends CertificateFields {
  @IsOptional()
  @Matches(RESOURCE_ID_PATTERN, { message: `id ${RESOURCE_ID_MESSAGE}` })
  id?: string;

  /** Required unless certificate_pem is given (an import takes it from the certificate). */
  @ValidateIf(
    (request: CreateCertificateRequest) => !request.certificate_pem || request.common_name !== undefined,
  )
  @IsString()
  @Length(1, 253)
  common_name?: string;

  /**
   * Imports an existing certificate (and chain) as version 1 instead of issuing one: common_name,
   * sans and the issuer come from the certificate (ADR 0043).
   */
  @IsOptional()
  @IsString()
  @MaxLength(262144)
  certificate_pem?: string;

  /**
   * With certificate_pem: store the certificate as the new current version of this inventory
   * certificate (a renewal made elsewhere, such as an ACME order replacing it) instead of as a new
   * certificate; the other fields of the request are not applied.
   */
  @IsOptional()
  @IsString()
  @MaxLength(128)
  version_of?: string;
}

/** PUT /api/v1/certificates/{id}: the fields given replace the stored ones. */
export class UpdateCertificateRequest extends CertificateFields {
  @IsString()
  id!: string;

  @IsOptional()
  @IsString()
  @Length(1, 253)
  common_name?: string;
}

export class CertificateIdRequest {
  @IsString()
  @MaxLength(128)
  id!: string;
}

/** GET /api/v1/certificates filters (spec 4.2). */
export class ListCertificatesRequest extends PageQuery {
  @IsOptional()
  @IsIn(CERTIFICATE_STATUSES as unknown as string[], {
    message: `status must be one of ${CERTIFICATE_STATUSES.join(', ')}`,
  })
  status?: CertificateStatus;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  environment?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  owner_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  team_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  issuer_id?: string;

  /** Certificates whose current version was signed by this CA or by a CA below it (ADR 0076). */
  @IsOptional()
  @IsString()
  @MaxLength(128)
  ca_id?: string;
}

/** A certificate version (spec 2.3). csr_pem is empty when none was stored. */
export interface CertificateVersionDto {
  id: string;
  certificate_id: string;
  version: number;
  serial_number: string;
  fingerprint_sha256: string;
  key_algorithm: string;
  key_size: number;
  issued_at: string;
  not_before: string;
  not_after: string;
  cert_pem: string;
  chain_pem: string;
  csr_pem: string;
  issuer_id: string;
  /** The CA held here that signed this version (ADR 0076); null when a CA elsewhere did. */
  ca_id: string | null;
  job_id: string | null;
  created_at: string;
}

export class ListCertificateVersionsRequest extends PageQuery {
  @IsString()
  @MaxLength(128)
  id!: string;
}

/** The spec's StatusResponse, with the job a request created when there is one. */
export interface StatusResponse {
  status: string;
  message?: string;
  job_id?: string;
  job_ids?: string[];
}

/** POST /api/v1/certificates/{id}/renew: force from the query (true or 1) or the body. */
export class RenewCertificateRequest extends CertificateIdRequest {
  @IsOptional()
  @IsBoolean()
  force?: boolean;
}

/** POST /api/v1/certificates/{id}/deploy. */
export class DeployCertificateRequest extends CertificateIdRequest {
  @IsOptional()
  @IsString()
  @Length(1, 128)
  target_id?: string;
}

/** POST /api/v1/certificates/{id}/revoke. */
export class RevokeManagedCertificateRequest extends CertificateIdRequest {
  @OptionalRevocationReason()
  reason?: RevocationReason;
}

/** GET /api/v1/certificates/{id}/export/pem. */
export interface PemExportDto {
  cert_pem: string;
  chain_pem: string;
  full_pem: string;
}

/** POST /api/v1/certificates/{id}/export/pkcs12; the password may be empty. */
export class ExportPkcs12Request extends CertificateIdRequest {
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  password?: string;
}

/** PKCS#12 bytes cross the bus as base64. */
export interface Pkcs12ExportDto {
  pkcs12_base64: string;
  filename: string;
}

/** Event issuance.v1.certificate.status-changed. */
export interface CertificateStatusChanged {
  certificate_id: string;
  from: CertificateStatus;
  to: CertificateStatus;
  at: string;
}

/**
 * issuance.v1.issue-and-record (ADR 0066): what an enrollment protocol (EST, SCEP, ACME) asks of
 * issuance in one request: the certificate signed from the CSR and recorded in the inventory with
 * the protocol's source, owner, team and tags, answered only once both are committed.
 */
export class IssueAndRecordRequest extends IssueCertificateRequest {
  @IsIn(['EST', 'SCEP', 'ACME'], { message: 'source must be one of EST, SCEP, ACME' })
  source!: 'EST' | 'SCEP' | 'ACME';

  /**
   * The inventory certificate this one renews (ACME `replaces`, RFC 9773): stored as its next
   * version, keeping its owner, team and tags, as `create-certificate` with `version_of` does; a
   * new certificate when that one is no longer in the inventory.
   */
  @IsOptional()
  @IsString()
  @MaxLength(128)
  version_of?: string;

  /**
   * The certificate (PEM) this one renews when the protocol names it by the certificate itself (EST
   * simplereenroll's client certificate, SCEP RenewalReq's signer): when it is the current version
   * of an inventory certificate, the new one is stored as that certificate's next version, as with
   * `version_of` (which wins when both are given); otherwise a new certificate.
   */
  @IsOptional()
  @IsString()
  @MaxLength(16384)
  renews_certificate_pem?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  owner_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  team_id?: string;

  @IsOptional()
  @IsObject()
  tags?: Record<string, string>;
}

/** The issued certificate and the inventory certificate and version that record it. */
export interface IssuedAndRecordedDto extends IssuedCertificateDto {
  certificate_id: string;
  version_id: string;
}
