import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  CertificateDto,
  CertificateSource,
  CertificateStatus,
  CertificateVersionDto,
  CertlaneError,
  ErrorCode,
  KeyAlgorithmName,
  ListCertificatesRequest,
  Page,
  ResolvedPage,
  RevocationReason,
} from '@certlane/contracts';
import { isMissingReference, isUniqueViolation, pgViolation, queryRows, RawJson } from '@certlane/platform';
import {
  certificateListAnchorsQuery,
  certificateListCountedPageQuery,
  certificateListCountQuery,
  certificateListTextPageQuery,
  caTreeQuery,
  SeekPage,
} from '../inventory/certificate-list.query';
import { certificatePageJson, CertificateTextRow } from '../inventory/certificate-page-json';
import {
  ANCHOR_SPACING,
  anchorKey,
  ListAnchorCache,
  seekFromAnchors,
  usesAnchors,
} from '../inventory/list-anchors';
import { DataSource, EntityManager } from 'typeorm';

export interface CertificateRow {
  id: string;
  name: string;
  common_name: string;
  sans: string[];
  environment: string;
  owner_id: string | null;
  team_id: string | null;
  /** Null for an imported certificate no CA Certlane holds has issued (ADR 0043). */
  issuer_id: string | null;
  renewal_policy_id: string;
  profile_id: string;
  agent_id: string;
  source: CertificateSource;
  status: CertificateStatus;
  key_algorithm: KeyAlgorithmName;
  tags: Record<string, string>;
  not_before: Date | null;
  expires_at: Date | null;
  current_version_id: string | null;
  last_renewed_at: Date | null;
  revoked_at: Date | null;
  revocation_reason: RevocationReason | null;
  created_at: Date;
  updated_at: Date;
}

/** What a caller can set on a certificate (create and update). */
export type CertificateWritable = Pick<
  CertificateRow,
  | 'name'
  | 'common_name'
  | 'sans'
  | 'environment'
  | 'owner_id'
  | 'team_id'
  | 'issuer_id'
  | 'renewal_policy_id'
  | 'profile_id'
  | 'agent_id'
  | 'source'
  | 'key_algorithm'
  | 'tags'
>;

export interface VersionRow {
  id: string;
  certificate_id: string;
  version: number;
  serial_number: string;
  fingerprint_sha256: string;
  key_algorithm: string;
  key_size: number;
  issued_at: Date;
  not_before: Date;
  not_after: Date;
  cert_pem: string;
  chain_pem: string;
  csr_pem: string | null;
  issuer_id: string;
  job_id: string | null;
  created_at: Date;
}

export type NewVersion = Omit<VersionRow, 'version' | 'created_at'>;

