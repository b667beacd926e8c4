import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  AuditAction,
  BULK_ENQUEUED_JOBS_MAX,
  BULK_ERRORS_MAX,
  BulkCriteria,
  BulkItemError,
  BulkReassignRequest,
  BulkReassignResult,
  BulkRenewRequest,
  BulkRenewResult,
  BulkRevokeRequest,
  BulkRevokeResult,
  CertificateStatusChanged,
  CertlaneError,
  ErrorCode,
  EventOf,
  EventSubject,
  JobCreated,
  RequestContext,
  RevocationReason,
  SYSTEM_ACTOR,
} from '@certlane/contracts';
import {
  BulkSelection,
  bulkSelection,
  CappedList,
  chunks,
  initialRenewalJobStatus,
  matchesSelection,
  planBulkReassign,
  planBulkRenew,
  planBulkRevoke,
  releasesHold,
  StatusChange,
  unmatchedIdErrors,
  versionJobRefusal,
} from '@certlane/issuance-domain';
import { CERTLANE_CONFIG, CertlaneConfig, outboxToken, ServiceOutbox } from '@certlane/platform';
import { EntityManager } from 'typeorm';
import { approvalDto, ApprovalRepository } from '@certlane/issuance-governance';
import { IssuerCapabilities, IssuerRevocation } from '@certlane/issuance-ca';
import { JobRepository, ServerIssuanceRunner, StatusTransitions } from '@certlane/issuance-inventory';
import { BulkCertificateRow, BulkRepository } from './bulk.repository';
import { auditRecord, UnitOfWork } from '@certlane/issuance-data-access';

/** Certificates per transaction: big enough to amortise round trips, small enough to keep locks short. */
export const BULK_BATCH_SIZE = 2000;

/** The first ids of an ids-mode call kept in its audit record (the count is always kept). */
const AUDITED_IDS_MAX = 100;

/** What one batch did; summed into the call's result. */
interface BatchOutcome {
  matched: number;
  changed: number;
  skipped: number;
  errors: BulkItemError[];
  jobs: { certificate_id: string; job_id: string }[];
  /** Revoked here only: their issuer's kind has no connector, so no CA was told (ADR 0046). */
  recordedOnly: BulkItemError[];
}

type BatchWork = (manager: EntityManager, rows: BulkCertificateRow[]) => Promise<BatchOutcome>;

type Narrowing = Pick<BulkSelection, 'filters' | 'source'>;

const empty = (): BatchOutcome => ({
  matched: 0,
  changed: 0,
  skipped: 0,
  errors: [],
  jobs: [],
  recordedOnly: [],
});

/** The running totals of one call, in bounded memory (lists capped, totals exact). */
class Totals {
  matched = 0;
  changed = 0;
  skipped = 0;
  readonly errors = new CappedList<BulkItemError>(BULK_ERRORS_MAX);
  readonly jobs = new CappedList<{ certificate_id: string; job_id: string }>(BULK_ENQUEUED_JOBS_MAX);
  readonly recordedOnly = new CappedList<BulkItemError>(BULK_ERRORS_MAX);

  add(outcome: BatchOutcome): void {
    this.matched += outcome.matched;
    this.changed += outcome.changed;
    this.skipped += outcome.skipped;
    this.errors.push(...outcome.errors);
    this.jobs.push(...outcome.jobs);
    this.recordedOnly.push(...outcome.recordedOnly);
  }

  errorFields() {
    return {
      total_failed: this.errors.total,
      errors: this.errors.items,
      errors_truncated: this.errors.truncated,
    };
  }

  counts() {
    return {
      total_matched: this.matched,
      total_changed: this.changed,
      total_skipped: this.skipped,
      total_failed: this.errors.total,
    };
  }
}

const safeMessage = (error: unknown): string =>
  error instanceof CertlaneError ? error.message : 'internal error';

/**
 * Bulk revoke, renew and reassign (spec 4.2, 4.3; ADR 0024): criteria or ids select the
 * certificates, which are walked in batches of BULK_BATCH_SIZE, each batch one transaction of
 * set-based statements with its events in the outbox. A batch that fails is retried certificate by
 * certificate, so one bad certificate lands in `errors` and the others go through. One audit
 * record per call, written when the call ends.
 */
