import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { parseRevocationReason, RevokedEntry } from '@certlane/pki';
import { DataSource, EntityManager } from 'typeorm';
import { RevocationReason } from '@certlane/contracts';
import { crlIsValid, nextCrlNumber } from './crl-schedule';

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

/** The number of a stored CRL of a CA. */
export interface StoredCrlNumber extends CaKey {
  crl_number: bigint;
}

/** What a build signs: its reserved number, the CA's revision it reflects, and the entries. */
export interface CrlPlan {
  crl_number: bigint;
  revision: bigint;
  entries: RevokedEntry[];
}

/** Either a CRL still valid (nothing to build) or what to build. */
export type CrlPreparation = { current: CrlState } | { plan: CrlPlan };

const optionalBigInt = (value: string | null | undefined): bigint | undefined =>
  value === null || value === undefined ? undefined : BigInt(value);

const toState = (row: CrlRow): CrlState => ({ ...row, crl_number: BigInt(row.crl_number) });

/**
 * The CRL published per CA of an issuer (table crl_state, ADR 0023), the issuer's CRL number
 * sequence (crl_numbers) and what makes a CA's CRL stale (crl_changes, moved by triggers on
 * revocations; migration 0004). A row with ca_id '' is from before per-CA CRLs: never served,
 * only a floor for the numbers of the issuer's CRLs.
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
   * The first step of a build (ADR 0021 amendment): one short transaction under the per-issuer
   * advisory lock, so replicas take turns and nothing waits on the bus while holding it:
   * - with `unlessValidAt`, a CRL of the CA still valid then (another replica built it while this
   *   one waited) is answered as it is, and nothing is reserved;
   * - else the CA's revision (read before the entries, so a change committed meanwhile is at worst
   *   built twice, never missed), its entries, and the next CRL number of the issuer, reserved in
   *   crl_numbers: one sequence for all its CAs, above the last reserved and every stored number.
   * A number reserved for a CRL that is never stored (the signature failed) is skipped, never reused.
   * Numbers are reserved in the order the entries are read, so a higher number never holds older
   * entries.
   */
  prepare(issuerId: string, caId: string, unlessValidAt?: Date): Promise<CrlPreparation> {
    return this.dataSource.transaction(async (manager: EntityManager): Promise<CrlPreparation> => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext('revocation.crl:' || $1))`, [issuerId]);
      if (unlessValidAt) {
        const rows: CrlRow[] = await manager.query(
          `SELECT issuer_id, ca_id, crl_number, this_update, next_update, der FROM crl_state
           WHERE issuer_id = $1 AND ca_id = $2`,
          [issuerId, caId],
        );
        const state = rows[0] && toState(rows[0]);
        if (state && crlIsValid(state, unlessValidAt.getTime())) return { current: state };
      }
      const revisions: { revision: string }[] = await manager.query(
        'SELECT revision FROM crl_changes WHERE issuer_id = $1 AND ca_id = $2',
        [issuerId, caId],
      );
      const rows: { serial_hex: string; reason: RevocationReason; revoked_at: Date }[] = await manager.query(
        `SELECT serial_hex, reason, revoked_at FROM revocations
         WHERE issuer_id = $1 AND ca_id = $2 AND reason <> 'removeFromCRL' ORDER BY serial_hex`,
        [issuerId, caId],
      );
      const previous: { reserved: string | null; stored: string | null }[] = await manager.query(
        `SELECT (SELECT last_number FROM crl_numbers WHERE issuer_id = $1) AS reserved,
                (SELECT max(crl_number) FROM crl_state WHERE issuer_id = $1) AS stored`,
        [issuerId],
      );
      const crlNumber = nextCrlNumber(
        optionalBigInt(previous[0]?.reserved),
        optionalBigInt(previous[0]?.stored),
      );
      await manager.query(
        `INSERT INTO crl_numbers (issuer_id, last_number) VALUES ($1, $2)
         ON CONFLICT (issuer_id) DO UPDATE SET last_number = EXCLUDED.last_number`,
        [issuerId, crlNumber.toString()],
      );
      return {
        plan: {
          crl_number: crlNumber,
          revision: optionalBigInt(revisions[0]?.revision) ?? 0n,
          entries: rows.map((r) => ({
            serialNumber: r.serial_hex,
            revokedAt: r.revoked_at,
            reason: parseRevocationReason(r.reason),
          })),
        },
      };
    });
  }

  /**
   * The last step, after the signature: stores a CRL built from a plan unless a higher number is
   * stored for the CA by now (a later build finished first), in one statement. Returns what is
   * stored afterwards: this CRL, or the newer one.
   */
  async store(
    issuerId: string,
    caId: string,
    built: Omit<CrlState, 'issuer_id' | 'ca_id'>,
    revision: bigint,
  ): Promise<CrlState> {
    const rows: { crl_number: string }[] = await this.dataSource.query(
      `INSERT INTO crl_state AS c (issuer_id, ca_id, crl_number, this_update, next_update, der, built_revision, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now())
       ON CONFLICT (issuer_id, ca_id) DO UPDATE SET crl_number = EXCLUDED.crl_number,
         this_update = EXCLUDED.this_update, next_update = EXCLUDED.next_update, der = EXCLUDED.der,
         built_revision = EXCLUDED.built_revision, updated_at = now()
       WHERE c.crl_number < EXCLUDED.crl_number
       RETURNING crl_number`,
      [
        issuerId,
        caId,
        built.crl_number.toString(),
        built.this_update,
        built.next_update,
        built.der,
        revision.toString(),
      ],
    );
    if (rows.length > 0) return { issuer_id: issuerId, ca_id: caId, ...built };
    const newer = await this.find(issuerId, caId);
    if (!newer) throw new Error(`CRL of ${issuerId}/${caId} neither stored nor found`);
    return newer;
  }

  /**
   * `length` bytes from `offset` of the stored CRL of a CA (a part sent on the bus, review H2), with
   * its number, times and whole size; undefined when the CA has no CRL.
   */
  async part(
    issuerId: string,
    caId: string,
    offset: number,
    length: number,
  ): Promise<{ state: Omit<CrlState, 'der'>; totalBytes: number; bytes: Buffer } | undefined> {
    const rows: (Omit<CrlRow, 'der'> & { total: number; bytes: Buffer })[] = await this.dataSource.query(
      `SELECT issuer_id, ca_id, crl_number, this_update, next_update, octet_length(der) AS total,
              substring(der FROM $3::int + 1 FOR $4::int) AS bytes
       FROM crl_state WHERE issuer_id = $1 AND ca_id = $2`,
      [issuerId, caId, offset, length],
    );
    const row = rows[0];
    if (!row) return undefined;
    const { total, bytes, ...state } = row;
    return { state: { ...state, crl_number: BigInt(state.crl_number) }, totalBytes: Number(total), bytes };
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

  /** The number of every per-CA CRL whose nextUpdate is still ahead (what the files should hold). */
  async validNumbers(now: Date): Promise<StoredCrlNumber[]> {
    const rows: { issuer_id: string; ca_id: string; crl_number: string }[] = await this.dataSource.query(
      `SELECT issuer_id, ca_id, crl_number FROM crl_state WHERE ca_id <> '' AND next_update > $1`,
      [now],
    );
    return rows.map((row) => ({ ...row, crl_number: BigInt(row.crl_number) }));
  }

  /**
   * CAs whose CRL is due: its nextUpdate within `refreshBeforeMs`, or its revocations changed
   * since it was built (a revocation, a final reason replacing a hold, a hold released, a CA
   * resolved: crl_changes.revision moved past crl_state.built_revision, in the changing
   * transaction), or none built yet while its revocations changed. No clock is compared, so a
   * release whose rebuild failed, or whose process stopped before the rebuild, is rebuilt by the
   * next sweep of any replica (review M3, ADR 0037 amendment).
   */
  async due(now: Date, refreshBeforeMs: number): Promise<CaKey[]> {
    return this.dataSource.query(
      `SELECT issuer_id, ca_id FROM crl_state
       WHERE ca_id <> '' AND next_update - make_interval(secs => $2::double precision / 1000) <= $1
       UNION
       SELECT ch.issuer_id, ch.ca_id FROM crl_changes ch
       LEFT JOIN crl_state c ON c.issuer_id = ch.issuer_id AND c.ca_id = ch.ca_id
       WHERE c.crl_number IS NULL OR ch.revision > c.built_revision`,
      [now, refreshBeforeMs],
    );
  }
}