/** A version as the versions list reads it: with the CA held here that signed it, when one did. */
export type ListedVersionRow = VersionRow & { ca_id: string | null };

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function certificateDto(row: CertificateRow): CertificateDto {
  return {
    id: row.id,
    name: row.name,
    common_name: row.common_name,
    sans: row.sans,
    environment: row.environment,
    owner_id: row.owner_id ?? '',
    team_id: row.team_id ?? '',
    issuer_id: row.issuer_id ?? '',
    renewal_policy_id: row.renewal_policy_id,
    profile_id: row.profile_id,
    agent_id: row.agent_id,
    source: row.source,
    status: row.status,
    key_algorithm: row.key_algorithm,
    tags: row.tags,
    not_before: iso(row.not_before),
    expires_at: iso(row.expires_at),
    current_version_id: row.current_version_id,
    last_renewed_at: iso(row.last_renewed_at),
    revoked_at: iso(row.revoked_at),
    revocation_reason: row.revocation_reason,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function versionDto(row: ListedVersionRow): CertificateVersionDto {
  return {
    id: row.id,
    certificate_id: row.certificate_id,
    version: row.version,
    serial_number: row.serial_number,
    fingerprint_sha256: row.fingerprint_sha256,
    key_algorithm: row.key_algorithm,
    key_size: row.key_size,
    issued_at: row.issued_at.toISOString(),
    not_before: row.not_before.toISOString(),
    not_after: row.not_after.toISOString(),
    cert_pem: row.cert_pem,
    chain_pem: row.chain_pem,
    // Spec 2.3: null in storage, read as empty.
    csr_pem: row.csr_pem ?? '',
    issuer_id: row.issuer_id,
    ca_id: row.ca_id,
    job_id: row.job_id,
    created_at: row.created_at.toISOString(),
  };
}

const CERTIFICATE_COLUMNS = `id, name, common_name, sans, environment, owner_id, team_id, issuer_id,
  renewal_policy_id, profile_id, agent_id, source, status, key_algorithm, tags, not_before, expires_at,
  current_version_id, last_renewed_at, revoked_at, revocation_reason, created_at, updated_at`;

const VERSION_COLUMNS = `id, certificate_id, version, serial_number, fingerprint_sha256, key_algorithm,
  key_size, issued_at, not_before, not_after, cert_pem, chain_pem, csr_pem, issuer_id, job_id, created_at`;

/** The references a certificate holds, in the order they are checked and named. */
export const REFERENCES = [
  { field: 'owner_id', table: 'owners' },
  { field: 'team_id', table: 'teams' },
  { field: 'issuer_id', table: 'issuers' },
  { field: 'renewal_policy_id', table: 'renewal_policies' },
  { field: 'profile_id', table: 'profiles' },
] as const;
export type ReferenceField = (typeof REFERENCES)[number]['field'];

/**
 * The issuer a new version of `certificate` is issued by. An import from a CA Certlane does not
 * hold has none (ADR 0043): it is not silently reissued by the default CA; the job fails until
 * an issuer_id is set.
 */
export function issuerToIssueFrom(certificate: Pick<CertificateRow, 'id' | 'issuer_id'>): string {
  if (certificate.issuer_id !== null) return certificate.issuer_id;
  throw new CertlaneError(
    ErrorCode.IssuerNotFound,
    `certificate ${JSON.stringify(certificate.id)} has no issuer (it was imported); set issuer_id to issue a new version`,
  );
}

export const referenceInvalid = (field: string, value: string) =>
  new CertlaneError(ErrorCode.ReferenceInvalid, `${field} ${JSON.stringify(value)} does not exist`, {
    field,
  });

/** Storage of managed certificates, their versions and sealed keys (raw SQL, schema issuance). */
@Injectable()
export class CertificateRepository {
  constructor(
    @InjectDataSource('issuance') readonly dataSource: DataSource,
    private readonly anchors: ListAnchorCache,
  ) {}

  async find(
    id: string,
    manager: EntityManager = this.dataSource.manager,
    lock = false,
  ): Promise<CertificateRow | null> {
    const rows: CertificateRow[] = await manager.query(
      `SELECT ${CERTIFICATE_COLUMNS} FROM certificates WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** A CA's id and the ids of every CA below it (ADR 0076). */
  async caTree(caId: string): Promise<string[]> {
    const [row] = await queryRows<{ ids: string[] }>(this.dataSource, caTreeQuery(caId));
    return row.ids;
  }

  /**
   * One page in id order and its exact total, as the envelope's JSON text written from text columns
   * (SQL and plans: inventory/certificate-list.query.ts; ADR 0034). A shallow page reads its rows
   * and the total in one statement (a page with no rows counts separately); a deep one seeks from
   * the filter's anchors, counted in the same statement when anchors are at hand, else counted first.
   */
  async list(request: ListCertificatesRequest, page: ResolvedPage): Promise<RawJson<Page<CertificateDto>>> {
    const filter = {
      status: request.status,
      environment: request.environment,
      owner_id: request.owner_id,
      team_id: request.team_id,
      issuer_id: request.issuer_id,
      ca_tree: request.ca_id === undefined ? undefined : await this.caTree(request.ca_id),
    };
    const count = async () =>
      (await queryRows<{ total: number }>(this.dataSource, certificateListCountQuery(filter)))[0].total;
    const countedPage = async (seek: SeekPage) => {
      const rows = await queryRows<CertificateTextRow & { total: number }>(
        this.dataSource,
        certificateListCountedPageQuery(filter, seek),
      );
      return { rows, total: rows.length > 0 ? rows[0].total : await count() };
    };
    let rows: CertificateTextRow[];
    let total: number;
    if (!usesAnchors(page.offset)) {
      ({ rows, total } = await countedPage({ per_page: page.per_page, offset: page.offset }));
    } else {
      const key = anchorKey(filter);
      const buildAnchors = async () => {
        const query = certificateListAnchorsQuery(filter, ANCHOR_SPACING);
        const found = (await this.dataSource.query(query.text, query.values)) as { id: string }[];
        return found.map((row) => row.id);
      };
      const seek = (anchors: readonly string[]) => ({
        per_page: page.per_page,
        ...seekFromAnchors(page.offset, anchors),
      });
      const pageAfter = (anchors: readonly string[]) =>
        queryRows<CertificateTextRow>(this.dataSource, certificateListTextPageQuery(filter, seek(anchors)));
      // With anchors at hand, read the page from them and count in the same statement; they hold
      // when the cache gives the same anchors for the total counted (the usual case).
      const guess = this.anchors.peek(key);
      if (guess) {
        const counted = await countedPage(seek(guess));
        total = counted.total;
        const anchors = await this.anchors.anchors(key, total, buildAnchors);
        rows = anchors === guess ? counted.rows : await pageAfter(anchors);
      } else {
        total = await count();
        rows = await pageAfter(await this.anchors.anchors(key, total, buildAnchors));
      }
    }
    const data = certificatePageJson(rows);
    return new RawJson(`{"data":${data},"total":${total},"page":${page.page},"per_page":${page.per_page}}`);
  }

  /** The first reference among `fields` that names nothing; empty owner/team ids mean none. */
  async checkReferences(
    manager: EntityManager,
    fields: Partial<Record<ReferenceField, string | null>>,
  ): Promise<void> {
    const given = REFERENCES.flatMap(({ field, table }) => {
      const value = fields[field];
      return value === undefined || value === null || value === '' ? [] : [{ field, table, value }];
    });
    if (given.length === 0) return;
    // One round trip for all of them, each row found key-share locked as before (a locking clause
    // is refused directly under UNION, so each sits in its own sub-select).
    const found: { field: string }[] = await manager.query(
      given
        .map(
          ({ field, table }, i) =>
            `SELECT field FROM (SELECT '${field}' AS field FROM ${table} WHERE id = $${i + 1} FOR KEY SHARE) r${i}`,
        )
        .join(' UNION ALL '),
      given.map(({ value }) => value),
    );
    const missing = given.find(({ field }) => !found.some((row) => row.field === field));
    if (missing) throw referenceInvalid(missing.field, missing.value);
  }

  /**
   * `checkReferences` for several certificates at once (the group commit of ADR 0066): every
   * distinct reference once, key-share locked; the first missing one of the first certificate
   * naming it is reported.
   */
  /**
   * Checks (and locks, FOR KEY SHARE) every row the certificates reference, in one statement;
   * answers the renewal window of each renewal policy referenced (read by the same statement, so
   * a batch needs no second read for it).
   */
  async checkReferencesOfAll(
    manager: EntityManager,
    all: readonly Partial<Record<ReferenceField, string | null>>[],
  ): Promise<Map<string, number>> {
    const merged = new Map<string, Partial<Record<ReferenceField, string | null>>>();
    for (const fields of all) {
      for (const { field } of REFERENCES) {
        const value = fields[field];
        if (value === undefined || value === null || value === '') continue;
        merged.set(`${field} ${value}`, { [field]: value });
      }
    }
    const windows = new Map<string, number>();
    if (merged.size === 0) return windows;
    const given = [...merged.values()].flatMap((fields) =>
      REFERENCES.filter(({ field }) => fields[field]).map(({ field, table }) => ({
        field,
        table,
        value: fields[field] as string,
      })),
    );
    const found: { i: number; window_days: number | null }[] = await manager.query(
      given
        .map(({ table }, i) => {
          const window = table === 'renewal_policies' ? 'renewal_window_days' : 'NULL::int';
          return `SELECT i, window_days FROM (SELECT ${i} AS i, ${window} AS window_days FROM ${table} WHERE id = $${i + 1} FOR KEY SHARE) r${i}`;
        })
        .join(' UNION ALL '),
      given.map(({ value }) => value),
    );
    const present = new Set<number>();
    for (const row of found) {
      const i = Number(row.i);
      present.add(i);
      if (row.window_days !== null) windows.set(given[i].value, Number(row.window_days));
    }
    const missing = given.find((_, i) => !present.has(i));
    if (missing) throw referenceInvalid(missing.field, missing.value);
    return windows;
  }

  async renewalWindowDays(manager: EntityManager, policyId: string): Promise<number> {
    const rows: { renewal_window_days: number }[] = await manager.query(
      'SELECT renewal_window_days FROM renewal_policies WHERE id = $1',
      [policyId],
    );
    return rows[0]?.renewal_window_days ?? 30;
  }

  /** The renewal policy's `max_retries` (0 when the policy is gone: one attempt). */
  async renewalMaxRetries(manager: EntityManager, policyId: string): Promise<number> {
    const rows: { max_retries: number }[] = await manager.query(
      'SELECT max_retries FROM renewal_policies WHERE id = $1',
      [policyId],
    );
    return rows[0]?.max_retries ?? 0;
  }

  async insert(manager: EntityManager, id: string, fields: CertificateWritable): Promise<CertificateRow> {
    try {
      const rows: CertificateRow[] = await manager.query(
        `INSERT INTO certificates (id, name, common_name, sans, environment, owner_id, team_id, issuer_id,
           renewal_policy_id, profile_id, agent_id, source, key_algorithm, tags)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
         RETURNING ${CERTIFICATE_COLUMNS}`,
        [id, ...writableValues(fields)],
      );
      this.anchors.invalidate();
      return rows[0];
    } catch (error) {
      throw translateWriteError(error, id);
    }
  }

  /**
   * Certificates that arrive with their first version (ADR 0066): each row inserted with its final
   * status and current version, and the versions, in one statement (the count triggers fire once
   * for all of them; the versions' foreign key is checked at the statement's end).
   */
  async insertWithVersions(
    manager: EntityManager,
    certificates: readonly (CertificateWritable &
      Pick<CertificateRow, 'id' | 'status' | 'not_before' | 'expires_at' | 'current_version_id'>)[],
    versions: readonly Omit<NewVersion, 'certificate_id'>[],
  ): Promise<CertificateRow[]> {
    const rows = certificates.map((c, i) => ({
      ...c,
      owner_id: c.owner_id || null,
      team_id: c.team_id || null,
      version: versions[i],
    }));
    try {
      const inserted: CertificateRow[] = await manager.query(
        `WITH given AS (
           SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(id text, name text, common_name text, sans jsonb,
             environment text, owner_id text, team_id text, issuer_id text, renewal_policy_id text,
             profile_id text, agent_id text, source text, status text, key_algorithm text, tags jsonb,
             not_before timestamptz, expires_at timestamptz, current_version_id text, version jsonb)
         ), certificate AS (
           INSERT INTO certificates (id, name, common_name, sans, environment, owner_id, team_id, issuer_id,
             renewal_policy_id, profile_id, agent_id, source, status, key_algorithm, tags, not_before,
             expires_at, current_version_id)
           SELECT id, name, common_name, ARRAY(SELECT jsonb_array_elements_text(sans)), environment, owner_id,
             team_id, issuer_id, renewal_policy_id, profile_id, agent_id, source, status, key_algorithm, tags,
             not_before, expires_at, current_version_id
           FROM given
           RETURNING ${CERTIFICATE_COLUMNS}
         ), version AS (
           INSERT INTO certificate_versions (id, certificate_id, version, serial_number, fingerprint_sha256,
             key_algorithm, key_size, issued_at, not_before, not_after, cert_pem, chain_pem, csr_pem, issuer_id, job_id)
           SELECT v.id, g.id, 1, v.serial_number, v.fingerprint_sha256, v.key_algorithm, v.key_size, v.issued_at,
             v.not_before, v.not_after, v.cert_pem, v.chain_pem, v.csr_pem, v.issuer_id, v.job_id
           FROM given g, jsonb_to_record(g.version) AS v(id text, serial_number text, fingerprint_sha256 text,
             key_algorithm text, key_size integer, issued_at timestamptz, not_before timestamptz,
             not_after timestamptz, cert_pem text, chain_pem text, csr_pem text, issuer_id text, job_id text)
         )
         SELECT * FROM certificate`,
        [JSON.stringify(rows)],
      );
      this.anchors.invalidate();
      const byId = new Map(inserted.map((row) => [row.id, row]));
      return certificates.map((c) => byId.get(c.id) as CertificateRow);
    } catch (error) {
      throw translateWriteError(error, certificates.length === 1 ? certificates[0].id : 'of the batch');
    }
  }

  /**
   * The certificate's open Issuance or Renewal job that is held for approval or was approved (ADR
   * 0025), if any: what it issues is what the approver saw, so the names must not change under it.
   */
  async approvedOpenVersionJob(manager: EntityManager, certificateId: string): Promise<string | null> {
    const rows: { id: string }[] = await manager.query(
      `SELECT j.id FROM jobs j
        WHERE j.certificate_id = $1 AND j.type IN ('Issuance', 'Renewal')
          AND j.status NOT IN ('Completed', 'Failed', 'Cancelled')
          AND (j.status = 'AwaitingApproval'
               OR EXISTS (SELECT 1 FROM approvals a WHERE a.job_id = j.id AND a.status = 'approved'))
        ORDER BY j.created_at LIMIT 1`,
      [certificateId],
    );
    return rows[0]?.id ?? null;
  }

  async update(manager: EntityManager, id: string, fields: CertificateWritable): Promise<CertificateRow> {
    try {
      // TypeORM answers an UPDATE with [rows, affected].
      const [rows]: [CertificateRow[], number] = await manager.query(
        `UPDATE certificates SET name = $2, common_name = $3, sans = $4, environment = $5, owner_id = $6,
           team_id = $7, issuer_id = $8, renewal_policy_id = $9, profile_id = $10, agent_id = $11,
           source = $12, key_algorithm = $13, tags = $14, updated_at = now()
         WHERE id = $1 RETURNING ${CERTIFICATE_COLUMNS}`,
        [id, ...writableValues(fields)],
      );
      this.anchors.invalidate();
      return rows[0];
    } catch (error) {
      throw translateWriteError(error, id);
    }
  }

  /**
   * Sets the status and, with `revocation`, records a revocation (the first one's date and reason
   * are kept, but a final reason replaces a certificateHold) or, with `reason: null`, clears it (a
   * released certificateHold).
   */
  async setStatus(
    manager: EntityManager,
    id: string,
    status: CertificateStatus,
    revocation?: { reason: RevocationReason | null },
  ): Promise<CertificateRow> {
    const [rows]: [CertificateRow[], number] = await manager.query(
      revocation === undefined
        ? `UPDATE certificates SET status = $2, updated_at = now() WHERE id = $1 RETURNING ${CERTIFICATE_COLUMNS}`
        : revocation.reason === null
          ? `UPDATE certificates SET status = $2, revoked_at = NULL, revocation_reason = NULL, updated_at = now()
             WHERE id = $1 RETURNING ${CERTIFICATE_COLUMNS}`
          : `UPDATE certificates SET status = $2, revoked_at = COALESCE(revoked_at, now()),
               revocation_reason = CASE WHEN revocation_reason = 'certificateHold' THEN $3
                                        ELSE COALESCE(revocation_reason, $3) END,
               updated_at = now()
             WHERE id = $1 RETURNING ${CERTIFICATE_COLUMNS}`,
      revocation?.reason ? [id, status, revocation.reason] : [id, status],
    );
    this.anchors.invalidate();
    return rows[0];
  }

  /** Stores the next version and makes it current (the caller holds the certificate's row lock). */
  /** Stores a version and makes it current; returns it with the certificate row as updated. */
  async addVersion(
    manager: EntityManager,
    version: NewVersion,
  ): Promise<{ version: VersionRow; certificate: CertificateRow }> {
    const rows: VersionRow[] = await manager.query(
      `INSERT INTO certificate_versions (id, certificate_id, version, serial_number, fingerprint_sha256,
         key_algorithm, key_size, issued_at, not_before, not_after, cert_pem, chain_pem, csr_pem, issuer_id, job_id)
       VALUES ($1, $2, (SELECT COALESCE(max(version), 0) + 1 FROM certificate_versions WHERE certificate_id = $2),
         $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
       RETURNING ${VERSION_COLUMNS}`,
      [
        version.id,
        version.certificate_id,
        version.serial_number,
        version.fingerprint_sha256,
        version.key_algorithm,
        version.key_size,
        version.issued_at,
        version.not_before,
        version.not_after,
        version.cert_pem,
        version.chain_pem,
        version.csr_pem,
        version.issuer_id,
        version.job_id,
      ],
    );
    const row = rows[0];
    const [updated]: [CertificateRow[], number] = await manager.query(
      `UPDATE certificates SET current_version_id = $2, not_before = $3, expires_at = $4,
         last_renewed_at = CASE WHEN $5::int > 1 THEN now() ELSE last_renewed_at END,
         -- The current material is new: an earlier revocation concerned the versions before it.
         revoked_at = NULL, revocation_reason = NULL, updated_at = now()
       WHERE id = $1
       RETURNING ${CERTIFICATE_COLUMNS}`,
      [row.certificate_id, row.id, row.not_before, row.not_after, row.version],
    );
    return { version: row, certificate: updated[0] };
  }

  async addKey(
    manager: EntityManager,
    versionId: string,
    certificateId: string,
    sealed: string,
  ): Promise<void> {
    await manager.query(
      'INSERT INTO certificate_keys (version_id, certificate_id, private_key_sealed) VALUES ($1, $2, $3)',
      [versionId, certificateId, sealed],
    );
  }

  /** The sealed server-generated key of a version (SERVICE_KEYGEN_MODE=server), or null when none is held. */
  async sealedKey(versionId: string): Promise<string | null> {
    const rows: { private_key_sealed: string }[] = await this.dataSource.query(
      'SELECT private_key_sealed FROM certificate_keys WHERE version_id = $1',
      [versionId],
    );
    return rows[0]?.private_key_sealed ?? null;
  }

  async version(id: string, manager: EntityManager = this.dataSource.manager): Promise<VersionRow | null> {
    const rows: VersionRow[] = await manager.query(
      `SELECT ${VERSION_COLUMNS} FROM certificate_versions WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  async listVersions(
    certificateId: string,
    page: ResolvedPage,
  ): Promise<{ rows: ListedVersionRow[]; total: number }> {
    const [rows, [{ total }]] = await Promise.all([
      this.dataSource.query(
        `SELECT ${VERSION_COLUMNS},
           (SELECT ic.ca_id FROM issued_certificates ic
             WHERE ic.issuer_id = v.issuer_id AND ic.serial_hex = v.serial_number AND ic.purpose = 'leaf') AS ca_id
         FROM certificate_versions v WHERE certificate_id = $1
         ORDER BY version DESC LIMIT $2 OFFSET $3`,
        [certificateId, page.per_page, page.offset],
      ) as Promise<ListedVersionRow[]>,
      this.dataSource.query(
        'SELECT count(*)::int AS total FROM certificate_versions WHERE certificate_id = $1',
        [certificateId],
      ) as Promise<{ total: number }[]>,
    ]);
    return { rows, total };
  }

  /**
   * The managed certificate whose current version has this serial (and, when given, this issuer
   * and SHA-256: a revoked serial names its issuer, a renewed certificate is known by its hash);
   * null when none has. By the serial index.
   */
  async currentVersionHolder(
    manager: EntityManager,
    version: { serialNumber: string; issuerId?: string; fingerprintSha256?: string },
  ): Promise<{ id: string; version_id: string } | null> {
    const rows: { id: string; version_id: string }[] = await manager.query(
      `SELECT c.id, v.id AS version_id FROM certificate_versions v
         JOIN certificates c ON c.id = v.certificate_id AND c.current_version_id = v.id
        WHERE v.serial_number = $1 AND ($2::text IS NULL OR v.issuer_id = $2)
          AND ($3::text IS NULL OR v.fingerprint_sha256 = $3)`,
      [version.serialNumber, version.issuerId ?? null, version.fingerprintSha256 ?? null],
    );
    return rows[0] ?? null;
  }

  /**
   * What a revocation (or a hold's release) must reach at the issuers: the versions still inside
   * their validity and the current version even when it has expired (an Expired certificate
   * revoked for keyCompromise must show as revoked in the CRL and OCSP, RFC 5280 3.3; ADR 0024).
   * Older expired versions, already replaced, are left alone.
   */
  async versionsToRevoke(manager: EntityManager, certificateId: string): Promise<VersionRow[]> {
    return manager.query(
      // A version with no issuer (an import, ADR 0043) has nobody to tell of its revocation.
      `SELECT ${VERSION_COLUMNS} FROM certificate_versions
        WHERE certificate_id = $1 AND issuer_id <> ''
          AND (not_after > now() OR id = (SELECT current_version_id FROM certificates WHERE id = $1))
        ORDER BY version`,
      [certificateId],
    );
  }
}

function writableValues(fields: CertificateWritable): unknown[] {
  return [
    fields.name,
    fields.common_name,
    fields.sans,
    fields.environment,
    fields.owner_id || null,
    fields.team_id || null,
    fields.issuer_id,
    fields.renewal_policy_id,
    fields.profile_id,
    fields.agent_id,
    fields.source,
    fields.key_algorithm,
    JSON.stringify(fields.tags),
  ];
}

const FOREIGN_KEY_FIELDS: Record<string, ReferenceField> = {
  certificates_owner_id_fkey: 'owner_id',
  certificates_team_id_fkey: 'team_id',
  certificates_issuer_id_fkey: 'issuer_id',
  certificates_renewal_policy_id_fkey: 'renewal_policy_id',
  certificates_profile_fkey: 'profile_id',
};

/** A taken id is 409; a reference deleted between the check and the write is still a 400. */
function translateWriteError(error: unknown, id: string): unknown {
  if (isUniqueViolation(error, ['certificates_pkey'])) {
    return new CertlaneError(ErrorCode.CertificateExists, `certificate ${JSON.stringify(id)} already exists`);
  }
  const constraint = pgViolation(error)?.constraint;
  const field = constraint ? FOREIGN_KEY_FIELDS[constraint] : undefined;
  if (field && isMissingReference(error, [constraint as string])) {
    return new CertlaneError(ErrorCode.ReferenceInvalid, `${field} does not exist`, { field });
  }
  return error;
}
