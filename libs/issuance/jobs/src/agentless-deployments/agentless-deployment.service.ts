import { createPrivateKey } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  AGENTLESS_DEPLOYMENT_KEY_LABEL,
  AgentlessDeploymentStart,
  AuditAction,
  CertlaneError,
  ErrorCode,
  FinishAgentlessDeploymentRequest,
  JobDto,
  RequestContext,
  StartAgentlessDeploymentRequest,
} from '@certlane/contracts';
import { CERTLANE_CONFIG, CertlaneConfig, CertlaneLogger, LOGGER, SecretBox } from '@certlane/platform';
import { EntityManager } from 'typeorm';
import { withTrailingNewline } from '@certlane/pki';
import {
  CertificateKeySealer,
  CertificateRow,
  StatusTransitions,
  jobDto,
  JobRow,
  lifecycleAudit,
} from '@certlane/issuance-inventory';
import { UnitOfWork } from '@certlane/issuance-data-access';
import { outboxToken, ServiceOutbox } from '@certlane/platform';
import { CertificateRepository } from '@certlane/issuance-inventory';
import { JobRepository } from '@certlane/issuance-inventory';

/** The `claimed_by` of jobs deployment-dispatch runs. */
export const AGENTLESS_CLAIMANT = 'deployment-dispatch';

/** Why a certificate version without a server-held key cannot go to an SSH target. */
export const NO_SERVER_KEY_MESSAGE =
  'the certificate version has no server-held private key (it was issued with agent key generation); ' +
  'agentless SSH targets need SERVICE_KEYGEN_MODE=server, or a proxy agent named on the target';

/**
 * Agentless deployments (ADR 0031), the issuance half: deployment-dispatch claims a Pending
 * Deployment job (Pending -> Running through the job machine, under the job's row lock, so one
 * claimer wins) and gets the version's leaf, chain and private key, the key sealed for it
 * (SecretBox under SERVICE_CONFIG_ENCRYPTION_KEY with its own label, the job id as associated
 * data); it then reports the outcome and the verification, which land on the job.
 */
@Injectable()
export class AgentlessDeploymentService {
  private readonly box: SecretBox;

