import { CertificateSource, CertificateStatus } from '@certlane/contracts';

/** What the fixtures need of a Postgres client (pg's Client fits). */
export interface SqlClient {
  query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

export interface CertificateFixture {
  id: string;
  status?: CertificateStatus;
  source?: CertificateSource;
  owner_id?: string | null;
  team_id?: string | null;
  issuer_id?: string;
  profile_id?: string;
  agent_id?: string;
}

/** Teams and owners, straight into the issuance schema (the owner and team routes are elsewhere). */
export async function insertTeam(db: SqlClient, id: string): Promise<void> {
  await db.query('INSERT INTO issuance.teams (id, name) VALUES ($1, $1)', [id]);
}

export async function insertOwner(db: SqlClient, id: string, teamId: string | null = null): Promise<void> {
  await db.query('INSERT INTO issuance.owners (id, name, team_id) VALUES ($1, $1, $2)', [id, teamId]);
}

/** Certificates in one statement; defaults: Active, Unspecified source, iss-local, rp-default. */
export async function insertCertificates(db: SqlClient, certificates: CertificateFixture[]): Promise<void> {
  const column = <K extends keyof CertificateFixture>(key: K, fallback: CertificateFixture[K]) =>
    certificates.map((c) => (c[key] === undefined ? fallback : c[key]));
  await db.query(
    `INSERT INTO issuance.certificates
       (id, name, common_name, status, source, owner_id, team_id, issuer_id, renewal_policy_id, profile_id, agent_id)
     SELECT t.id, t.id, t.id || '.example.com', t.status, t.source, t.owner_id, t.team_id, t.issuer_id,
            'rp-default', t.profile_id, t.agent_id
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
       AS t(id, status, source, owner_id, team_id, issuer_id, profile_id, agent_id)`,
    [
      column('id', ''),
      column('status', 'Active'),
      column('source', ''),
      column('owner_id', null),
      column('team_id', null),
      column('issuer_id', 'iss-local'),
      column('profile_id', ''),
      column('agent_id', ''),
    ],
  );
}

/**
 * `count` certificates `<prefix>-000001`... in one set-based statement (for 100,000-row
 * benches and scale tests), all with the given owner.
 */
export async function seedCertificates(
  db: SqlClient,
  prefix: string,
  count: number,
  fields: { owner_id?: string; status?: CertificateStatus; agent_id?: string } = {},
): Promise<void> {
  await db.query(
    `INSERT INTO issuance.certificates (id, name, common_name, status, owner_id, issuer_id, renewal_policy_id, agent_id)
     SELECT id, id, id || '.example.com', $3, $4, 'iss-local', 'rp-default', $5
     FROM (SELECT $1 || '-' || lpad(n::text, 6, '0') AS id FROM generate_series(1, $2::int) AS n) s`,
    [prefix, count, fields.status ?? 'Active', fields.owner_id ?? null, fields.agent_id ?? ''],
  );
}

/** A version of a certificate carrying an issued certificate's serial (the current one). */
export async function insertVersion(
  db: SqlClient,
  certificateId: string,
  issued: { serial_hex: string; issuer_id?: string; certificate_pem?: string; not_after: string | Date },
  version = 1,
): Promise<string> {
  const id = `ver-${certificateId}-${version}`;
  await db.query(
    `INSERT INTO issuance.certificate_versions
       (id, certificate_id, version, serial_number, fingerprint_sha256, key_algorithm, key_size, issued_at,
        not_before, not_after, cert_pem, issuer_id)
     VALUES ($1, $2, $3, $4, '00', 'ECDSA', 256, now(), now(), $5, $6, $7)`,
    [
      id,
      certificateId,
      version,
      issued.serial_hex,
      issued.not_after,
      issued.certificate_pem ?? '',
      issued.issuer_id ?? 'iss-local',
    ],
  );
  await db.query('UPDATE issuance.certificates SET current_version_id = $2, expires_at = $3 WHERE id = $1', [
    certificateId,
    id,
    issued.not_after,
  ]);
  return id;
}

export async function certificateRow(
  db: SqlClient,
  id: string,
): Promise<{
  status: string;
  owner_id: string | null;
  team_id: string | null;
  revocation_reason: string | null;
  revoked_at: Date | null;
}> {
  const { rows } = await db.query(
    'SELECT status, owner_id, team_id, revocation_reason, revoked_at FROM issuance.certificates WHERE id = $1',
    [id],
  );
  return rows[0] as never;
}
