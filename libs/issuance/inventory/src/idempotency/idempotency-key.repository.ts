import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { IdempotencyKeyRef } from '@certlane/contracts';
import { DataSource, EntityManager } from 'typeorm';

export interface IdempotencyKeyRow {
  fingerprint: string;
  status: number | null;
  body: unknown;
  /** Whether the attempt holding it (status null) still has its lease. */
  held: boolean;
}

const KEY = 'actor_id = $1 AND route = $2 AND key = $3';
const keyValues = (ref: IdempotencyKeyRef) => [ref.actor_id, ref.route, ref.key];

/** Rows of `issuance.idempotency_keys` (migration 0014). */
@Injectable()
export class IdempotencyKeyRepository {
  constructor(@InjectDataSource('issuance') readonly dataSource: DataSource) {}

  /** Inserts a held row unless the key has one (an expired row is deleted first); true when inserted. */
  async insertHeld(
    manager: EntityManager,
    ref: IdempotencyKeyRef,
    fingerprint: string,
    leaseMs: number,
    ttlMs: number,
  ): Promise<boolean> {
    await manager.query(`DELETE FROM idempotency_keys WHERE ${KEY} AND expires_at <= now()`, keyValues(ref));
    const rows: unknown[] = await manager.query(
      `INSERT INTO idempotency_keys (actor_id, route, key, fingerprint, held_until, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5), now() + make_interval(secs => $6))
       ON CONFLICT DO NOTHING RETURNING 1`,
      [...keyValues(ref), fingerprint, leaseMs / 1000, ttlMs / 1000],
    );
    return rows.length > 0;
  }

  async lock(manager: EntityManager, ref: IdempotencyKeyRef): Promise<IdempotencyKeyRow | null> {
    const rows: IdempotencyKeyRow[] = await manager.query(
      `SELECT fingerprint, status, body, held_until > now() AS held FROM idempotency_keys WHERE ${KEY} FOR UPDATE`,
      keyValues(ref),
    );
    return rows[0] ?? null;
  }

  async hold(manager: EntityManager, ref: IdempotencyKeyRef, leaseMs: number): Promise<void> {
    await manager.query(
      `UPDATE idempotency_keys SET held_until = now() + make_interval(secs => $4) WHERE ${KEY}`,
      [...keyValues(ref), leaseMs / 1000],
    );
  }

  /** Stores the answer of the attempt that holds the key; false when there is none (nothing held). */
  async finish(ref: IdempotencyKeyRef, status: number, body: unknown): Promise<boolean> {
    const [, affected]: [unknown[], number] = await this.dataSource.query(
      `UPDATE idempotency_keys SET status = $4, body = $5::jsonb, held_until = NULL
        WHERE ${KEY} AND status IS NULL`,
      [...keyValues(ref), status, body === undefined ? null : JSON.stringify(body)],
    );
    return affected > 0;
  }

  /** Lets go of a key whose attempt has no answer to keep (it failed): a retry runs again. */
  async abandon(ref: IdempotencyKeyRef): Promise<boolean> {
    const [, affected]: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM idempotency_keys WHERE ${KEY} AND status IS NULL`,
      keyValues(ref),
    );
    return affected > 0;
  }

  /** Deletes up to `limit` expired rows; returns how many. */
  async pruneExpired(limit: number): Promise<number> {
    const [, affected]: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM idempotency_keys WHERE ctid IN
         (SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT $1)`,
      [limit],
    );
    return affected;
  }
}
