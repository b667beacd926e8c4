import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { OptionalRevocationReason, RevocationReason } from '../pki/revocation.dto';
import { CERTIFICATE_SOURCES, CertificateSource } from './certificate.dto';

/** Most ids one bulk call may name; criteria mode has no limit (it runs in batches). */
export const BULK_IDS_MAX = 100_000;

const sourceFromWire = ({ value }: { value: unknown }): unknown => (value === 'Unspecified' ? '' : value);

/**
 * Which certificates a bulk call touches (spec 4.2, 4.3): certificate_ids (ids mode) or any of the
 * reference criteria (criteria mode), all of them ANDed. `source` narrows and is never a
 * criterion on its own: a body with only `source` (or nothing) is empty criteria, 400.
 */
export class BulkCriteria {
  @IsOptional()
  @IsString()
  @MaxLength(128)
  profile_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  owner_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  agent_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  issuer_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  team_id?: string;

  /** Certificates whose current version was signed by this CA or by a CA below it (ADR 0076). */
  @IsOptional()
  @IsString()
  @MaxLength(128)
  ca_id?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(BULK_IDS_MAX)
  @IsString({ each: true })
  @Length(1, 128, { each: true })
  certificate_ids?: string[];

  /** Empty string or "Unspecified" matches any source. */
  @IsOptional()
  @Transform(sourceFromWire)
  @IsIn(CERTIFICATE_SOURCES as unknown as string[], {
    message: 'source must be one of Unspecified, EST, SCEP, API, Agent',
  })
  source?: CertificateSource;
}

export class BulkRevokeRequest extends BulkCriteria {
  @OptionalRevocationReason()
  reason?: RevocationReason;
}

export class BulkRenewRequest extends BulkCriteria {}

/** Bulk reassign works on ids only (spec 4.3). */
export class BulkReassignRequest {
  @IsArray()
  @ArrayMaxSize(BULK_IDS_MAX)
  @IsString({ each: true })
  @Length(1, 128, { each: true })
  certificate_ids!: string[];

  @IsString({ message: 'owner_id is required' })
  @Length(1, 128, { message: 'owner_id is required' })
  owner_id!: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  team_id?: string;
}

export interface BulkItemError {
  certificate_id: string;
  message: string;
}

/**
 * Bulk results stay small at any scale (they cross the bus, whose messages are at most 1 MiB):
 * `errors` keeps the first BULK_ERRORS_MAX failures and `enqueued_jobs` the first
 * BULK_ENQUEUED_JOBS_MAX jobs; the totals are always exact, and `errors_truncated` /
 * `enqueued_jobs_truncated` say when a list was cut (the jobs are listed by GET /api/v1/jobs).
 */
export const BULK_ERRORS_MAX = 1000;
export const BULK_ENQUEUED_JOBS_MAX = 5000;

interface BulkErrorList {
  total_failed: number;
  errors: BulkItemError[];
  /** True when more than BULK_ERRORS_MAX certificates failed (total_failed counts them all). */
  errors_truncated: boolean;
}

export interface BulkRevokeResult extends BulkErrorList {
  total_matched: number;
  total_revoked: number;
  total_skipped: number;
  /**
   * Of the revoked, those whose issuer cannot revoke at its CA (a kind without a connector, an
   * imported certificate of a remote CA; a script issuer without a revoke command) or whose CA
   * failed to: revoked in Certlane only, their CA not told (ADR 0046, ADR 0082). `recorded_only`
   * lists the first BULK_ERRORS_MAX, each with what to do.
   */
  total_recorded_only: number;
  recorded_only: BulkItemError[];
  recorded_only_truncated: boolean;
}

export interface BulkRenewResult extends BulkErrorList {
  total_matched: number;
  enqueued_jobs: { certificate_id: string; job_id: string }[];
  /** How many jobs were created (enqueued_jobs lists at most BULK_ENQUEUED_JOBS_MAX of them). */
  total_enqueued: number;
  enqueued_jobs_truncated: boolean;
  total_skipped: number;
}

export interface BulkReassignResult extends BulkErrorList {
  total_matched: number;
  total_reassigned: number;
  total_skipped: number;
}
