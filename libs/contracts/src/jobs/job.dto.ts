import { IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { PageQuery } from '../pagination/page';

export const JOB_TYPES = ['Issuance', 'Renewal', 'Deployment', 'Validation'] as const;
export type JobType = (typeof JOB_TYPES)[number];

export const JOB_STATUSES = [
  'Pending',
  'AwaitingCSR',
  'AwaitingApproval',
  'Running',
  'Completed',
  'Failed',
  'Cancelled',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** A unit of work on one certificate (docs/decisions/0024-certificate-inventory-and-jobs.md). */
export interface JobDto {
  id: string;
  type: JobType;
  status: JobStatus;
  certificate_id: string;
  agent_id: string;
  target_id: string;
  attempts: number;
  max_attempts: number;
  last_error: string;
  /** Who asked for it: an actor id, or `system` for the renewal loop. */
  requested_by: string;
  scheduled_at: string;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

export class ListJobsRequest extends PageQuery {
  @IsOptional()
  @IsIn(JOB_STATUSES as unknown as string[], { message: `status must be one of ${JOB_STATUSES.join(', ')}` })
  status?: JobStatus;

  @IsOptional()
  @IsIn(JOB_TYPES as unknown as string[], { message: `type must be one of ${JOB_TYPES.join(', ')}` })
  type?: JobType;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  certificate_id?: string;
}

export class JobIdRequest {
  @IsString()
  @MaxLength(128)
  id!: string;
}

export class RejectJobRequest extends JobIdRequest {
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;
}

/** POST /api/v1/jobs/{id}/verify: where to look; defaults to the job's target endpoint. */
export class VerifyJobRequest extends JobIdRequest {
  /** `host:port` of the TLS endpoint that should serve the certificate. */
  @IsOptional()
  @IsString()
  @Length(3, 300)
  endpoint?: string;

  /** SNI name sent; defaults to the certificate's common name. */
  @IsOptional()
  @IsString()
  @Length(1, 253)
  server_name?: string;
}

export const VERIFICATION_RESULTS = ['verified', 'mismatch', 'unreachable'] as const;
export type VerificationResult = (typeof VERIFICATION_RESULTS)[number];

/** Whether the deployed endpoint serves the certificate version the job deployed. */
export interface JobVerificationDto {
  job_id: string;
  certificate_id: string;
  endpoint: string;
  result: VerificationResult;
  expected_fingerprint_sha256: string;
  served_fingerprint_sha256: string;
  error: string;
  checked_at: string;
}

/** Event issuance.v1.job.created: agents and dispatch learn of new work. */
export interface JobCreated {
  job_id: string;
  type: JobType;
  status: JobStatus;
  certificate_id: string;
  agent_id: string;
  target_id: string;
}

/** Event issuance.v1.job.status-changed. */
export interface JobStatusChanged {
  job_id: string;
  type: JobType;
  certificate_id: string;
  from: JobStatus;
  to: JobStatus;
  error: string;
  at: string;
}
