import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { CaCertificateDto, ResolvedPage, RevocationReason } from '@certlane/contracts';
import { PreparedQuery } from '@certlane/platform';
import { DataSource, EntityManager } from 'typeorm';
import type { IssuerRow } from '../issuers/issuer.repository';

export interface CaRow {
  id: string;
  issuer_id: string | null;
  parent_id: string | null;
  subject: string;
  certificate_pem: string | null;
  csr_pem: string | null;
  external_chain_pem: string | null;
  key_provider: string;
  private_key_sealed: string;
  status: 'active' | 'retired' | 'pending' | 'revoked';
  serial_hex: string | null;
  not_before: Date | null;
  not_after: Date | null;
  created_at: Date;
  retired_at: Date | null;
  revoked_at: Date | null;
  revocation_reason: RevocationReason | null;
  /** Joined: whether the issuer issues under it. */
  issuing?: boolean;
}

const COLUMNS = `c.id, c.issuer_id, c.parent_id, c.subject, c.certificate_pem, c.csr_pem, c.external_chain_pem,
  c.key_provider, c.private_key_sealed, c.status, c.serial_hex, c.not_before, c.not_after, c.created_at,
  c.retired_at, c.revoked_at, c.revocation_reason, (i.issuing_ca_id IS NOT NULL AND i.issuing_ca_id = c.id) AS issuing`;
const FROM = 'ca_certificates c LEFT JOIN issuers i ON i.id = c.issuer_id';

/** The columns of CaRow, prefixed `ca_`, for reading a CA next to another row. */
const CA_PREFIXED = [
  'id',
  'issuer_id',
  'parent_id',
  'subject',
  'certificate_pem',
  'csr_pem',
  'external_chain_pem',
  'key_provider',
  'private_key_sealed',
  'status',
  'serial_hex',
  'not_before',
  'not_after',
  'created_at',
  'retired_at',
  'revoked_at',
  'revocation_reason',
] as const;

/**
 * The active, currently valid cross-certificates (ADR 0070) of the issuing CA `c` and of its
 * parents, as `[id, depth]` pairs (depth 0: the issuing CA, 1: its parent...) in chain order, or
 * null. The parents are walked only while some cross-certificate is active at all.
 */
const ACTIVE_CROSS_CERTIFICATES_ON_CHAIN = `CASE WHEN EXISTS (SELECT 1 FROM ca_cross_certificates WHERE retired_at IS NULL)
     THEN (WITH RECURSIVE chain (id, parent_id, depth) AS (
             SELECT c.id, c.parent_id, 0
             UNION ALL
             SELECT p.id, p.parent_id, chain.depth + 1 FROM ca_certificates p JOIN chain ON p.id = chain.parent_id
              WHERE chain.depth < 10)
           SELECT json_agg(json_build_array(x.id, chain.depth) ORDER BY chain.depth, x.created_at, x.id)
             FROM chain JOIN ca_cross_certificates x ON x.ca_id = chain.id
            WHERE x.retired_at IS NULL AND x.not_before <= now() AND x.not_after > now())
   END`;

/**
 * The issuer, its issuing CA and the cross-certificates on that CA's chain in one statement
 * (issuance reads them for every certificate). The CA row has the columns `find` returns;
 * `issuing` says whether the CA belongs to this issuer.
 */
const ISSUER_WITH_ISSUING_CA = new PreparedQuery<Record<string, unknown>>(
  'issuance_issuer_with_issuing_ca',
  `SELECT i.id, i.name, i.kind, i.config_sealed, i.config_public, i.issuing_ca_id, i.created_at, i.updated_at,
     ${CA_PREFIXED.map((column) => `c.${column} AS ca_${column}`).join(', ')}, c.issuer_id = i.id AS ca_issuing,
     ${ACTIVE_CROSS_CERTIFICATES_ON_CHAIN} AS ca_cross_certificates
   FROM issuers i LEFT JOIN ca_certificates c ON c.id = i.issuing_ca_id WHERE i.id = $1`,
);

/** An active cross-certificate of the issuing CA (depth 0) or of its parent at `depth`. */
export interface CrossCertificateOnChain {
  id: string;
  depth: number;
}

