import { IsInt, IsISO8601, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

/** `issuance.v1.get-digest-facts`: what the daily digest summarises (docs/notifications.md "Digest"). */
export class DigestFactsRequest {
  /** Certificates expiring within this many days (the digest uses 30). */
  @IsInt()
  @Min(1)
  @Max(365)
  days!: number;

  /** Failed renewals and deployments since this instant (the digest uses the last 24 hours). */
  @IsISO8601()
  failed_since!: string;

  /** At most this many rows per section (the digest shows the first ones and counts the rest). */
  @IsInt()
  @Min(1)
  @Max(10000)
  limit!: number;
}

/** Owner and team of the certificate a digest line is about; they choose the digest it goes in. */
export interface DigestSubject {
  certificate_id: string;
  common_name: string;
  owner_id: string | null;
  team_id: string | null;
  environment: string;
}

export interface DigestExpiringCertificate extends DigestSubject {
  expires_at: string;
  status: string;
}

export interface DigestFailedJob extends DigestSubject {
  job_id: string;
  job_type: string;
  error: string;
  failed_at: string;
}

export interface DigestViolation extends DigestSubject {
  violation_id: string;
  severity: string;
  message: string;
  detected_at: string;
}

export interface DigestApproval extends DigestSubject {
  approval_id: string;
  requested_by: string;
  requested_at: string;
}

/**
 * The facts of one digest run, each section capped at the request's limit (ordered by urgency:
 * soonest expiry, newest failure, oldest violation and approval) with the uncapped counts.
 */
export interface DigestFactsDto {
  generated_at: string;
  expiring: DigestExpiringCertificate[];
  failed_jobs: DigestFailedJob[];
  violations: DigestViolation[];
  approvals: DigestApproval[];
  totals: { expiring: number; failed_jobs: number; violations: number; approvals: number };
}

/** GET /api/v1/digest/preview: every digest, or one owner's or team's. */
export class DigestPreviewRequest {
  @IsOptional()
  @IsString()
  @MaxLength(255)
  @Matches(/^[a-z0-9][a-z0-9._-]{0,127}$/, { message: 'owner_id must be an owner id' })
  owner_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(255)
  @Matches(/^[a-z0-9][a-z0-9._-]{0,127}$/, { message: 'team_id must be a team id' })
  team_id?: string;
}

/** One owner's or team's digest, rendered (docs/notifications.md "Digest"). */
export interface DigestDto {
  kind: 'owner' | 'team';
  subject_id: string;
  /** The owner's or team's contact addresses (who the email goes to). */
  addresses: string[];
  counts: { expiring: number; failed_jobs: number; violations: number; approvals: number };
  subject: string;
  text: string;
  html: string;
}

export interface DigestPreviewDto {
  generated_at: string;
  digests: DigestDto[];
}

/** POST /api/v1/digest/send: the digests built now and the notifications queued for them. */
export interface DigestSendResult {
  run_id: string;
  digests: number;
  notifications: number;
}
