import { Type } from 'class-transformer';
import {
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { IsRecipientPublicJwk, RecipientPublicJwk } from './recipient-jwk';
import { AGENT_ID_PATTERN } from './agent.dto';
import { KeyAlgorithmName } from '../certificates/certificate.dto';
import { JobStatus, JobType, VERIFICATION_RESULTS, VerificationResult } from '../jobs/job.dto';

/**
 * The agent work protocol (spec 4.7; docs/decisions/0027-agent-work-protocol.md): an agent polls
 * for work, submits CSRs for keys it generated itself, fetches what was issued and reports the
 * status of its jobs. Served by the issuance service, which owns jobs (ADR 0024).
 */

/** The statuses an agent may report (the job machine's `report` event). */
export const AGENT_REPORT_STATUSES = ['Running', 'Completed', 'Failed'] as const;
export type AgentReportStatus = (typeof AGENT_REPORT_STATUSES)[number];

/** Most work items one poll returns (oldest first); the rest come on the next poll. */
export const AGENT_WORK_LIMIT = 100;

/**
 * One unit of work for an agent: a Deployment job (status Pending) or an Issuance/Renewal job
 * waiting for the agent's CSR (status AwaitingCSR). Nothing secret: no key, no target config.
 */
export interface AgentWorkItem {
  job_id: string;
  type: JobType;
  status: JobStatus;
  certificate_id: string;
  common_name: string;
  sans: string[];
  /** The key the agent generates for a CSR (AwaitingCSR); for a deployment, the certificate's. */
  key_algorithm: KeyAlgorithmName;
  /** Deployment: where to deploy (`""` when the job names none). */
  target_id: string;
  /** Deployment: the version to deploy (fetch it with `?version_id=`); null for AwaitingCSR. */
  version_id: string | null;
  attempts: number;
  max_attempts: number;
  created_at: string;
}

export interface AgentWorkResponse {
  jobs: AgentWorkItem[];
  /** The number of items in `jobs` (at most AGENT_WORK_LIMIT). */
  count: number;
}

/** An agent's own work: the agent named in the path. */
export class AgentWorkRequest {
  @IsString()
  @Matches(AGENT_ID_PATTERN, {
    message: 'agent id must be 1-58 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit',
  })
  agent_id!: string;
}

/** Body of POST /api/v1/agents/{id}/csr. */
export class SubmitAgentCsrBody {
  @IsString()
  @MaxLength(65536)
  @Matches(/-----BEGIN (NEW )?CERTIFICATE REQUEST-----/, {
    message: 'csr_pem must be a PEM certificate request (-----BEGIN CERTIFICATE REQUEST-----)',
  })
  csr_pem!: string;

  /** Which certificate the CSR is for; without it, the awaiting job whose common name the CSR carries. */
  @IsOptional()
  @IsString()
  @MaxLength(128)
  certificate_id?: string;
}

export class SubmitAgentCsrRequest extends SubmitAgentCsrBody {
  @IsString()
  @Matches(AGENT_ID_PATTERN, {
    message: 'agent id must be 1-58 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit',
  })
  agent_id!: string;
}

/** 202 to a CSR: the issuer has already issued; fetch the certificate with GET .../certificates/{id}. */
export interface AgentCsrAccepted {
  status: 'accepted';
  job_id: string;
  job_status: JobStatus;
  certificate_id: string;
  version_id: string;
  serial_number: string;
  fingerprint_sha256: string;
  not_after: string;
}

/** Query of GET /api/v1/agents/{id}/certificates/{cert_id}. */
export class AgentCertificateQuery {
  /** A given version of the certificate (a deployment's `version_id`); default the current one. */
  @IsOptional()
  @IsString()
  @MaxLength(128)
  version_id?: string;
}

export class AgentCertificateRequest extends AgentCertificateQuery {
  @IsString()
  @Matches(AGENT_ID_PATTERN, {
    message: 'agent id must be 1-58 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit',
  })
  agent_id!: string;

  @IsString()
  @MaxLength(128)
  certificate_id!: string;
}

/** The issued certificate for deployment: public material only (the key never left the agent). */
export interface AgentCertificateDto {
  certificate_id: string;
  version_id: string;
  /** The leaf followed by its chain (issuing CA first): what a TLS server serves. */
  certificate_pem: string;
  /** The leaf alone. */
  leaf_pem: string;
  /** The chain alone, issuing CA first (may be empty for imports without a chain). */
  chain_pem: string;
  serial_number: string;
  fingerprint_sha256: string;
  not_before: string;
  not_after: string;
}

/**
 * What the agent saw when its connector checked the deployed endpoint (ADR 0032): the leaf it
 * served, or why it could not be read. The expected fingerprint is never the agent's: issuance
 * takes it from the job's version and checks the claimed result against it.
 */
export class AgentVerificationReport {
  /** `host:port` the agent connected to (the target's endpoint). */
  @IsString()
  @Length(3, 300)
  endpoint!: string;

  /** SHA-256 of the served leaf's DER, hex (colons allowed); empty when nothing was served. */
  @IsOptional()
  @IsString()
  @ValidateIf((_, value) => value !== '')
  @Matches(/^([0-9a-fA-F]{2}:?){31}[0-9a-fA-F]{2}$/, {
    message: 'served_fingerprint_sha256 must be a SHA-256 fingerprint (64 hex digits)',
  })
  served_fingerprint_sha256?: string;

  @IsString()
  @IsIn(VERIFICATION_RESULTS as unknown as string[], {
    message: `result must be one of ${VERIFICATION_RESULTS.join(', ')}`,
  })
  result!: VerificationResult;

  /** Why the endpoint could not be checked (unreachable). */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(2000)
  error?: string;
}

/**
 * Body of POST /api/v1/agents/{id}/certificates/{cert_id}/key (ADR 0033): the public half of an
 * ephemeral P-256 key the agent made for this fetch, and optionally the version (default current).
 */
export class AgentKeyBody {
  @IsRecipientPublicJwk()
  recipient_public_jwk!: RecipientPublicJwk;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  version_id?: string;
}

export class AgentKeyRequest extends AgentKeyBody {
  @IsString()
  @Matches(AGENT_ID_PATTERN, {
    message: 'agent id must be 1-58 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit',
  })
  agent_id!: string;

  @IsString()
  @MaxLength(128)
  certificate_id!: string;
}

/**
 * A server-generated private key, released to the agent wrapped: `private_key_jwe` is a compact
 * JWE (alg ECDH-ES+A256KW, enc A256GCM) to `recipient_public_jwk` whose plaintext is the PKCS#8
 * PEM; its protected header names the certificate and version (`kid` `<certificate>/<version>`,
 * `certificate_id`, `version_id`). Never the plaintext key.
 */
export interface AgentKeyDto {
  certificate_id: string;
  version_id: string;
  private_key_jwe: string;
}

/** Body of POST /api/v1/agents/{id}/jobs/{job_id}/status. */
export class ReportAgentJobStatusBody {
  @IsString()
  @IsIn(AGENT_REPORT_STATUSES as unknown as string[], {
    message: `status must be one of ${AGENT_REPORT_STATUSES.join(', ')}`,
  })
  status!: AgentReportStatus;

  @IsOptional()
  @IsString()
  @MaxLength(2000)
  error?: string;

  /** A deployment's verification, with its Completed or Failed report (ADR 0032). */
  @IsOptional()
  @IsObject({ message: 'verification must be an object' })
  @ValidateNested()
  @Type(() => AgentVerificationReport)
  verification?: AgentVerificationReport;
}

export class ReportAgentJobStatusRequest extends ReportAgentJobStatusBody {
  @IsString()
  @Matches(AGENT_ID_PATTERN, {
    message: 'agent id must be 1-58 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit',
  })
  agent_id!: string;

  @IsString()
  @MaxLength(128)
  job_id!: string;
}
