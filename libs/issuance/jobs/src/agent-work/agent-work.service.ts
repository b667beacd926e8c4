import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import {
  AgentCertificateDto,
  AgentCertificateRequest,
  AgentCsrAccepted,
  AgentReportStatus,
  AgentVerificationReport,
  AgentKeyDto,
  AgentKeyRequest,
  agentActorId,
  AgentWorkResponse,
  AuditAction,
  CertlaneError,
  ErrorCode,
  JobDto,
  KEY_RELEASE_ALG,
  KEY_RELEASE_ENC,
  RecipientPublicJwk,
  ReportAgentJobStatusRequest,
  RequestContext,
  SubmitAgentCsrRequest,
} from '@certlane/contracts';
import {
  agentClaimant,
  agentClaimRefusal,
  agentReportRefusal,
  AgentVerificationRecord,
  agentVerificationRecord,
  checkCsrAgainstCertificate,
  CsrFacts,
} from '@certlane/issuance-domain';
import { CertlaneLogger, LOGGER } from '@certlane/platform';
import { ProfileEnforcer } from '@certlane/issuance-governance';
import {
  CertificationRequest,
  parseCsr,
  PemLabel,
  toPem,
  withTrailingNewline,
  wrapPrivateKey,
} from '@certlane/pki';
import {
  CertificateKeySealer,
  certificateNotFound,
  CertificateRow,
  StatusTransitions,
  jobDto,
  jobNotFound,
  JobRow,
  keyAlgorithmName,
  lifecycleAudit,
  subjectAltNamesFor,
  VersionIssuance,
  VersionRow,
} from '@certlane/issuance-inventory';
import { asInputError, SignedCertificate } from '@certlane/issuance-ca';
import { AgentWorkRepository } from './agent-work.repository';
import { UnitOfWork } from '@certlane/issuance-data-access';
import { outboxToken, ServiceOutbox } from '@certlane/platform';
import { CertificateRepository } from '@certlane/issuance-inventory';
import { JobRepository } from '@certlane/issuance-inventory';

/** What the CSR rules of libs/issuance/domain read from a parsed CSR. */
export function csrFacts(csr: CertificationRequest): CsrFacts {
  return {
    subject: { commonName: csr.subject.commonName, attributes: csr.subject.attributes },
    subjectAltNames: csr.subjectAltNames,
    publicKey: csr.publicKey,
    requestsCa: csr.requested.basicConstraints?.ca === true,
  };
}

/** The RFC 7638 thumbprint of an EC public JWK: which ephemeral key a release was wrapped to. */
export function jwkThumbprint(jwk: RecipientPublicJwk): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical).digest('base64url');
}

/** A job is the agent's when its agent_id is the agent or its certificate's agent_id is. */
const belongsTo = (agentId: string, job: JobRow, certificate: CertificateRow) =>
  job.agent_id === agentId || certificate.agent_id === agentId;

const csrRefused = (message: string, rule: string) =>
  new CertlaneError(ErrorCode.CsrInvalid, `CSR refused: ${message}`, { rule, field: 'csr_pem' });

/**
 * The agent work protocol (spec 4.7, ADR 0027): the poll, CSR submission (agent key generation:
 * the service sees the CSR, never the key), the issued certificate, and job status reports. Every
 * status change goes through the StatusTransitions and the job machine of libs/issuance/domain.
 */
