import { Inject, Injectable } from '@nestjs/common';
import { CertificateStatus } from '@certlane/contracts';
import { outboxToken, ServiceOutbox } from '@certlane/platform';
import { EXPIRY_BATCH, RENEWAL_WINDOW_BOUNDS } from './expiry.queries';
import { UnitOfWork } from '@certlane/issuance-data-access';

export const EXPIRY_BATCH_SIZE = 1000;
/** A sweep stops after this many batches even if more are due (the next sweep goes on). */
const MAX_BATCHES_PER_SWEEP = 1000;
const SWEEP_LOCK = 'certlane:issuance:expiry-sweep';

interface Changed {
  id: string;
  from_status: CertificateStatus;
  to_status: CertificateStatus;
}

export interface SweepResult {
  /** False when another replica held the lock (this one did nothing). */
  ran: boolean;
  changed: number;
}

/**
 * Moves certificates by their dates (ADR 0024): each batch is one transaction that takes the
 * sweep's advisory lock (try, not wait: a replica that finds it taken leaves the work to the
 * holder), updates at most EXPIRY_BATCH_SIZE rows in SQL, and writes one
 * `issuance.v1.certificate.status-changed` event per changed certificate to the outbox.
 */
@Injectable()
export class ExpirySweep {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
  ) {}

  async sweep(now: Date = new Date(), batchSize = EXPIRY_BATCH_SIZE): Promise<SweepResult> {
    let changed = 0;
    let ran = false;
    for (let batch = 0; batch < MAX_BATCHES_PER_SWEEP; batch++) {
      const result = await this.batch(now, batchSize);
      if (result === undefined) break;
      ran = true;
      changed += result;
      if (result < batchSize) break;
    }
    return { ran, changed };
  }

  /** One batch; undefined when another replica holds the sweep lock. */
  private batch(now: Date, batchSize: number): Promise<number | undefined> {
    return this.unitOfWork.run(async (manager) => {
      const [{ locked }] = await manager.query('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked', [
        SWEEP_LOCK,
      ]);
      if (!locked) return undefined;
      const [{ widest, narrowest }] = await manager.query(RENEWAL_WINDOW_BOUNDS, [now]);
      const [rows] = (await manager.query(EXPIRY_BATCH, [now, batchSize, widest, narrowest])) as [
        Changed[],
        number,
      ];
      const at = now.toISOString();
      await this.outbox.addMany(
        manager,
        'issuance.v1.certificate.status-changed',
        rows.map((row) => ({ certificate_id: row.id, from: row.from_status, to: row.to_status, at })),
        'system',
      );
      return rows.length;
    });
  }
}
