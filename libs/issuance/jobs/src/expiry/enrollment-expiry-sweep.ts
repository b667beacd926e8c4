import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AuditAction, SYSTEM_ACTOR } from '@certlane/contracts';
import { UnitOfWork } from '@certlane/issuance-data-access';
import { ApprovalGate } from '@certlane/issuance-governance';
import { approvalAudit } from '@certlane/issuance-inventory';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  CertlaneLogger,
  LOGGER,
  outboxToken,
  PeriodicTask,
  ServiceOutbox,
} from '@certlane/platform';

export const ENROLLMENT_EXPIRY_BATCH_SIZE = 500;
/** A pass stops after this many batches even if more are due (the next pass goes on). */
const MAX_BATCHES_PER_PASS = 100;

/**
 * Rejects the external enrollments (ADR 0065, amended) nobody decided before their deadline, so
 * the approvals list stops showing them as pending. Every replica runs it at start and every
 * SERVICE_EXPIRY_SWEEP_INTERVAL: each batch is one transaction that rejects its approvals (rows
 * another replica's batch or a decision holds are skipped, so none is rejected twice), publishes
 * `issuance.v1.approval.decided` and writes `approval.rejected` for each, as an approver's
 * rejection does. The protocols go on answering those enrollments as expired.
 */
@Injectable()
export class EnrollmentExpirySweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly loop: PeriodicTask;

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly gate: ApprovalGate,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {
    this.loop = new PeriodicTask(() => this.sweepLogged(), config.expiry.sweepIntervalMs);
  }

  onApplicationBootstrap(): void {
    this.loop.start({ runNow: true });
  }

  onApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  private async sweepLogged(): Promise<void> {
    try {
      const rejected = await this.sweep();
      if (rejected.length > 0)
        this.logger.info({ rejected: rejected.length }, 'expired enrollment approvals rejected');
    } catch (error) {
      this.logger.warn({ err: error }, 'enrollment approval expiry sweep failed; will retry');
    }
  }

  /** One pass: the ids of the approvals this replica rejected. */
  async sweep(now: Date = new Date(), batchSize = ENROLLMENT_EXPIRY_BATCH_SIZE): Promise<string[]> {
    const rejected: string[] = [];
    for (let batch = 0; batch < MAX_BATCHES_PER_PASS; batch++) {
      const ids = await this.batch(now, batchSize);
      rejected.push(...ids);
      if (ids.length < batchSize) break;
    }
    return rejected;
  }

  private batch(now: Date, batchSize: number): Promise<string[]> {
    return this.unitOfWork.run(async (manager) => {
      const rows = await this.gate.rejectExpiredEnrollments(manager, now, batchSize);
      await this.outbox.auditMany(
        manager,
        rows.map((row) =>
          approvalAudit(
            AuditAction.ApprovalRejected,
            row,
            { actor_id: SYSTEM_ACTOR, request_id: `enrollment-expiry:${row.id}` },
            { reason: row.reason, expired_at: row.enrollment_expires_at!.toISOString() },
          ),
        ),
      );
      return rows.map((row) => row.id);
    });
  }
}
