import {
  IsArray,
  IsBoolean,
  IsIn,
  IsISO8601,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { PageQuery } from '../pagination/page';
import { PROFILE_EKU_NAMES, ProfileEkuName } from '../pki/eku-names';
import { CertifiedNamesOverride } from '../pki/issuers.dto';

/** Spec 2.10: what an approval request gates. */
export const APPROVAL_KINDS = ['cert_issuance', 'profile_edit'] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** An approval request (spec 2.10, section 3; docs/decisions/0025-profiles-and-approvals.md). */
export interface ApprovalDto {
  id: string;
  approval_kind: ApprovalKind;
  status: ApprovalStatus;
  /**
   * cert_issuance of a managed certificate: its certificate and job. An external enrollment
   * (`enrollment` set) has no job; its certificate_id is set once the approved certificate is
   * issued and recorded in the inventory. Null for profile_edit.
   */
  certificate_id: string | null;
  job_id: string | null;
  /** The profile that asked for approval (cert_issuance) or is being edited (profile_edit). */
  profile_id: string | null;
  /** profile_edit: the pending change (the PUT body's fields); null for cert_issuance. */
  payload: Record<string, unknown> | null;
  requested_by: string;
  decided_by: string | null;
  decided_at: string | null;
  reason: string;
  created_at: string;
  /**
   * cert_issuance of an external enrollment (a CSR sent over SCEP, later EST/ACME; ADR 0065):
   * what was asked and, once approved, what was issued. Null otherwise.
   */
  enrollment: ApprovalEnrollmentDto | null;
}

/** Protocols whose requests can wait for an approval (ADR 0065). */
export const ENROLLMENT_SOURCES = ['SCEP', 'EST', 'ACME'] as const;
export type EnrollmentSource = (typeof ENROLLMENT_SOURCES)[number];

/** Where an external enrollment stands, as the protocol that asked sees it. */
export const ENROLLMENT_STATES = ['pending', 'issued', 'rejected', 'expired', 'failed'] as const;
export type EnrollmentState = (typeof ENROLLMENT_STATES)[number];

/** The external enrollment an approval holds: the request, its summary, and its outcome. */
export interface ApprovalEnrollmentDto {
  source: EnrollmentSource;
  state: EnrollmentState;
  /**
   * The subject to certify, RFC 4514, e.g. `CN=device-1,O=Example`: the CSR's, or the one the
   * protocol asked for instead (ACME: the common name only).
   */
  subject: string;
  /** The DNS names to certify, e.g. `["device-1.example.com"]`: the CSR's, or the protocol's. */
  dns_names: string[];
  /** e.g. `RSA-2048`, `ECDSA-P256`. */
  key_algorithm: string;
  csr_pem: string;
  issuer_id: string | null;
  owner_id: string | null;
  team_id: string | null;
  /** What the protocol shows of its request, e.g. `{"scep_profile": "phones", "transaction_id": "…"}`. */
  reference: Record<string, string>;
  /** A pending enrollment not decided by then is expired (the device is answered FAILURE). */
  expires_at: string;
  /** Once issued. */
  serial_hex: string | null;
  /** Why an approved enrollment could not be issued. */
  error: string | null;
}

/**
 * `issuance.v1.request-enrollment-approval`: an enrollment protocol holds a CSR for approval
 * (ADR 0065). Idempotent by `reference_key`: the same key answers the approval already opened.
 */
export class RequestEnrollmentApprovalRequest extends CertifiedNamesOverride {
  @IsIn(ENROLLMENT_SOURCES as unknown as string[])
  source!: EnrollmentSource;

  @IsString()
  @IsNotEmpty()
  @MaxLength(65536)
  csr_pem!: string;

  /** Unique per request of the protocol, e.g. `scep:<profile id>:<transactionID>`. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  reference_key!: string;

  @IsObject()
  reference!: Record<string, string>;

  /** Who asked (the protocol's principal, e.g. `scep:<signer fingerprint>`). */
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  requested_by!: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  issuer_id?: string;

  /** The certificate profile the enrollment is for (the approval's profile_id). */
  @IsOptional()
  @IsString()
  @MaxLength(128)
  certificate_profile_id?: string;

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

  /** What the certificate profile caps the validity at (ACME, ADR 0068); the issuer's default otherwise. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3650)
  validity_days?: number;

  /** The exact validity the enrollment asked for (ACME's notBefore/notAfter, ADR 0069). */
  @IsOptional()
  @IsISO8601({ strict: true })
  not_before?: string;

  @IsOptional()
  @IsISO8601({ strict: true })
  not_after?: string;

  /** The certificate profile asks for the TLS feature status_request (RFC 7633). */
  @IsOptional()
  @IsBoolean()
  must_staple?: boolean;

  /** The leaf's extended key usages under the certificate profile (the issuer's default when absent). */
  @IsOptional()
  @IsArray()
  @IsIn(PROFILE_EKU_NAMES, { each: true })
  extended_key_usage?: ProfileEkuName[];

  /** The inventory certificate the issued one is the next version of (an ACME renewal, ADR 0068). */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  version_of?: string;

  /** As issue-and-record's: the certificate an EST or SCEP renewal renews, found in the inventory. */
  @IsOptional()
  @IsString()
  @MaxLength(16384)
  renews_certificate_pem?: string;

  /**
   * How long the request may wait for a decision (default 7 days). Protocol-frontends before the
   * tenth stop sent it; kept so a rolling upgrade does not refuse their requests.
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(90 * 24 * 3600)
  expires_in_seconds?: number;

  /**
   * The latest the request may wait for a decision, whatever the TTL: an ACME order's expiry.
   * Absolute, so the time the request spends on the bus cannot stretch it past that.
   */
  @IsOptional()
  @IsISO8601({ strict: true })
  expires_at?: string;
}

/** `issuance.v1.get-enrollment-approval`: where an enrollment stands, with the certificate once issued. */
export interface EnrollmentApprovalOutcome {
  approval_id: string;
  state: EnrollmentState;
  /** The issued certificate (leaf PEM) when `issued`. */
  certificate_pem: string | null;
  /**
   * Its chain as the issuer built it (the issuing CA first) when `issued`; null for enrollments
   * issued before issuance kept it (the caller then takes the issuer's active CAs).
   */
  chain_pem: string | null;
  /** One chain through each active cross-certificate on that chain (ADR 0070); empty if none. */
  alternate_chains_pem: string[];
  /** Its issuer and serial as issuance names them (revocation) when `issued`. */
  issuer_id: string | null;
  serial_hex: string | null;
  /** Its inventory certificate when `issued` and recorded. */
  certificate_id: string | null;
  /** The decider's reason (rejected), `expired`, or the issuance error (failed). */
  reason: string | null;
}

export class ListApprovalsRequest extends PageQuery {
  @IsOptional()
  @IsIn(APPROVAL_STATUSES as unknown as string[], {
    message: `status must be one of ${APPROVAL_STATUSES.join(', ')}`,
  })
  status?: ApprovalStatus;

  @IsOptional()
  @IsIn(APPROVAL_KINDS as unknown as string[], {
    message: `approval_kind must be one of ${APPROVAL_KINDS.join(', ')}`,
  })
  approval_kind?: ApprovalKind;
}

export class ApprovalIdRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

/** The optional body of POST /api/v1/approvals/{id}/approve and /reject. */
export class DecideApprovalBody {
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;
}

export class DecideApprovalRequest extends ApprovalIdRequest {
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;
}

/** Events issuance.v1.approval.requested and issuance.v1.approval.decided carry the approval. */
export type ApprovalEvent = ApprovalDto;
