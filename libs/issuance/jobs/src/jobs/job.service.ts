import { Inject, Injectable } from '@nestjs/common';
import {
  AuditAction,
  CertlaneError,
  ErrorCode,
  JobDto,
  JobStatus,
  JobVerificationDto,
  ListJobsRequest,
  Page,
  RejectJobRequest,
  RequestContext,
  resolvePage,
  StatusResponse,
  VerifyJobRequest,
} from '@certlane/contracts';
import { readEndpoint } from '@certlane/connectors';
import { producesVersion } from '@certlane/issuance-domain';
import { ApprovalGate } from '@certlane/issuance-governance';
import {
  StatusTransitions,
  jobDto,
  jobNotFound,
  JobRepository,
  lifecycleAudit,
  ServerIssuanceRunner,
  verificationDto,
} from '@certlane/issuance-inventory';
import { probeLeaf } from './tls-probe';
import { UnitOfWork } from '@certlane/issuance-data-access';
import { outboxToken, ServiceOutbox } from '@certlane/platform';
import { CertificateRepository } from '@certlane/issuance-inventory';
import { CERTLANE_CONFIG, CertlaneConfig } from '@certlane/platform';

/** The statuses in which a job waits for its agent, cancelled when the agent is retired (ADR 0042). */
export const AGENT_WAITING_STATUSES: readonly JobStatus[] = ['Pending', 'AwaitingCSR', 'AwaitingApproval'];

/** Jobs (spec 4.5, note J; ADR 0024): list, read, cancel, approve, reject, verify deployments. */
@Injectable()
export class JobService {
  constructor(
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    private readonly certificates: CertificateRepository,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
    private readonly unitOfWork: UnitOfWork,
    private readonly jobs: JobRepository,
    private readonly transitions: StatusTransitions,
    private readonly runner: ServerIssuanceRunner,
    private readonly approvals: ApprovalGate,
  ) {}

  list(request: ListJobsRequest): Promise<Page<JobDto>> {
    return this.jobs.list(request, resolvePage(request));
  }

  async get(id: string): Promise<JobDto> {
    const row = await this.jobs.find(id);
    if (!row) throw jobNotFound(id);
    return jobDto(row);
  }

  async cancel(id: string, context?: RequestContext): Promise<StatusResponse> {
    await this.unitOfWork.run(async (manager) => {
      const { job, certificate } = await this.transitions.lockJob(manager, id);
      const changed = await this.transitions.cancelJob(manager, job, certificate, context);
      await this.outbox.audit(
        manager,
        lifecycleAudit(AuditAction.JobCancelled, 'job', id, context, {
          certificate_id: job.certificate_id,
          type: job.type,
          from: job.status,
          certificate_status: changed.certificate.status,
        }),
      );
    });
    return { status: 'cancelled', job_id: id };
  }

  /**
   * A retired agent's jobs that wait for it (Pending, AwaitingCSR, AwaitingApproval: nobody else
   * would take them) are cancelled with the retirement as their reason, each in its own
   * transaction with a `job.cancelled` record (ADR 0042). Running jobs are left to finish or to the
   * stale-job reaper. Idempotent: a job already finished is skipped. Returns the cancelled ids.
   */
  async withdrawAgentJobs(agentId: string, reason: string, context: RequestContext): Promise<string[]> {
    const withdrawn: string[] = [];
    for (;;) {
      const ids = await this.jobs.agentJobIds(agentId, AGENT_WAITING_STATUSES, 500);
      for (const id of ids) {
        await this.unitOfWork.run(async (manager) => {
          const { job, certificate } = await this.transitions.lockJob(manager, id);
          if (!AGENT_WAITING_STATUSES.includes(job.status)) return;
          const changed = await this.transitions.cancelJob(manager, job, certificate, context, reason);
          await this.outbox.audit(
            manager,
            lifecycleAudit(AuditAction.JobCancelled, 'job', id, context, {
              certificate_id: job.certificate_id,
              type: job.type,
              from: job.status,
              certificate_status: changed.certificate.status,
              reason,
              agent_id: agentId,
            }),
          );
          withdrawn.push(id);
        });
      }
      if (ids.length < 500) return withdrawn;
    }
  }

