import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { sendIntervalMs, slotDecision, SlotDecision } from '@certlane/notifier-domain';
import { SqlExecutor } from '@certlane/platform';
import { DataSource } from 'typeorm';

/** The longest a worker waits for a rate slot while holding its claim; later slots defer. */
export const MAX_SLOT_WAIT_MS = 2000;

/**
 * Per-notifier concurrency and rate limits across replicas (ADR 0062). Concurrency: one of
 * `concurrency` advisory locks keyed by the notifier, taken in the delivery transaction, so a
 * crash or commit frees it. Rate: `notifier_throttle.next_slot`, moved on atomically outside the
 * delivery transaction so every replica sees a reservation at once.
 */
@Injectable()
export class NotifierThrottle {
  constructor(@InjectDataSource('notifier') private readonly dataSource: DataSource) {}

  /**
   * Takes every free one of the notifier's `concurrency` send permits for the transaction, in one
   * statement; answers how many were taken (0 when another replica holds them all).
   */
  async takePermits(executor: SqlExecutor, notifierId: string, concurrency: number): Promise<number> {
    const [row] = (await executor.query(
      `SELECT count(*) FILTER (WHERE pg_try_advisory_xact_lock(hashtext('notifier-permit:' || $1), permit))::int AS taken
         FROM generate_series(0, $2::int - 1) AS permit`,
      [notifierId, concurrency],
    )) as { taken: number }[];
    return row.taken;
  }

  /**
   * Reserves the notifier's next rate slot when it is at most MAX_SLOT_WAIT_MS away (send after
   * the wait), else reserves nothing and answers when to try again.
   */
  async reserveSlot(notifierId: string, perSecond: number, now: Date): Promise<SlotDecision> {
    const interval = sendIntervalMs(perSecond);
    const reserved = (await this.dataSource.query(
      `INSERT INTO notifier_throttle AS t (notifier_id, next_slot)
       VALUES ($1, $2::timestamptz + $3 * interval '1 millisecond')
       ON CONFLICT (notifier_id) DO UPDATE
         SET next_slot = greatest(t.next_slot, $2::timestamptz) + $3 * interval '1 millisecond'
         WHERE t.next_slot <= $2::timestamptz + $4 * interval '1 millisecond'
       RETURNING next_slot - $3 * interval '1 millisecond' AS slot`,
      [notifierId, now, interval, MAX_SLOT_WAIT_MS],
    )) as { slot: Date }[];
    if (reserved[0]) return slotDecision(new Date(reserved[0].slot), now, MAX_SLOT_WAIT_MS);
    return { kind: 'defer', until: await this.nextSlot(notifierId, now) };
  }

  /**
   * For a notifier without a rate limit: a Retry-After hold still applies (one read, no
   * reservation, so unlimited notifiers pay no write per send).
   */
  async heldUntil(notifierId: string, now: Date): Promise<SlotDecision> {
    return slotDecision(await this.nextSlot(notifierId, now), now, MAX_SLOT_WAIT_MS);
  }

  /** A receiver asked to wait (429/503 Retry-After): no replica sends to it before `until`. */
  async holdUntil(notifierId: string, until: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO notifier_throttle AS t (notifier_id, next_slot) VALUES ($1, $2)
       ON CONFLICT (notifier_id) DO UPDATE SET next_slot = greatest(t.next_slot, $2)`,
      [notifierId, until],
    );
  }

  private async nextSlot(notifierId: string, now: Date): Promise<Date> {
    const [row] = (await this.dataSource.query(
      'SELECT next_slot FROM notifier_throttle WHERE notifier_id = $1',
      [notifierId],
    )) as { next_slot: Date }[];
    return row ? new Date(row.next_slot) : now;
  }
}