/** What issuance reads of an issuer in one statement (see ISSUER_WITH_ISSUING_CA). */
export interface IssuerWithIssuingCa {
  issuer: IssuerRow;
  ca: CaRow | null;
  /** The active cross-certificates on the issuing CA's chain, in chain order; usually none. */
  crossCertificates: CrossCertificateOnChain[];
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function caDto(row: CaRow): CaCertificateDto {
  return {
    id: row.id,
    issuer_id: row.issuer_id,
    parent_id: row.parent_id,
    subject: row.subject,
    status: row.status,
    issuing: row.issuing === true,
    certificate_pem: row.certificate_pem,
    csr_pem: row.status === 'pending' ? row.csr_pem : null,
    external_chain_pem: row.external_chain_pem,
    serial_hex: row.serial_hex,
    not_before: iso(row.not_before),
    not_after: iso(row.not_after),
    created_at: row.created_at.toISOString(),
    retired_at: iso(row.retired_at),
    revoked_at: iso(row.revoked_at),
    revocation_reason: row.revocation_reason,
  };
}

export type NewCaRow = Pick<
  CaRow,
  | 'id'
  | 'issuer_id'
  | 'parent_id'
  | 'subject'
  | 'certificate_pem'
  | 'csr_pem'
  | 'private_key_sealed'
  | 'status'
  | 'serial_hex'
  | 'not_before'
  | 'not_after'
>;

export interface IssuedRow {
  issuer_id: string;
  serial_hex: string;
  ca_id: string;
  fingerprint_sha256: string;
  subject: string;
  not_before: Date;
  not_after: Date;
  /** 'ca': a child CA's certificate, recorded under its parent (ADR 0075). */
  purpose: 'leaf' | 'ocsp_responder' | 'ca';
}

/** Storage of local CA certificates, what they issued and what was revoked (raw SQL). */
@Injectable()
export class CaRepository {
  constructor(@InjectDataSource('issuance') readonly dataSource: DataSource) {}

  async list(page: ResolvedPage, issuerId?: string): Promise<{ rows: CaRow[]; total: number }> {
    const where = issuerId ? 'WHERE c.issuer_id = $3' : '';
    const params: unknown[] = [page.per_page, page.offset, ...(issuerId ? [issuerId] : [])];
    const rows: CaRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM ${FROM} ${where} ORDER BY c.created_at, c.id LIMIT $1 OFFSET $2`,
      params,
    );
    const [{ total }] = await this.dataSource.query(
      `SELECT count(*)::int AS total FROM ca_certificates c ${issuerId ? 'WHERE c.issuer_id = $1' : ''}`,
      issuerId ? [issuerId] : [],
    );
    return { rows, total };
  }

  /** Every installed CA certificate of an issuer (active ones first), to tell who issued an import. */
  installedCertificates(): Promise<{ issuer_id: string; certificate_pem: string }[]> {
    return this.dataSource.query(
      `SELECT issuer_id, certificate_pem FROM ca_certificates
        WHERE certificate_pem IS NOT NULL AND issuer_id IS NOT NULL
        ORDER BY status = 'active' DESC, created_at, id`,
    );
  }

  async find(
    id: string,
    manager: EntityManager = this.dataSource.manager,
    lock = false,
  ): Promise<CaRow | null> {
    const rows: CaRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM ${FROM} WHERE c.id = $1${lock ? ' FOR UPDATE OF c' : ''}`,
      [id],
    );
    return rows[0] ?? null;
  }

  /**
   * The issuer, its issuing CA (null without one) and the active cross-certificates on that CA's
   * chain, in one round trip; null for an unknown issuer.
   */
  async findIssuerWithIssuingCa(issuerId: string): Promise<IssuerWithIssuingCa | null> {
    const [row] = await ISSUER_WITH_ISSUING_CA.rows(this.dataSource, [issuerId]);
    if (!row) return null;
    const issuer = {
      id: row.id,
      name: row.name,
      kind: row.kind,
      config_sealed: row.config_sealed,
      config_public: row.config_public,
      issuing_ca_id: row.issuing_ca_id,
      created_at: row.created_at,
      updated_at: row.updated_at,
    } as IssuerRow;
    if (row.ca_id === null || row.ca_id === undefined) return { issuer, ca: null, crossCertificates: [] };
    const ca: Record<string, unknown> = { issuing: row.ca_issuing };
    for (const column of CA_PREFIXED) ca[column] = row[`ca_${column}`];
    const pairs = (row.ca_cross_certificates ?? []) as [string, number][];
    return {
      issuer,
      ca: ca as unknown as CaRow,
      crossCertificates: pairs.map(([id, depth]) => ({ id, depth })),
    };
  }