  /**
   * AwaitingApproval -> AwaitingCSR (agent key generation for issuance and renewal) or Pending.
   * A job held by a profile's approval decides that approval by its rules: the requester cannot
   * approve (403, nothing changes), and the approval is marked approved (ADR 0025).
   */
  async approve(id: string, context?: RequestContext): Promise<JobDto> {
    const job = await this.unitOfWork.run(async (manager) => {
      const { job, certificate } = await this.transitions.lockJob(manager, id);
      await this.approvals.decideForJob(manager, id, 'approve', context);
      const next =
        producesVersion(job.type) && this.config.keygenMode === 'agent' ? 'AwaitingCSR' : 'Pending';
      const changed = await this.transitions.transitionJob(
        manager,
        job,
        certificate,
        { kind: 'approve', next },
        context,
      );
      await this.outbox.audit(
        manager,
        lifecycleAudit(AuditAction.JobApproved, 'job', id, context, {
          certificate_id: job.certificate_id,
          type: job.type,
          to: changed.job.status,
        }),
      );
      return changed.job;
    });
    if (this.runner.enabled && producesVersion(job.type)) {
      await this.runner.runInline(job.id);
      return this.get(id);
    }
    return jobDto(job);
  }

  async reject(request: RejectJobRequest, context?: RequestContext): Promise<JobDto> {
    const reason = request.reason?.trim() || 'rejected';
    const job = await this.unitOfWork.run(async (manager) => {
      const { job, certificate } = await this.transitions.lockJob(manager, request.id);
      await this.approvals.decideForJob(manager, request.id, 'reject', context, reason);
      const changed = await this.transitions.transitionJob(
        manager,
        job,
        certificate,
        { kind: 'reject' },
        context,
        {
          error: reason,
        },
      );
      await this.outbox.audit(
        manager,
        lifecycleAudit(AuditAction.JobRejected, 'job', request.id, context, {
          certificate_id: job.certificate_id,
          type: job.type,
          reason,
        }),
      );
      return changed.job;
    });
    return jobDto(job);
  }

  /**
   * Connects to the endpoint the deployment should serve the certificate on and compares the
   * served leaf with the version the job deployed. Every check is kept (job_verifications).
   */
  async verify(request: VerifyJobRequest, context?: RequestContext): Promise<JobVerificationDto> {
    const job = await this.jobs.find(request.id);
    if (!job) throw jobNotFound(request.id);
    if (job.type !== 'Deployment') {
      throw CertlaneError.validation([
        { field: 'id', message: `job ${job.id} is a ${job.type} job; only deployments are verified` },
      ]);
    }
    if (!request.endpoint) {
      throw CertlaneError.validation([
        {
          field: 'endpoint',
          message: 'endpoint is required (host:port): the job has no target endpoint to verify against',
        },
      ]);
    }
    // A bare host means port 443.
    const endpoint = readEndpoint(request.endpoint, 443);
    if (!endpoint) {
      throw CertlaneError.validation([{ field: 'endpoint', message: 'endpoint must be host:port' }]);
    }
    const certificate = await this.certificates.find(job.certificate_id);
    const version = job.version_id ? await this.certificates.version(job.version_id) : null;
    if (!certificate || !version) {
      throw new CertlaneError(ErrorCode.CertificateNotIssued, `job ${job.id} names no certificate version`);
    }
    const probe = await probeLeaf(endpoint, request.server_name ?? certificate.common_name);
    const result = !probe.ok
      ? 'unreachable'
      : probe.fingerprintSha256 === version.fingerprint_sha256
        ? 'verified'
        : 'mismatch';
    const stored = await this.unitOfWork.run(async (manager) => {
      const row = await this.jobs.addVerification(manager, {
        job_id: job.id,
        certificate_id: job.certificate_id,
        endpoint: request.endpoint as string,
        result,
        expected_fingerprint_sha256: version.fingerprint_sha256,
        served_fingerprint_sha256: probe.ok ? probe.fingerprintSha256 : '',
        error: probe.ok ? '' : probe.error,
      });
      await this.outbox.audit(
        manager,
        lifecycleAudit(AuditAction.JobVerified, 'job', job.id, context, {
          certificate_id: job.certificate_id,
          endpoint: row.endpoint,
          result,
        }),
      );
      return row;
    });
    return verificationDto(stored);
  }

  async verification(id: string): Promise<JobVerificationDto> {
    if (!(await this.jobs.find(id))) throw jobNotFound(id);
    const row = await this.jobs.latestVerification(id);
    if (!row) {
      throw new CertlaneError(
        ErrorCode.VerificationNotFound,
        `job ${JSON.stringify(id)} has not been verified yet`,
      );
    }
    return verificationDto(row);
  }
}