@Injectable()
export class BulkService {
  private readonly logger = new Logger(BulkService.name);

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly repository: BulkRepository,
    private readonly issuerRevocation: IssuerRevocation,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    private readonly approvals: ApprovalRepository,
    private readonly serverIssuance: ServerIssuanceRunner,
    private readonly jobs: JobRepository,
    private readonly transitions: StatusTransitions,
    private readonly issuers: IssuerCapabilities,
  ) {}

  // ---- the three operations ----

  revoke(request: BulkRevokeRequest, context?: RequestContext): Promise<BulkRevokeResult> {
    return this.runRevoke(request, undefined, AuditAction.CertificatesBulkRevoked, context);
  }

  /** The EST-only variant: source is forced to EST, so a body with only `source` is too broad. */
  estRevoke(request: BulkRevokeRequest, context?: RequestContext): Promise<BulkRevokeResult> {
    return this.runRevoke(request, 'EST', AuditAction.EstBulkRevoke, context);
  }

  private async runRevoke(
    request: BulkRevokeRequest,
    forcedSource: 'EST' | undefined,
    action: string,
    context?: RequestContext,
  ): Promise<BulkRevokeResult> {
    const reason = request.reason ?? 'unspecified';
    if (releasesHold(reason)) {
      // A release is per certificate and all-or-nothing at its issuers (ADR 0037).
      throw CertlaneError.validation([
        {
          field: 'reason',
          message:
            'removeFromCRL releases a certificateHold one certificate at a time (POST /api/v1/certificates/{id}/revoke); bulk revoke does not take it',
        },
      ]);
    }
    const selection = select(request, forcedSource);
    const totals = await this.walk(selection, async (manager, rows) => {
      const plan = planBulkRevoke(rows);
      const candidates = plan.change.map((change) => change.id);
      const versions = await this.repository.versionsToRevoke(manager, candidates);
      const { failures, recordedOnly } = await this.revokeAtIssuers(manager, versions, reason, context);
      const failed = new Set(failures.map((failure) => failure.certificate_id));
      const changes = plan.change.filter((change) => !failed.has(change.id));
      if (changes.length > 0) {
        const at = await this.repository.markRevoked(
          manager,
          changes.map((change) => change.id),
          reason,
        );
        await this.statusEvents(manager, changes, at, context);
        await this.withdrawVersionJobs(
          manager,
          changes.map((change) => change.id),
          context,
        );
      }
      return {
        matched: rows.length,
        changed: changes.length,
        skipped: plan.skipped.length,
        errors: failures,
        jobs: [],
        recordedOnly: recordedOnly.filter((item) => !failed.has(item.certificate_id)),
      };
    });
    const { total_changed, ...counts } = totals.counts();
    const result: BulkRevokeResult = {
      total_matched: counts.total_matched,
      total_revoked: total_changed,
      total_skipped: counts.total_skipped,
      total_recorded_only: totals.recordedOnly.total,
      recorded_only: totals.recordedOnly.items,
      recorded_only_truncated: totals.recordedOnly.truncated,
      ...totals.errorFields(),
    };
    await this.auditCall(action, selection, context, {
      reason,
      ...counts,
      total_revoked: total_changed,
      errors_truncated: result.errors_truncated,
      total_recorded_only: result.total_recorded_only,
      recorded_only_ids: result.recorded_only.slice(0, AUDITED_IDS_MAX).map((item) => item.certificate_id),
    });
    return result;
  }

  /**
   * The open issuance and renewal jobs of certificates this batch revoked are cancelled, as a
   * single revoke does (ADR 0024 amendment): a late CSR or approval would otherwise store a new
   * version and move a Revoked certificate back to Active. The certificates are locked (the
   * batch's lock), their jobs are locked after them; the machine leaves them Revoked.
   */
  private async withdrawVersionJobs(
    manager: EntityManager,
    certificateIds: string[],
    context?: RequestContext,
  ): Promise<void> {
    for (const job of await this.jobs.openVersionJobs(manager, certificateIds, [])) {
      const certificate = await this.transitions.lockCertificate(manager, job.certificate_id);
      await this.transitions.cancelJob(manager, job, certificate, context, 'certificate revoked');
    }
  }

  async renew(request: BulkRenewRequest, context?: RequestContext): Promise<BulkRenewResult> {
    const selection = select(request);
    const status = initialRenewalJobStatus(this.config.keygenMode);
    const requestedBy = context?.actor_id || SYSTEM_ACTOR;
    const totals = await this.walk(selection, async (manager, rows) => {
      const plan = planBulkRenew(rows);
      // A certificate without an issuer, of an issuer whose kind has no connector, or in agent key
      // generation without an agent, fails as a single renew would (ADR 0042, 0043, 0046).
      const byId = new Map(rows.map((row) => [row.id, row]));
      const unconnected = await this.issuers.withoutConnector(
        manager,
        plan.change.map((change) => byId.get(change.id)?.issuer_id ?? null),
      );
      const errors: BulkItemError[] = [];
      const changes = plan.change.filter((change) => {
        const row = byId.get(change.id);
        const refusal = row
          ? versionJobRefusal(
              'Renewal',
              this.config.keygenMode,
              row,
              (row.issuer_id && unconnected.get(row.issuer_id)) || null,
            )
          : null;
        if (refusal) errors.push({ certificate_id: change.id, message: refusal.message });
        return !refusal;
      });
      if (changes.length === 0) {
        return { ...empty(), matched: rows.length, skipped: plan.skipped.length, errors };
      }
      const ids = changes.map((change) => change.id);
      const at = await this.repository.markRenewalInProgress(manager, ids);
      const created = await this.repository.createRenewalJobs(
        manager,
        ids.map((certificate_id) => ({ id: `job-${randomUUID()}`, certificate_id })),
        status,
        requestedBy,
      );
      await this.statusEvents(manager, changes, at, context);
      // Jobs of certificates whose profile requires approval wait for it (ADR 0025).
      const held = created.filter((job) => job.status === 'AwaitingApproval');
      const opened = await this.approvals.insertIssuanceMany(manager, held, requestedBy);
      await this.events(manager, 'issuance.v1.approval.requested', opened.map(approvalDto), context);
      await this.events(
        manager,
        'issuance.v1.job.created',
        created.map((job): JobCreated => ({
          job_id: job.id,
          type: 'Renewal',
          status: job.status,
          certificate_id: job.certificate_id,
          agent_id: job.agent_id,
          target_id: '',
        })),
        context,
      );
      await this.supersedeOlderJobs(manager, created, context);
      return {
        matched: rows.length,
        changed: created.length,
        skipped: plan.skipped.length,
        errors,
        jobs: created.map((job) => ({ certificate_id: job.certificate_id, job_id: job.id })),
        recordedOnly: [],
      };
    });
    const { total_changed, ...counts } = totals.counts();
    // Server key generation: the queued renewals start now, not at the sweep's next interval.
    if (total_changed > 0) void this.serverIssuance.sweep();
    const result: BulkRenewResult = {
      total_matched: counts.total_matched,
      enqueued_jobs: totals.jobs.items,
      total_enqueued: total_changed,
      enqueued_jobs_truncated: totals.jobs.truncated,
      total_skipped: counts.total_skipped,
      ...totals.errorFields(),
    };
    await this.auditCall(AuditAction.CertificatesBulkRenewed, selection, context, {
      job_status: status,
      ...counts,
      total_enqueued: total_changed,
      errors_truncated: result.errors_truncated,
    });
    return result;
  }

  async reassign(request: BulkReassignRequest, context?: RequestContext): Promise<BulkReassignResult> {
    const ids = [...new Set(request.certificate_ids)].sort();
    if (ids.length === 0) {
      throw new CertlaneError(
        ErrorCode.BulkCriteriaEmpty,
        'certificate_ids must name at least one certificate',
      );
    }
    // Unknown references are refused before anything changes.
    if (!(await this.repository.ownerExists(request.owner_id))) {
      throw new CertlaneError(
        ErrorCode.ReferenceInvalid,
        `owner_id: owner ${JSON.stringify(request.owner_id)} does not exist`,
        { field: 'owner_id' },
      );
    }
    if (request.team_id !== undefined && !(await this.repository.teamExists(request.team_id))) {
      throw new CertlaneError(
        ErrorCode.ReferenceInvalid,
        `team_id: team ${JSON.stringify(request.team_id)} does not exist`,
        { field: 'team_id' },
      );
    }
    const selection: BulkSelection = { mode: 'ids', ids, filters: {}, source: '' };
    const totals = await this.walk(selection, async (manager, rows) => {
      const plan = planBulkReassign(rows, request.owner_id, request.team_id);
      if (plan.change.length > 0) {
        await this.repository.reassign(manager, plan.change, request.owner_id, request.team_id);
      }
      return { ...empty(), matched: rows.length, changed: plan.change.length, skipped: plan.skipped.length };
    });
    const { total_changed, ...counts } = totals.counts();
    const result: BulkReassignResult = {
      total_matched: counts.total_matched,
      total_reassigned: total_changed,
      total_skipped: counts.total_skipped,
      ...totals.errorFields(),
    };
    await this.auditCall(AuditAction.CertificatesBulkReassigned, selection, context, {
      owner_id: request.owner_id,
      ...(request.team_id !== undefined ? { team_id: request.team_id } : {}),
      ...counts,
      total_reassigned: total_changed,
      errors_truncated: result.errors_truncated,
    });
    return result;
  }

  /**
   * The issuer step of a batch, in its transaction: a certificate's serials are revoked all or
   * none, with no audit record per serial (the call writes one). Returns the certificates that
   * could not be revoked, with why: an unknown issuer, or a serial the local CA never issued.
   */
  /**
   * Revokes the versions' serials at their issuers: the certificates refused there, and those whose
   * revocation no CA was told of (their issuer's kind has no connector: recorded here only).
   */
  private async revokeAtIssuers(
    manager: EntityManager,
    versions: { issuer_id: string; serial_hex: string; certificate_id: string; certificate_pem?: string }[],
    reason: RevocationReason,
    context?: RequestContext,
  ): Promise<{ failures: BulkItemError[]; recordedOnly: BulkItemError[] }> {
    const results = await this.issuerRevocation.revokeSerials(manager, versions, reason, context, {
      group: (item) => item.certificate_id as string,
    });
    const failures = new Map<string, string>();
    const recordedOnly = new Map<string, string>();
    for (const result of results) {
      const id = result.item.certificate_id as string;
      if (!result.ok) failures.set(id, result.error.message);
      else if (!result.caNotified)
        recordedOnly.set(
          id,
          result.caFailure === undefined
            ? `issuer ${result.item.issuer_id} cannot revoke at its CA: recorded in Certlane only; revoke ` +
                'the certificate at that CA too'
            : `the CA was not told (${result.caFailure}): recorded in Certlane only; revoke the certificate ` +
                'at that CA too',
        );
    }
    const list = (map: Map<string, string>) =>
      [...map].map(([certificate_id, message]) => ({ certificate_id, message }));
    return { failures: list(failures), recordedOnly: list(recordedOnly) };
  }

  /**
   * A new renewal supersedes its certificate's older open issuance and renewal jobs, as a single
   * renew does (ADR 0042): they are cancelled through the job machine, so a Pending certificate's
   * issuance job does not issue a second version beside the renewal.
   */
  private async supersedeOlderJobs(
    manager: EntityManager,
    created: { id: string; certificate_id: string }[],
    context?: RequestContext,
  ): Promise<void> {
    const newJobOf = new Map(created.map((job) => [job.certificate_id, job.id]));
    const older = await this.jobs.openVersionJobs(
      manager,
      [...newJobOf.keys()],
      created.map((job) => job.id),
    );
    for (const job of older) {
      const certificate = await this.transitions.lockCertificate(manager, job.certificate_id);
      await this.transitions.cancelJob(
        manager,
        job,
        certificate,
        context,
        `superseded by ${newJobOf.get(job.certificate_id)}`,
      );
    }
  }

  // ---- the batch walk ----

  /**
   * Runs `work` over the selection batch by batch, each in its own transaction, and sums what the
   * batches did. Ids mode reports ids that are absent, or excluded by the filters or `source`, as errors.
   */
  private async walk(selection: BulkSelection, work: BatchWork): Promise<Totals> {
    const totals = new Totals();
    if (selection.mode === 'ids') {
      for (const batch of chunks(selection.ids, BULK_BATCH_SIZE)) {
        totals.add(await this.batch(batch, work, selection));
      }
      return totals;
    }
    let after = '';
    for (;;) {
      let ids: string[] = [];
      let outcome: BatchOutcome;
      try {
        outcome = await this.unitOfWork.run(async (manager) => {
          const rows = await this.repository.criteriaBatch(manager, selection, after, BULK_BATCH_SIZE, true);
          ids = rows.map((row) => row.id);
          return rows.length === 0 ? empty() : work(manager, rows);
        });
      } catch (error) {
        // Which ids the failed batch covered, read again without locks; then one by one.
        this.logger.warn(
          `bulk batch after ${JSON.stringify(after)} failed, retrying one by one: ${String(error)}`,
        );
        ids = (
          await this.repository.criteriaBatch(
            this.repository.reader,
            selection,
            after,
            BULK_BATCH_SIZE,
            false,
          )
        ).map((row) => row.id);
        outcome = await this.oneByOne(ids, work, selection);
      }
      if (ids.length === 0) return totals;
      totals.add(outcome);
      after = ids[ids.length - 1];
      if (ids.length < BULK_BATCH_SIZE) return totals;
    }
  }

  /** One batch of ids in one transaction; retried one by one when it fails. */
  /** One transaction over these ids; `narrowing`: the filters and source given beside them. */
  private async batch(ids: string[], work: BatchWork, narrowing: Narrowing): Promise<BatchOutcome> {
    try {
      // Awaited here, so a failed batch is caught below and retried one by one.
      return await this.unitOfWork.run(async (manager) => {
        const rows = await this.repository.rowsByIds(manager, ids, narrowing.filters);
        const matched = rows.filter((row) => matchesSelection(row, narrowing.source));
        const done = matched.length === 0 ? empty() : await work(manager, matched);
        return { ...done, errors: [...unmatchedIdErrors(ids, rows, narrowing.source), ...done.errors] };
      });
    } catch (error) {
      if (ids.length === 1) {
        return { ...empty(), errors: [{ certificate_id: ids[0], message: safeMessage(error) }] };
      }
      this.logger.warn(`bulk batch of ${ids.length} ids failed, retrying one by one: ${String(error)}`);
      return this.oneByOne(ids, work, narrowing);
    }
  }

  private async oneByOne(ids: string[], work: BatchWork, narrowing: Narrowing): Promise<BatchOutcome> {
    const sum = empty();
    for (const id of ids) {
      const outcome = await this.batch([id], work, narrowing);
      sum.matched += outcome.matched;
      sum.changed += outcome.changed;
      sum.skipped += outcome.skipped;
      sum.errors.push(...outcome.errors);
      sum.jobs.push(...outcome.jobs);
      sum.recordedOnly.push(...outcome.recordedOnly);
    }
    return sum;
  }

  // ---- events and audit ----

  private statusEvents(
    manager: EntityManager,
    changes: StatusChange[],
    at: Date,
    context?: RequestContext,
  ): Promise<unknown> {
    const when = new Date(at).toISOString();
    return this.events(
      manager,
      'issuance.v1.certificate.status-changed',
      changes.map((change): CertificateStatusChanged => ({
        certificate_id: change.id,
        from: change.from,
        to: change.to,
        at: when,
      })),
      context,
    );
  }

  /** Many events of one subject in one statement, in the batch's transaction. */
  private events<E extends EventSubject>(
    manager: EntityManager,
    subject: E,
    data: EventOf<E>[],
    context?: RequestContext,
  ): Promise<unknown> {
    return this.outbox.addMany(manager, subject, data, context?.actor_id);
  }

  /** The call's one audit record: what was asked (criteria, at most AUDITED_IDS_MAX ids) and the totals. */
  private async auditCall(
    action: string,
    selection: BulkSelection,
    context: RequestContext | undefined,
    details: Record<string, unknown>,
  ): Promise<void> {
    const criteria =
      selection.mode === 'ids'
        ? {
            certificate_ids: selection.ids.slice(0, AUDITED_IDS_MAX),
            certificate_ids_count: selection.ids.length,
            ...selection.filters,
            ...(selection.source ? { source: selection.source } : {}),
          }
        : { ...selection.filters, ...(selection.source ? { source: selection.source } : {}) };
    await this.unitOfWork.run((manager) =>
      this.outbox.audit(
        manager,
        auditRecord('cert_lifecycle', 'certificate', action, 'bulk', context, {
          mode: selection.mode,
          criteria,
          ...details,
        }),
      ),
    );
  }
}

/** The selection of a body, or 400 bulk_criteria_empty. */
function select(criteria: BulkCriteria, forcedSource?: 'EST'): BulkSelection {
  const result = bulkSelection(criteria, forcedSource);
  if (!result.ok) throw new CertlaneError(ErrorCode.BulkCriteriaEmpty, result.message);
  return result.selection;
}
