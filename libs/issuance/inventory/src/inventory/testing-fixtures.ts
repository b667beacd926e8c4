import { randomBytes } from 'node:crypto';
import type { CertificateStatus, JobStatus, JobType } from '@certlane/contracts';
import type { Client } from 'pg';

/**
 * Test fixtures: certificate, version and job rows written straight into the issuance schema,
 * for tests of code that reads them (stats, the expiry loop, owner/team references) without the
 * certificate routes. Defaults reference the seeded issuer `iss-local` and the default renewal
 * policy. Not used by production code.
 */
export interface CertificateFixture {
  id?: string;
  name?: string;
  common_name?: string;
  environment?: string;
  owner_id?: string | null;
  team_id?: string | null;
  issuer_id?: string;
  renewal_policy_id?: string;
  status?: CertificateStatus;
  not_before?: Date | null;
  expires_at?: Date | null;
  current_version_id?: string | null;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** The id of the seeded default renewal policy (migrations/issuance/0002). */
export async function defaultRenewalPolicyId(db: Client): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM issuance.renewal_policies ORDER BY created_at, id LIMIT 1',
  );
  return rows[0].id;
}

export async function insertCertificate(db: Client, fixture: CertificateFixture = {}): Promise<string> {
  const id = fixture.id ?? `mc-${hex(8)}`;
  await db.query(
    `INSERT INTO issuance.certificates (id, name, common_name, environment, owner_id, team_id, issuer_id,
       renewal_policy_id, status, not_before, expires_at, current_version_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      id,
      fixture.name ?? id,
      fixture.common_name ?? `${id}.example.com`,
      fixture.environment ?? '',
      fixture.owner_id ?? null,
      fixture.team_id ?? null,
      fixture.issuer_id ?? 'iss-local',
      fixture.renewal_policy_id ?? (await defaultRenewalPolicyId(db)),
      fixture.status ?? 'Pending',
      fixture.not_before ?? null,
      fixture.expires_at ?? null,
      fixture.current_version_id ?? null,
    ],
  );
  return id;
}

export interface VersionFixture {
  id?: string;
  certificate_id: string;
  version?: number;
  issued_at?: Date;
  not_before?: Date;
  not_after?: Date;
}

/** A version row with placeholder PEM (readers of these tests never parse it). */
export async function insertVersion(db: Client, fixture: VersionFixture): Promise<string> {
  const id = fixture.id ?? `cv-${hex(8)}`;
  const issuedAt = fixture.issued_at ?? new Date();
  await db.query(
    `INSERT INTO issuance.certificate_versions (id, certificate_id, version, serial_number, fingerprint_sha256,
       key_algorithm, key_size, issued_at, not_before, not_after, cert_pem, issuer_id)
     VALUES ($1, $2, $3, $4, $5, 'ECDSA-P256', 256, $6, $7, $8, '-----BEGIN CERTIFICATE-----', 'iss-local')`,
    [
      id,
      fixture.certificate_id,
      fixture.version ?? 1,
      hex(16),
      hex(32),
      issuedAt,
      fixture.not_before ?? issuedAt,
      fixture.not_after ?? new Date(issuedAt.getTime() + 90 * 86_400_000),
    ],
  );
  return id;
}

export interface JobFixture {
  id?: string;
  certificate_id: string;
  type?: JobType;
  status?: JobStatus;
  completed_at?: Date | null;
}

export async function insertJob(db: Client, fixture: JobFixture): Promise<string> {
  const id = fixture.id ?? `job-${hex(8)}`;
  await db.query(
    `INSERT INTO issuance.jobs (id, type, status, certificate_id, completed_at) VALUES ($1, $2, $3, $4, $5)`,
    [
      id,
      fixture.type ?? 'Renewal',
      fixture.status ?? 'Pending',
      fixture.certificate_id,
      fixture.completed_at ?? null,
    ],
  );
  return id;
}
