// Seeds the issuance schema with a realistic inventory in SQL (generate_series, no row crosses the
// wire): teams, owners, issuers, `count` certificates spread over statuses, environments, owners,
// teams and issuers, and one version per certificate that has one. Dates agree with statuses (the
// default renewal policy's 30-day window), so the expiry loop has nothing to move. Ids are
// 'mc-0000001'.. in list order; spreads come from multiplicative hashes of the row number, so no
// value is correlated with id order. See bench/README.md (## inventory).
import { round } from '../lib/harness.mjs';

export const TEAMS = 100;
export const OWNERS = 2000;
export const EXTRA_ISSUERS = 9;

/** Share of certificates per status, in percent (sums to 100). */
export const STATUS_SPREAD = [
  ['Active', 60],
  ['Expiring', 8],
  ['Expired', 7],
  ['RenewalInProgress', 3],
  ['Failed', 2],
  ['Revoked', 5],
  ['Archived', 10],
  ['Pending', 5],
];
export const ENVIRONMENT_SPREAD = [
  ['prod', 40],
  ['staging', 25],
  ['dev', 20],
  ['test', 10],
  ['dr', 5],
];

/** CASE over a 0..99 bucket expression choosing from a [value, percent][] spread. */
function bucketCase(bucket, spread) {
  let upper = 0;
  const arms = spread.map(([value, percent]) => {
    upper += percent;
    return `WHEN ${bucket} < ${upper} THEN '${value}'`;
  });
  return `CASE ${arms.join(' ')} END`;
}

const timed = async (db, sql, values = []) => {
  const started = performance.now();
  const result = await db.query(sql, values);
  return { seconds: round((performance.now() - started) / 1000, 2), rows: result.rowCount };
};

/** Seeds through `db` (a pg Client on the bench database); returns the time of each step. */
export async function seedInventory(db, { count, pemBytes = 700 }) {
  const steps = {};
  await db.query('SET search_path TO issuance');
  steps.teams_owners_issuers = await timed(
    db,
    `WITH t AS (
       INSERT INTO teams (id, name) SELECT 'team-' || lpad(n::text, 3, '0'), 'Team ' || n FROM generate_series(1, $1::int) n
     ), o AS (
       INSERT INTO owners (id, name, email, team_id)
       SELECT 'own-' || lpad(n::text, 4, '0'), 'Owner ' || n, 'owner' || n || '@example.com',
              'team-' || lpad((((n - 1) % $1::int) + 1)::text, 3, '0')
       FROM generate_series(1, $2::int) n
     )
     INSERT INTO issuers (id, name, kind, config_sealed)
     SELECT 'iss-bench-' || n, 'Bench issuer ' || n, 'digicert', 'v1.bench-placeholder' FROM generate_series(1, $3::int) n`,
    [TEAMS, OWNERS, EXTRA_ISSUERS],
  );
  // h1..h4: independent 0..99 buckets of the row number (multiplicative hashing).
  steps.certificates = await timed(
    db,
    `INSERT INTO certificates (id, name, common_name, sans, environment, owner_id, team_id, issuer_id,
       renewal_policy_id, source, status, key_algorithm, not_before, expires_at, current_version_id,
       last_renewed_at, created_at, updated_at)
     SELECT id, 'cert ' || i, cn, ARRAY[cn, 'www.' || cn], environment,
            'own-' || lpad(owner_n::text, 4, '0'),
            'team-' || lpad((((owner_n - 1) % $2::int) + 1)::text, 3, '0'),
            CASE WHEN h3 < 50 THEN 'iss-local' ELSE 'iss-bench-' || (h3 % $4::int + 1) END,
            'rp-default', (ARRAY['', 'API', 'EST', 'SCEP', 'Agent'])[h4 % 5 + 1], status, 'ECDSA-P256',
            expires_at - interval '397 days', expires_at,
            CASE WHEN status <> 'Pending' THEN 'cv-' || substr(id, 4) END,
            CASE WHEN status <> 'Pending' THEN expires_at - interval '397 days' END,
            now() - interval '400 days', now() - interval '1 day'
     FROM (
       SELECT i, 'mc-' || lpad(i::text, 7, '0') AS id, 'host' || i || '.example.com' AS cn,
              ${bucketCase('h2', ENVIRONMENT_SPREAD)} AS environment,
              ${bucketCase('h1', STATUS_SPREAD)} AS status,
              (i * 7919) % $3::int + 1 AS owner_n, h3, h4, secs,
              CASE ${bucketCase('h1', STATUS_SPREAD)}
                WHEN 'Active' THEN now() + make_interval(days => (31 + (i * 31) % 370)::int, secs => secs)
                WHEN 'Expiring' THEN now() + make_interval(days => (1 + i % 28)::int, secs => secs)
                WHEN 'Expired' THEN now() - make_interval(days => (1 + i % 60)::int, secs => secs)
                WHEN 'RenewalInProgress' THEN now() + make_interval(days => (1 + i % 60)::int, secs => secs)
                WHEN 'Failed' THEN now() + make_interval(days => (31 + i % 300)::int, secs => secs)
                WHEN 'Pending' THEN NULL
                ELSE now() + make_interval(days => (i % 400 - 60)::int, secs => secs)
              END AS expires_at
       FROM (
         SELECT i, (i * 2654435761) % 100 AS h1, (i * 40503) % 100 AS h2, (i * 104729) % 100 AS h3,
                (i * 8191) % 100 AS h4, ((i * 2246822519) % 86400)::float8 AS secs
         FROM generate_series(1::bigint, $1::bigint) AS i
       ) hashed
     ) spread`,
    [count, TEAMS, OWNERS, EXTRA_ISSUERS],
  );
  steps.versions = await timed(
    db,
    `INSERT INTO certificate_versions (id, certificate_id, version, serial_number, fingerprint_sha256,
       key_algorithm, key_size, issued_at, not_before, not_after, cert_pem, chain_pem, csr_pem, issuer_id)
     SELECT current_version_id, id, 1, md5(id), md5(id) || md5(current_version_id), 'ECDSA-P256', 256,
            not_before, not_before, expires_at,
            '-----BEGIN CERTIFICATE-----' || chr(10) || repeat('MIIB', $1::int / 4) || chr(10) || '-----END CERTIFICATE-----' || chr(10),
            '', NULL, issuer_id
     FROM certificates WHERE current_version_id IS NOT NULL`,
    [pemBytes],
  );
  // Index-only scans need the visibility map; the planner needs statistics.
  steps.vacuum_analyze = await timed(
    db,
    'VACUUM (ANALYZE) teams, owners, issuers, certificates, certificate_versions',
  );
  const { rows } = await db.query(
    `SELECT pg_size_pretty(pg_total_relation_size('certificates')) AS certificates,
            pg_size_pretty(pg_total_relation_size('certificate_versions')) AS versions`,
  );
  steps.total_seconds = round(
    Object.values(steps).reduce((sum, step) => sum + step.seconds, 0),
    2,
  );
  return { steps, sizes: rows[0] };
}
