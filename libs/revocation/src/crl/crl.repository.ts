import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { parseRevocationReason, RevokedEntry } from '@certlane/pki';
import { DataSource, EntityManager } from 'typeorm';
import { RevocationReason } from '@certlane/contracts';

export interface CrlState {
  issuer_id: string;
  crl_number: bigint;
  this_update: Date;
  next_update: Date;
  der: Buffer;
}

interface CrlRow {
  issuer_id: string;
  crl_number: string;
  this_update: Date;
  next_update: Date;
  der: Buffer;
}

const toState = (row: CrlRow): CrlState => ({ ...row, crl_number: BigInt(row.crl_number) });

/** The CRL published per issuer (table crl_state). */
@Injectable()
export class CrlRepository {
  constructor(@InjectDataSource('revocation') private readonly dataSource: DataSource) {}

  async find(issuerId: string): Promise<CrlState | undefined> {
    const rows: CrlRow[] = await this.dataSource.query(
      'SELECT issuer_id, crl_number, this_update, next_update, der FROM crl_state WHERE issuer_id = $1',
      [issuerId],
    );
    return rows[0] && toState(rows[0]);
  }

  /**
   * Runs `build` holding a per-issuer transaction lock, so replicas build one CRL at a time and
   * numbers never repeat; `build` gets the previous number and the entries, and returns what to store.
   */
  rebuild(
    issuerId: string,
    build: (previous: bigint | undefined, entries: RevokedEntry[]) => Promise<Omit<CrlState, 'issuer_id'>>,
  ): Promise<CrlState> {
    return this.dataSource.transaction(async (manager: EntityManager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext('revocation.crl:' || $1))`, [issuerId]);
      const previous: { crl_number: string }[] = await manager.query(
        'SELECT crl_number FROM crl_state WHERE issuer_id = $1',
        [issuerId],
      );
      const rows: { serial_hex: string; reason: RevocationReason; revoked_at: Date }[] = await manager.query(
        `SELECT serial_hex, reason, revoked_at FROM revocations
         WHERE issuer_id = $1 AND reason <> 'removeFromCRL' ORDER BY serial_hex`,
        [issuerId],
      );
      const entries = rows.map((r) => ({
        serialNumber: r.serial_hex,
        revokedAt: r.revoked_at,
        reason: parseRevocationReason(r.reason),
      }));
      const built = await build(previous[0] ? BigInt(previous[0].crl_number) : undefined, entries);
      await manager.query(
        `INSERT INTO crl_state (issuer_id, crl_number, this_update, next_update, der, updated_at)
         VALUES ($1, $2, $3, $4, $5, now())
         ON CONFLICT (issuer_id) DO UPDATE SET crl_number = EXCLUDED.crl_number, this_update = EXCLUDED.this_update,
           next_update = EXCLUDED.next_update, der = EXCLUDED.der, updated_at = now()`,
        [issuerId, built.crl_number.toString(), built.this_update, built.next_update, built.der],
      );
      return { issuer_id: issuerId, ...built };
    });
  }

  /** The CRL number of one issuer, or the highest of all (0 before any CRL). */
  async highestNumber(issuerId?: string): Promise<bigint> {
    const rows: { n: string | null }[] = await this.dataSource.query(
      issuerId === undefined
        ? 'SELECT max(crl_number) AS n FROM crl_state'
        : 'SELECT max(crl_number) AS n FROM crl_state WHERE issuer_id = $1',
      issuerId === undefined ? [] : [issuerId],
    );
    return BigInt(rows[0]?.n ?? 0);
  }

  /** Issuers whose CRL is due: past half its validity, or older than a revocation it lacks. */
  async due(now: Date): Promise<string[]> {
    const rows: { issuer_id: string }[] = await this.dataSource.query(
      `SELECT issuer_id FROM crl_state WHERE this_update + (next_update - this_update) / 2 <= $1
       UNION
       SELECT r.issuer_id FROM revocations r JOIN crl_state c ON c.issuer_id = r.issuer_id
       GROUP BY r.issuer_id, c.this_update HAVING max(r.recorded_at) >= c.this_update
       UNION
       SELECT DISTINCT r.issuer_id FROM revocations r
       WHERE NOT EXISTS (SELECT 1 FROM crl_state c WHERE c.issuer_id = r.issuer_id)`,
      [now],
    );
    return rows.map((r) => r.issuer_id);
  }
}