@Injectable()
export class AgentWorkService {
  constructor(
    private readonly jobs: JobRepository,
    private readonly certificates: CertificateRepository,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
    private readonly unitOfWork: UnitOfWork,
    private readonly repository: AgentWorkRepository,
    private readonly transitions: StatusTransitions,
    private readonly versions: VersionIssuance,
    private readonly profiles: ProfileEnforcer,
    private readonly sealer: CertificateKeySealer,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {}

  async work(agentId: string): Promise<AgentWorkResponse> {
    const jobs = await this.repository.work(agentId);
    return { jobs, count: jobs.length };
  }

  /**
   * Checks the CSR (signature and key rules while parsing, then the certificate's rules), moves
   * the job AwaitingCSR -> Running and commits; the certificate's issuer issues outside any
   * transaction (no connection or row lock is held while it signs); then, in a second transaction,
   * the version is stored (with the CSR), the job completes and the certificate takes the status
   * its dates give. An issuer failure fails the job (and the certificate, as the job machine says)
   * and is answered with the issuer's error. One audit record, written with the outcome.
   */
  async submitCsr(request: SubmitAgentCsrRequest, context?: RequestContext): Promise<AgentCsrAccepted> {
    let csr: CertificationRequest;
    try {
      csr = parseCsr(request.csr_pem);
    } catch (error) {
      throw asInputError(error, 'CSR refused');
    }
    const jobId = await this.awaitingJob(request, csr.subject.commonName);
    const facts = csrFacts(csr);
    const csrPem = toPem(PemLabel.certificateRequest, csr.der);

    const started = await this.unitOfWork.run(async (manager) => {
      const { job, certificate } = await this.transitions.lockJob(manager, jobId);
      if (!belongsTo(request.agent_id, job, certificate)) throw jobNotFound(jobId);
      const names = subjectAltNamesFor(certificate.common_name, certificate.sans);
      const check = checkCsrAgainstCertificate(facts, {
        common_name: certificate.common_name,
        key_algorithm: certificate.key_algorithm,
        names,
      });
      if (!check.ok) throw csrRefused(check.message, check.rule);
      // The certificate's profile (ADR 0025): 400 profile_violation naming the broken rule.
      const profile = await this.profiles.assertCsrAllowed(certificate.profile_id, csr, manager);
      const running = await this.transitions.transitionJob(
        manager,
        job,
        certificate,
        { kind: 'csr-submitted' },
        context,
      );
      return { job: running.job, certificate: running.certificate, names, profile };
    });

    const { job, certificate, names, profile } = started;
    let signed: SignedCertificate;
    try {
      // The local CA's own certificate.issued record carries the job id as its request id, so the
      // route keeps exactly one audit record (as the server-mode runner does).
      signed = await this.versions.sign(
        certificate,
        { csrPem, profile, sans: names },
        { actor_id: context?.actor_id ?? agentActorId(request.agent_id), request_id: job.id },
      );
    } catch (error) {
      await this.failIssuance(job, error, context);
      throw error;
    }

    const completed = await this.unitOfWork.run(async (manager) => {
      const { job: current, certificate: locked } = await this.transitions.lockJob(manager, job.id);
      if (current.status !== 'Running') return null;
      // Serial, version and job completion commit together or not at all (ADR 0045): a dropped
      // or failed result leaves no serial the revocation service would answer `good` for.
      const stored = await this.versions.store(
        manager,
        locked,
        job,
        { signed, csrPem, keyAlgorithm: keyAlgorithmName(csr.publicKey) ?? csr.publicKey.description },
        context,
      );
      const { versionId, issued: parsed } = stored;
      const done = await this.transitions.transitionJob(
        manager,
        current,
        stored.certificate,
        { kind: 'complete' },
        context,
        { versionId },
      );
      await this.outbox.audit(
        manager,
        lifecycleAudit(AuditAction.JobCsrSubmitted, 'job', job.id, context, {
          agent_id: request.agent_id,
          certificate_id: job.certificate_id,
          type: job.type,
          version_id: versionId,
          serial_number: parsed.serialNumber,
          fingerprint_sha256: parsed.fingerprintSha256,
          key_algorithm: csr.publicKey.description,
          certificate_status: done.certificate.status,
        }),
      );
      return { job: done.job, versionId, parsed };
    });
    if (!completed) {
      await this.auditDropped(job, request.agent_id, context);
      throw new CertlaneError(
        ErrorCode.JobInvalidTransition,
        `job ${job.id} was cancelled while its certificate was issued; the result was dropped`,
        { status: 'Cancelled' },
      );
    }
    const { job: done, versionId, parsed } = completed;
    return {
      status: 'accepted',
      job_id: done.id,
      job_status: done.status,
      certificate_id: done.certificate_id,
      version_id: versionId,
      serial_number: parsed.serialNumber,
      fingerprint_sha256: parsed.fingerprintSha256,
      not_after: parsed.notAfter.toISOString(),
    };
  }

  /**
   * The AwaitingCSR job a CSR answers: the oldest of the named certificate's, or without
   * certificate_id the one whose certificate's common name the CSR carries. 404 when there is
   * none (an unknown certificate or one that is not the agent's is certificate_not_found).
   */
  private async awaitingJob(request: SubmitAgentCsrRequest, commonName: string | undefined): Promise<string> {
    const agentId = request.agent_id;
    if (request.certificate_id !== undefined) {
      if (!(await this.repository.certificateIsAgents(agentId, request.certificate_id))) {
        throw certificateNotFound(request.certificate_id);
      }
      const [job] = await this.repository.awaitingCsr(agentId, request.certificate_id);
      if (!job) {
        throw new CertlaneError(
          ErrorCode.JobNotFound,
          `no job of certificate ${JSON.stringify(request.certificate_id)} awaits a CSR`,
        );
      }
      return job.id;
    }
    const awaiting = await this.repository.awaitingCsr(agentId);
    const cn = commonName?.toLowerCase();
    const matching = awaiting.filter((job) => job.common_name.toLowerCase() === cn);
    const certificates = new Set(matching.map((job) => job.certificate_id));
    if (certificates.size > 1) {
      throw CertlaneError.validation([
        {
          field: 'certificate_id',
          message:
            `certificate_id is required: ${certificates.size} certificates with the common name ` +
            `${JSON.stringify(commonName)} await a CSR`,
        },
      ]);
    }
    if (matching.length === 0) {
      throw new CertlaneError(
        ErrorCode.JobNotFound,
        `no job of agent ${JSON.stringify(agentId)} awaits a CSR for the common name ` +
          `${JSON.stringify(commonName ?? '')}; name the certificate with certificate_id`,
      );
    }
    return matching[0].id;
  }

  /** The issuer refused or failed: the Running job fails (and the certificate as the machine says). */
  private async failIssuance(job: JobRow, error: unknown, context?: RequestContext): Promise<void> {
    const message = error instanceof Error ? error.message : String(error);
    this.logger.warn(
      { job_id: job.id, certificate_id: job.certificate_id, err: error },
      'issuance of an agent CSR failed',
    );
    await this.unitOfWork.run(async (manager) => {
      const { job: current, certificate } = await this.transitions.lockJob(manager, job.id);
      if (current.status === 'Running') {
        await this.transitions.transitionJob(manager, current, certificate, { kind: 'fail' }, context, {
          error: message,
        });
      }
      await this.outbox.audit(manager, {
        ...lifecycleAudit(AuditAction.JobCsrSubmitted, 'job', job.id, context, {
          agent_id: current.agent_id,
          certificate_id: job.certificate_id,
          type: job.type,
          error: message,
        }),
        outcome: 'failure',
      });
    });
  }

  private async auditDropped(job: JobRow, agentId: string, context?: RequestContext): Promise<void> {
    await this.unitOfWork.run((manager) =>
      this.outbox.audit(manager, {
        ...lifecycleAudit(AuditAction.JobCsrSubmitted, 'job', job.id, context, {
          agent_id: agentId,
          certificate_id: job.certificate_id,
          type: job.type,
          error: 'the job was cancelled while its certificate was issued',
        }),
        outcome: 'failure',
      }),
    );
  }

  /** The issued material of the agent's certificate: the current version, or the one named. */
  async certificate(request: AgentCertificateRequest): Promise<AgentCertificateDto> {
    const id = request.certificate_id;
    const version = await this.agentsVersion(request.agent_id, id, request.version_id);
    const leaf = withTrailingNewline(version.cert_pem);
    return {
      certificate_id: id,
      version_id: version.id,
      certificate_pem: leaf + version.chain_pem,
      leaf_pem: leaf,
      chain_pem: version.chain_pem,
      serial_number: version.serial_number,
      fingerprint_sha256: version.fingerprint_sha256,
      not_before: version.not_before.toISOString(),
      not_after: version.not_after.toISOString(),
    };
  }

  /**
   * The version of the agent's certificate: the one named, or the current one. 404
   * certificate_not_found when the certificate is unknown or not the agent's (`ownership`, see
   * certificateIsAgents), and
   * certificate_version_not_found when there is no such version (or none yet).
   */
  private async agentsVersion(
    agentId: string,
    id: string,
    requested?: string,
    ownership: { openJobsOnly?: boolean } = {},
  ): Promise<VersionRow> {
    if (!(await this.repository.certificateIsAgents(agentId, id, ownership))) throw certificateNotFound(id);
    const certificate = (await this.certificates.find(id)) as CertificateRow;
    const versionId = requested ?? certificate.current_version_id;
    const version = versionId ? await this.certificates.version(versionId) : null;
    if (!version || version.certificate_id !== id) {
      throw new CertlaneError(
        ErrorCode.CertificateVersionNotFound,
        requested
          ? `certificate ${JSON.stringify(id)} has no version ${JSON.stringify(requested)}`
          : `certificate ${JSON.stringify(id)} has no version yet`,
      );
    }
    return version;
  }

  /**
   * Releases a server-generated key (SERVICE_KEYGEN_MODE=server, ADR 0033) to the agent, wrapped:
   * the sealed key is opened here, encrypted at once as a JWE to the agent's ephemeral P-256 key,
   * and only the JWE leaves the service (the bus and the gateway never carry the plaintext). The
   * audit record (certificate, version, agent, the recipient key's thumbprint; never the key) is
   * committed before the answer: no release goes unrecorded. 404 certificate_key_not_found when
   * the service holds no key for the version (agent key generation: the key is on the agent).
   */
  async releaseKey(request: AgentKeyRequest, context?: RequestContext): Promise<AgentKeyDto> {
    const id = request.certificate_id;
    const version = await this.agentsVersion(request.agent_id, id, request.version_id, {
      openJobsOnly: true,
    });
    const sealed = await this.certificates.sealedKey(version.id);
    if (!sealed) {
      throw new CertlaneError(
        ErrorCode.CertificateKeyNotFound,
        `the service holds no private key for certificate ${JSON.stringify(id)} version ` +
          `${JSON.stringify(version.id)}: its key was generated on the agent (agent key generation)`,
        { certificate_id: id, version_id: version.id },
      );
    }
    const pkcs8 = this.sealer.open(version.id, sealed);
    let jwe: string;
    try {
      jwe = await wrapPrivateKey(toPem(PemLabel.privateKey, pkcs8), request.recipient_public_jwk, {
        certificateId: id,
        versionId: version.id,
      });
    } finally {
      pkcs8.fill(0);
    }
    await this.unitOfWork.run((manager) =>
      this.outbox.audit(
        manager,
        lifecycleAudit(AuditAction.CertificateKeyReleased, 'certificate', id, context, {
          agent_id: request.agent_id,
          version_id: version.id,
          serial_number: version.serial_number,
          key_algorithm: version.key_algorithm,
          wrapping: `${KEY_RELEASE_ALG}/${KEY_RELEASE_ENC}`,
          recipient_key_thumbprint: jwkThumbprint(request.recipient_public_jwk),
        }),
      ),
    );
    return { certificate_id: id, version_id: version.id, private_key_jwe: jwe };
  }

  /**
   * An agent's status report: the job machine's `report` event, after the agent rules of
   * libs/issuance/domain (an Issuance/Renewal job advances through its CSR; the agent may only
   * fail it while it awaits one). Failed keeps the error in last_error; a completed deployment
   * keeps the version it shipped (version_id, set when the job was created). A deployment's
   * `verification` (ADR 0032) is checked against that version's fingerprint and kept in
   * job_verifications in the same transaction.
   */
  async report(request: ReportAgentJobStatusRequest, context?: RequestContext): Promise<JobDto> {
    const row = await this.unitOfWork.run(async (manager) => {
      const { job, certificate } = await this.transitions.lockJob(manager, request.job_id);
      if (!belongsTo(request.agent_id, job, certificate)) throw jobNotFound(request.job_id);
      // A deployment deployment-dispatch runs agentless (ADR 0031), or that another agent started,
      // is not this agent's to report.
      const claimRefusal = agentClaimRefusal(
        await this.jobs.claimedBy(manager, job.id),
        job.status,
        request.agent_id,
      );
      if (claimRefusal) {
        throw new CertlaneError(ErrorCode.JobInvalidTransition, `job ${job.id} ${claimRefusal}`, {
          status: job.status,
        });
      }
      const refusal = agentReportRefusal(job.type, job.status, request.status);
      if (refusal) throw new CertlaneError(ErrorCode.JobInvalidTransition, refusal, { status: job.status });
      const verification = request.verification
        ? await this.verificationRecord(manager, request.verification, request.status, job, certificate)
        : undefined;
      const error =
        request.status === 'Failed' ? request.error?.trim() || 'the agent reported a failure' : undefined;
      const versionId =
        job.type === 'Deployment' && request.status === 'Completed' && !job.version_id
          ? (certificate.current_version_id ?? undefined)
          : undefined;
      const changed = await this.transitions.transitionJob(
        manager,
        job,
        certificate,
        { kind: 'report', status: request.status },
        context,
        { error, versionId },
      );
      if (job.status === 'Pending' && changed.job.status === 'Running') {
        await this.jobs.markClaimed(manager, job.id, agentClaimant(request.agent_id));
      }
      if (verification) {
        await this.jobs.addVerification(manager, {
          job_id: job.id,
          certificate_id: job.certificate_id,
          ...verification,
        });
      }
      await this.outbox.audit(
        manager,
        lifecycleAudit(AuditAction.JobStatusReported, 'job', job.id, context, {
          agent_id: request.agent_id,
          certificate_id: job.certificate_id,
          type: job.type,
          from: job.status,
          to: changed.job.status,
          ...(error ? { error } : {}),
          ...(changed.job.version_id ? { version_id: changed.job.version_id } : {}),
          certificate_status: changed.certificate.status,
          ...(verification
            ? { verification: { endpoint: verification.endpoint, result: verification.result } }
            : {}),
        }),
      );
      return changed.job;
    });
    return jobDto(row);
  }

  /** The agent's verification as the row to keep, or 400 when it contradicts the job (domain rules). */
  private async verificationRecord(
    manager: EntityManager,
    claim: AgentVerificationReport,
    reported: AgentReportStatus,
    job: JobRow,
    certificate: CertificateRow,
  ): Promise<AgentVerificationRecord> {
    const versionId = job.version_id ?? certificate.current_version_id;
    const version = versionId ? await this.certificates.version(versionId, manager) : null;
    if (!version && job.type === 'Deployment') {
      throw CertlaneError.validation([
        { field: 'verification', message: `job ${job.id} names no certificate version to verify against` },
      ]);
    }
    const check = agentVerificationRecord(claim, {
      type: job.type,
      reported,
      expectedFingerprintSha256: version?.fingerprint_sha256 ?? '',
    });
    if (!check.ok) throw CertlaneError.validation([{ field: check.field, message: check.message }]);
    return check.record;
  }
}