  constructor(
    private readonly jobs: JobRepository,
    private readonly certificates: CertificateRepository,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
    private readonly unitOfWork: UnitOfWork,
    private readonly transitions: StatusTransitions,
    private readonly sealer: CertificateKeySealer,
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {
    this.box = new SecretBox(config.configEncryptionKey, AGENTLESS_DEPLOYMENT_KEY_LABEL);
  }

  async start(
    request: StartAgentlessDeploymentRequest,
    context?: RequestContext,
  ): Promise<AgentlessDeploymentStart> {
    return this.unitOfWork.run(async (manager): Promise<AgentlessDeploymentStart> => {
      const { job, certificate } = await this.transitions.lockJob(manager, request.job_id);
      const notClaimed = (reason: string) => ({
        started: false as const,
        job_id: job.id,
        status: job.status,
        reason,
      });
      if (job.type !== 'Deployment') return notClaimed(`job ${job.id} is a ${job.type} job`);
      // Another replica claimed it first, or it was cancelled: nothing to do (idempotent).
      if (job.status !== 'Pending') return notClaimed(`job ${job.id} is ${job.status}, not Pending`);
      const version = job.version_id ? await this.certificates.version(job.version_id, manager) : null;
      if (!version)
        return this.fail(manager, job, certificate, 'the job names no certificate version', context);
      const sealed = await this.sealedKey(manager, version.id);
      if (!sealed) return this.fail(manager, job, certificate, NO_SERVER_KEY_MESSAGE, context);
      let keyPem: string;
      try {
        keyPem = createPrivateKey({ key: this.sealer.open(version.id, sealed), format: 'der', type: 'pkcs8' })
          .export({ format: 'pem', type: 'pkcs8' })
          .toString();
      } catch (error) {
        this.logger.warn({ job_id: job.id, err: error }, 'the stored private key does not open');
        return this.fail(manager, job, certificate, 'the stored private key does not open', context);
      }
      const running = await this.transitions.transitionJob(
        manager,
        job,
        certificate,
        { kind: 'start' },
        context,
      );
      await this.jobs.markClaimed(manager, job.id, AGENTLESS_CLAIMANT);
      await this.outbox.audit(
        manager,
        lifecycleAudit(AuditAction.JobDeploymentStarted, 'job', job.id, context, {
          certificate_id: job.certificate_id,
          target_id: job.target_id,
          version_id: version.id,
          from: job.status,
          to: running.job.status,
        }),
      );
      const leaf = withTrailingNewline(version.cert_pem);
      return {
        started: true,
        job_id: job.id,
        certificate_id: job.certificate_id,
        version_id: version.id,
        common_name: certificate.common_name,
        leaf_pem: leaf,
        chain_pem: version.chain_pem,
        fingerprint_sha256: version.fingerprint_sha256,
        private_key_sealed: this.box.seal(keyPem, job.id),
      };
    });
  }

  /**
   * Completed or Failed through the job machine, with the verification (job_verifications) and
   * one audit record. A repeated report of the status the job already has is answered as done.
   */
  async finish(request: FinishAgentlessDeploymentRequest, context?: RequestContext): Promise<JobDto> {
    const row = await this.unitOfWork.run(async (manager) => {
      const { job, certificate } = await this.transitions.lockJob(manager, request.job_id);
      if ((await this.jobs.claimedBy(manager, job.id)) !== AGENTLESS_CLAIMANT) {
        throw new CertlaneError(
          ErrorCode.JobInvalidTransition,
          `job ${job.id} was not started as an agentless deployment`,
          { status: job.status },
        );
      }
      if (job.status === request.status) return job;
      const error =
        request.status === 'Failed' ? request.error?.trim() || 'the agentless deployment failed' : undefined;
      const changed = await this.transitions.transitionJob(
        manager,
        job,
        certificate,
        { kind: request.status === 'Completed' ? 'complete' : 'fail' },
        context,
        { error },
      );
      const version = job.version_id ? await this.certificates.version(job.version_id, manager) : null;
      if (request.verification && version) {
        await this.jobs.addVerification(manager, {
          job_id: job.id,
          certificate_id: job.certificate_id,
          endpoint: request.verification.endpoint,
          result: request.verification.result,
          expected_fingerprint_sha256: version.fingerprint_sha256,
          served_fingerprint_sha256: request.verification.served_fingerprint_sha256,
          error: request.verification.error,
        });
      }
      await this.outbox.audit(manager, {
        ...lifecycleAudit(AuditAction.JobDeploymentFinished, 'job', job.id, context, {
          certificate_id: job.certificate_id,
          target_id: job.target_id,
          version_id: job.version_id,
          from: job.status,
          to: changed.job.status,
          ...(error ? { error } : {}),
          ...(request.steps ? { steps: request.steps } : {}),
          ...(request.verification ? { verification: request.verification.result } : {}),
        }),
        outcome: request.status === 'Completed' ? 'success' : 'failure',
      });
      return changed.job;
    });
    return jobDto(row);
  }

  private async sealedKey(manager: EntityManager, versionId: string): Promise<string | null> {
    const rows: { private_key_sealed: string }[] = await manager.query(
      'SELECT private_key_sealed FROM certificate_keys WHERE version_id = $1',
      [versionId],
    );
    return rows[0]?.private_key_sealed ?? null;
  }

  /** Pending -> Failed with the reason (audited); nothing is deployed. */
  private async fail(
    manager: EntityManager,
    job: JobRow,
    certificate: CertificateRow,
    reason: string,
    context: RequestContext | undefined,
  ): Promise<AgentlessDeploymentStart> {
    const failed = await this.transitions.transitionJob(
      manager,
      job,
      certificate,
      { kind: 'fail' },
      context,
      {
        error: reason,
      },
    );
    await this.outbox.audit(manager, {
      ...lifecycleAudit(AuditAction.JobDeploymentFinished, 'job', job.id, context, {
        certificate_id: job.certificate_id,
        target_id: job.target_id,
        version_id: job.version_id,
        from: job.status,
        to: failed.job.status,
        error: reason,
      }),
      outcome: 'failure',
    });
    return { started: false, job_id: job.id, status: failed.job.status, reason };
  }
}
