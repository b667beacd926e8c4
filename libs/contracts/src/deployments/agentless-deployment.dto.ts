import { Type } from 'class-transformer';
import { IsIn, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { VERIFICATION_RESULTS, VerificationResult } from '../jobs/job.dto';

/**
 * Agentless deployments (ADR 0031): deployment-dispatch runs the Deployment jobs of `ssh` targets
 * that name no agent. It claims a job in issuance (Pending -> Running; the claim is the lock, so
 * two replicas never deploy one job twice), deploys, and reports the outcome with the
 * verification. Internal subjects: no gateway route.
 */

/** The SecretBox label under which issuance seals a job's private key for deployment-dispatch. */
export const AGENTLESS_DEPLOYMENT_KEY_LABEL = 'issuance agentless deployment key v1';

export class StartAgentlessDeploymentRequest {
  @IsString()
  @MaxLength(128)
  job_id!: string;
}

/** What a claimed job deploys; the private key is sealed, the job id its associated data. */
export interface AgentlessDeploymentClaimed {
  started: true;
  job_id: string;
  certificate_id: string;
  version_id: string;
  common_name: string;
  /** The leaf alone, then its chain (issuing CA first). */
  leaf_pem: string;
  chain_pem: string;
  fingerprint_sha256: string;
  /** PKCS#8 PEM sealed with SecretBox(SERVICE_CONFIG_ENCRYPTION_KEY, AGENTLESS_DEPLOYMENT_KEY_LABEL), AAD job_id. */
  private_key_sealed: string;
}

/** Not claimed: another replica has it, it is no longer Pending, or issuance failed it (`reason`). */
export interface AgentlessDeploymentNotClaimed {
  started: false;
  job_id: string;
  status: string;
  reason: string;
}

export type AgentlessDeploymentStart = AgentlessDeploymentClaimed | AgentlessDeploymentNotClaimed;

export const AGENTLESS_OUTCOMES = ['Completed', 'Failed'] as const;
export type AgentlessOutcome = (typeof AGENTLESS_OUTCOMES)[number];

/** The served-leaf check after the deployment, kept in job_verifications. */
export class AgentlessVerification {
  @IsString()
  @MaxLength(300)
  endpoint!: string;

  @IsString()
  @IsIn(VERIFICATION_RESULTS as unknown as string[])
  result!: VerificationResult;

  @IsString()
  @MaxLength(64)
  served_fingerprint_sha256!: string;

  @IsString()
  @MaxLength(2000)
  error!: string;
}

export class FinishAgentlessDeploymentRequest {
  @IsString()
  @MaxLength(128)
  job_id!: string;

  @IsString()
  @IsIn(AGENTLESS_OUTCOMES as unknown as string[])
  status!: AgentlessOutcome;

  @IsOptional()
  @IsString()
  @MaxLength(4000)
  error?: string;

  /** The deployment's steps in words (`write ok; swap ok; ...`), kept in the audit record. */
  @IsOptional()
  @IsString()
  @MaxLength(8000)
  steps?: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => AgentlessVerification)
  verification?: AgentlessVerification;
}