  /** The CAs with a certificate whose subject reads `subject` (to find who issued a certificate). */
  withCertificateOfSubject(manager: EntityManager, subject: string): Promise<CaRow[]> {
    return manager.query(
      `SELECT ${COLUMNS} FROM ${FROM} WHERE c.subject = $1 AND c.certificate_pem IS NOT NULL ORDER BY c.created_at, c.id`,
      [subject],
    );
  }

  /** The CA's parents, issuer first, up to a root or an external parent (at most 10). */
  async parents(ca: CaRow, manager: EntityManager = this.dataSource.manager): Promise<CaRow[]> {
    const out: CaRow[] = [];
    let current = ca;
    while (current.parent_id && out.length < 10) {
      const parent = await this.find(current.parent_id, manager);
      if (!parent) break;
      out.push(parent);
      current = parent;
    }
    return out;
  }

  async insert(manager: EntityManager, row: NewCaRow): Promise<void> {
    await manager.query(
      `INSERT INTO ca_certificates (id, issuer_id, parent_id, subject, certificate_pem, csr_pem, private_key_sealed,
         status, serial_hex, not_before, not_after)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        row.id,
        row.issuer_id,
        row.parent_id,
        row.subject,
        row.certificate_pem,
        row.csr_pem,
        row.private_key_sealed,
        row.status,
        row.serial_hex,
        row.not_before,
        row.not_after,
      ],
    );
  }

  async install(
    manager: EntityManager,
    id: string,
    fields: {
      certificate_pem: string;
      external_chain_pem: string | null;
      serial_hex: string;
      subject: string;
      not_before: Date;
      not_after: Date;
    },
  ): Promise<void> {
    await manager.query(
      `UPDATE ca_certificates SET certificate_pem = $2, external_chain_pem = $3, serial_hex = $4, subject = $5,
         not_before = $6, not_after = $7, status = 'active' WHERE id = $1`,
      [
        id,
        fields.certificate_pem,
        fields.external_chain_pem,
        fields.serial_hex,
        fields.subject,
        fields.not_before,
        fields.not_after,
      ],
    );
  }

  async retire(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`UPDATE ca_certificates SET status = 'retired', retired_at = now() WHERE id = $1`, [
      id,
    ]);
  }

  /**
   * Marks a CA revoked (also stops its issuing, as retiring does); the caller records the serial's
   * revocation in the same transaction.
   */
  async markRevoked(
    manager: EntityManager,
    id: string,
    reason: RevocationReason,
    revokedAt: Date,
  ): Promise<void> {
    await manager.query(
      `UPDATE ca_certificates SET status = 'revoked', revoked_at = $3, revocation_reason = $2,
         retired_at = COALESCE(retired_at, $3) WHERE id = $1`,
      [id, reason, revokedAt],
    );
  }

  /**
   * The CAs below `id` (children, their children...), and those of them that were active now
   * retired: a CA whose parent is revoked issues nothing any relying party accepts (ADR 0075).
   */
  async retireDescendants(
    manager: EntityManager,
    id: string,
  ): Promise<{ id: string; certificate_pem: string | null; retired: boolean }[]> {
    return manager.query(
      `WITH RECURSIVE below (id) AS (
         SELECT id FROM ca_certificates WHERE parent_id = $1
         UNION
         SELECT c.id FROM ca_certificates c JOIN below b ON c.parent_id = b.id),
       retired AS (
         UPDATE ca_certificates SET status = 'retired', retired_at = now()
          WHERE id IN (SELECT id FROM below) AND status = 'active' RETURNING id)
       SELECT c.id, c.certificate_pem, (r.id IS NOT NULL) AS retired
         FROM ca_certificates c JOIN below b ON b.id = c.id LEFT JOIN retired r ON r.id = c.id
        ORDER BY c.id`,
      [id],
    );
  }

  async recordIssued(manager: EntityManager, row: IssuedRow): Promise<void> {
    await manager.query(
      `INSERT INTO issued_certificates (issuer_id, serial_hex, ca_id, fingerprint_sha256, subject, not_before, not_after, purpose)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        row.issuer_id,
        row.serial_hex,
        row.ca_id,
        row.fingerprint_sha256,
        row.subject,
        row.not_before,
        row.not_after,
        row.purpose,
      ],
    );
  }

  /** Several issued certificates in one statement (the issuance group commit). */
  async recordIssuedMany(manager: EntityManager, rows: IssuedRow[]): Promise<void> {
    if (rows.length === 0) return;
    const column = <K extends keyof IssuedRow>(key: K) => rows.map((row) => row[key]);
    await manager.query(
      `INSERT INTO issued_certificates (issuer_id, serial_hex, ca_id, fingerprint_sha256, subject, not_before, not_after, purpose)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::timestamptz[], $8::text[])`,
      [
        column('issuer_id'),
        column('serial_hex'),
        // A remote CA's certificates (a script issuer's) have no CA of this service's tree.
        column('ca_id').map((caId) => caId || null),
        column('fingerprint_sha256'),
        column('subject'),
        column('not_before'),
        column('not_after'),
        column('purpose'),
      ],
    );
  }

  /**
   * Releases the certificateHold of a serial (removeFromCRL, ADR 0037): its hold revocation is
   * deleted, so a later revocation is recorded afresh. False when the serial is not on hold (not
   * revoked, or revoked for another reason, which is final).
   */
  async releaseHold(manager: EntityManager, issuerId: string, serialHex: string): Promise<boolean> {
    // TypeORM answers a DELETE with [rows, affected].
    const [, deleted]: [unknown[], number] = await manager.query(
      `DELETE FROM revocations WHERE issuer_id = $1 AND serial_hex = $2 AND reason = 'certificateHold'`,
      [issuerId, serialHex],
    );
    return deleted > 0;
  }

  /** Which of the serials the issuer issued (one statement). */
  /**
   * Which of `serials` the issuer issued as leaves or OCSP responders: a CA's serial is revoked
   * only through its CA (`LocalCaService.revokeCa`, ADR 0075), never as a certificate.
   */
  async issuedSerials(manager: EntityManager, issuerId: string, serials: string[]): Promise<Set<string>> {
    if (serials.length === 0) return new Set();
    const rows: { serial_hex: string }[] = await manager.query(
      `SELECT serial_hex FROM issued_certificates
        WHERE issuer_id = $1 AND serial_hex = ANY($2::text[]) AND purpose <> 'ca'`,
      [issuerId, serials],
    );
    return new Set(rows.map((row) => row.serial_hex));
  }

  /**
   * Many revocations of one issuer in one statement (bulk revoke). Returns those that are new, and
   * held serials now revoked for a final reason (their reason replaced, their date kept); serials
   * already revoked otherwise keep their first reason and date and are not returned.
   */
  async revokeMany(
    manager: EntityManager,
    issuerId: string,
    serials: string[],
    reason: RevocationReason,
  ): Promise<{ serial_hex: string; revoked_at: Date }[]> {
    if (serials.length === 0) return [];
    // A certificateHold is the one revocation that can change (RFC 5280 5.3.1): a final reason
    // replaces it, keeping its date (the certificate has not been valid since); any other is kept.
    return manager.query(
      `INSERT INTO revocations AS r (issuer_id, serial_hex, reason)
       SELECT $1, s, $3 FROM unnest($2::text[]) AS s
       ON CONFLICT (issuer_id, serial_hex) DO UPDATE SET reason = EXCLUDED.reason
         WHERE r.reason = 'certificateHold' AND EXCLUDED.reason <> 'certificateHold'
       RETURNING serial_hex, revoked_at`,
      [issuerId, serials, reason],
    );
  }

  /** The stored revocations of these serials of the issuer (their first reason and date). */
  async revocations(
    manager: EntityManager,
    issuerId: string,
    serials: string[],
  ): Promise<{ serial_hex: string; reason: RevocationReason; revoked_at: Date }[]> {
    if (serials.length === 0) return [];
    return manager.query(
      'SELECT serial_hex, reason, revoked_at FROM revocations WHERE issuer_id = $1 AND serial_hex = ANY($2::text[])',
      [issuerId, serials],
    );
  }

  /** Serialises the baseline seed across replicas; true when it had already been applied. */
  async claimSeed(manager: EntityManager, name: string): Promise<boolean> {
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`certlane:issuance:seed:${name}`]);
    const rows = await manager.query(
      'INSERT INTO baseline_seeds (name) VALUES ($1) ON CONFLICT DO NOTHING RETURNING name',
      [name],
    );
    return rows.length === 0;
  }
}
