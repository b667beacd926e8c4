import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { parseRevocationReason, RevokedEntry } from '@certlane/pki';
import { DataSource, EntityManager } from 'typeorm';
import { RevocationReason } from '@certlane/contracts';

export interface CrlState {
  issuer_id: string;
  /** The CA that signed it. */
  ca_id: string;
  crl_number: bigint;
  this_update: Date;
  next_update: Date;
  der: Buffer;
}

interface CrlRow {
  issuer_id: string;
  ca_id: string;
  crl_number: string;
  this_update: Date;
  next_update: Date;
  der: Buffer;
}

/** One CA of an issuer. */
export interface CaKey {
  issuer_id: string;
  ca_id: string;
}

const toState = (row: CrlRow): CrlState => ({ ...row, crl_number: BigInt(row.crl_number) });

/**
 * The CRL published per CA of an issuer (table crl_state, ADR 0023). A row with ca_id '' is from
 * before per-CA CRLs: never served, only a floor for the numbers of the issuer's CRLs.
 */
@Injectable()
export class CrlRepository {
  constructor(@InjectDataSource('revocation') private readonly dataSource: DataSource) {}

  async find(issuerId: string, caId: string): Promise<CrlState | undefined> {
    const rows: CrlRow[] = await this.dataSource.query(
      `SELECT issuer_id, ca_id, crl_number, this_update, next_update, der FROM crl_state
       WHERE issuer_id = $1 AND ca_id = $2`,
      [issuerId, caId],
    );
    return rows[0] && toState(rows[0]);
  }

  /**
   * Runs `build` holding a per-issuer transaction lock, so replicas build one CRL at a time and
   * numbers never repeat; `build` gets the previous number (of this CA, or of the issuer's CRL from
   * before per-CA CRLs when higher) and the CA's entries, and returns what to store.
   */
  rebuild(
    issuerId: string,
    caId: string,
    build: (
      previous: bigint | undefined,
      entries: RevokedEntry[],
    ) => Promise<Omit<CrlState, 'issuer_id' | 'ca_id'>>,
  ): Promise<CrlState> {
    return this.dataSource.transaction(async (manager: EntityManager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext('revocation.crl:' || $1))`, [issuerId]);
      const previous: { n: string | null }[] = await manager.query(
        `SELECT max(crl_number) AS n FROM crl_state WHERE issuer_id = $1 AND ca_id IN ($2, '')`,
        [issuerId, caId],
      );
      const rows: { serial_hex: string; reason: RevocationReason; revoked_at: Date }[] = await manager.query(
        `SELECT serial_hex, reason, revoked_at FROM revocations
         WHERE issuer_id = $1 AND ca_id = $2 AND reason <> 'removeFromCRL' ORDER BY serial_hex`,
        [issuerId, caId],
      );
      const entries = rows.map((r) => ({
        serialNumber: r.serial_hex,
        revokedAt: r.revoked_at,
        reason: parseRevocationReason(r.reason),
      }));
      const built = await build(previous[0]?.n ? BigInt(previous[0].n) : undefined, entries);
      await manager.query(
        `INSERT INTO crl_state (issuer_id, ca_id, crl_number, this_update, next_update, der, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, now())
         ON CONFLICT (issuer_id, ca_id) DO UPDATE SET crl_number = EXCLUDED.crl_number,
           this_update = EXCLUDED.this_update, next_update = EXCLUDED.next_update, der = EXCLUDED.der,
           updated_at = now()`,
        [issuerId, caId, built.crl_number.toString(), built.this_update, built.next_update, built.der],
      );
      return { issuer_id: issuerId, ca_id: caId, ...built };
    });
  }

  /** The CRL number of one issuer (its highest CA), or the highest of all (0 before any CRL). */
  async highestNumber(issuerId?: string): Promise<bigint> {
    const rows: { n: string | null }[] = await this.dataSource.query(
      issuerId === undefined
        ? 'SELECT max(crl_number) AS n FROM crl_state'
        : 'SELECT max(crl_number) AS n FROM crl_state WHERE issuer_id = $1',
      issuerId === undefined ? [] : [issuerId],
    );
    return BigInt(rows[0]?.n ?? 0);
  }

  /** Every per-CA CRL whose nextUpdate is still ahead. */
  async valid(now: Date): Promise<CrlState[]> {
    const rows: CrlRow[] = await this.dataSource.query(
      `SELECT issuer_id, ca_id, crl_number, this_update, next_update, der FROM crl_state
       WHERE ca_id <> '' AND next_update > $1`,
      [now],
    );
    return rows.map(toState);
  }

  /**
   * CAs whose CRL is due: its nextUpdate within `refreshBeforeMs`, older than a revocation of
   * the CA, or none yet while the CA has revocations.
   */
  async due(now: Date, refreshBeforeMs: number): Promise<CaKey[]> {
    return this.dataSource.query(
      `SELECT issuer_id, ca_id FROM crl_state
       WHERE ca_id <> '' AND next_update - make_interval(secs => $2::double precision / 1000) <= $1
       UNION
       SELECT r.issuer_id, r.ca_id FROM revocations r
       JOIN crl_state c ON c.issuer_id = r.issuer_id AND c.ca_id = r.ca_id
       GROUP BY r.issuer_id, r.ca_id, c.this_update HAVING max(r.recorded_at) >= c.this_update
       UNION
       SELECT DISTINCT r.issuer_id, r.ca_id FROM revocations r
       WHERE r.ca_id <> '' AND NOT EXISTS
         (SELECT 1 FROM crl_state c WHERE c.issuer_id = r.issuer_id AND c.ca_id = r.ca_id)`,
      [now, refreshBeforeMs],
    );
  }
}
