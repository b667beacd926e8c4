import { readFileSync } from 'node:fs';
import {
  startTestSystem,
  TestSystem,
  createTestDatabase,
  createTlsFixture,
  eventually,
  ServiceProcess,
  startServiceProcess,
  TestDatabase,
  testNatsUrl,
  uniqueNamespace,
  validServiceEnv,
} from '@certlane/testing';
import { Client } from 'pg';

/**
 * The renewal loop (ADR 0028) with TWO issuance replicas on one database, each sweeping every
 * second: every certificate inside its window gets exactly one Renewal job, failed renewals are
 * retried only after their interval and while attempts remain, and each expiry warning is sent
 * once. Dates are set in the past with SQL instead of waiting.
 */
describe('renewal loop with two issuance replicas', () => {
  let database: TestDatabase;
  let replicas: ServiceProcess[] = [];
  let db: Client;

  /**
   * Inserts certificates of a policy expiring `days` from now (Active, with not_before a year
   * back), issued by the local CA and run by agent `agt-edge` (agent key generation needs one).
   */
  async function seed(
    prefix: string,
    count: number,
    days: number,
    policy = 'rp-default',
    status = 'Active',
    { issuer = 'iss-local' as string | null, agent = 'agt-edge' } = {},
  ) {
    await db.query(
      `INSERT INTO issuance.certificates (id, name, common_name, status, issuer_id, renewal_policy_id,
         agent_id, not_before, expires_at)
       SELECT $1 || '-' || n, $1 || '-' || n, $1 || '-' || n || '.example.com', $5, $6, $4, $7,
         now() - interval '300 days', now() + make_interval(days => $3)
       FROM generate_series(1, $2::int) AS n`,
      [prefix, count, days, policy, status, issuer, agent],
    );
  }

  const jobsOf = async (prefix: string) =>
    (
      await db.query<{ certificate_id: string; n: number }>(
        `SELECT certificate_id, count(*)::int AS n FROM issuance.jobs
         WHERE certificate_id LIKE $1 || '-%' GROUP BY certificate_id ORDER BY certificate_id`,
        [prefix],
      )
    ).rows;

  const statusesOf = async (prefix: string) =>
    (
      await db.query<{ status: string; n: number }>(
        `SELECT status, count(*)::int AS n FROM issuance.certificates WHERE id LIKE $1 || '-%' GROUP BY status`,
        [prefix],
      )
    ).rows;

  beforeAll(async () => {
    database = await createTestDatabase('renewloop');
    const tls = await createTlsFixture();
    const ca = readFileSync(tls.certPath, 'utf8');
    const env = validServiceEnv({
      SERVICE_TLS_CERT_PATH: tls.certPath,
      SERVICE_TLS_KEY_PATH: tls.keyPath,
      SERVICE_DATABASE_URL: database.url,
      SERVICE_NATS_URL: testNatsUrl(),
      SERVICE_NATS_NAMESPACE: uniqueNamespace('renewloop'),
      SERVICE_LOG_LEVEL: 'warn',
      SERVICE_RENEWAL_SWEEP_INTERVAL: '1s',
    });
    replicas = await Promise.all([
      startServiceProcess('issuance', env, { ca, readyTimeoutMs: 30_000 }),
      startServiceProcess('issuance', env, { ca, readyTimeoutMs: 30_000 }),
    ]);
    db = new Client({ connectionString: database.url });
    await db.connect();
    await db.query(
      `INSERT INTO issuance.renewal_policies (id, name, renewal_window_days, max_retries, retry_interval_seconds,
         alert_thresholds_days)
       VALUES ('rp-retry', 'Retry', 30, 1, 60, '{}')`,
    );
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await Promise.all(replicas.map((replica) => replica.stop()));
    await database?.drop();
  });

  it('creates exactly one Renewal job per certificate inside its window, none outside, and warns once', async () => {
    // One transaction: both replicas see all of them in the same sweep.
    await db.query('BEGIN');
    await seed('due', 300, 10);
    await seed('later', 20, 45);
    await seed('gone', 5, 10, 'rp-default', 'Archived');
    await db.query('COMMIT');
    await eventually(
      async () => (await statusesOf('due')).some((s) => s.status === 'RenewalInProgress' && s.n === 300),
      'every due certificate in RenewalInProgress',
      30_000,
    );
    const jobs = await jobsOf('due');
    expect(jobs).toHaveLength(300);
    expect(jobs.every((job) => job.n === 1)).toBe(true);
    const detail = await db.query(
      `SELECT DISTINCT type, status, requested_by, max_attempts FROM issuance.jobs WHERE certificate_id LIKE 'due-%'`,
    );
    expect(detail.rows).toEqual([
      { type: 'Renewal', status: 'AwaitingCSR', requested_by: 'system', max_attempts: 4 },
    ]);
    expect(await jobsOf('later')).toEqual([]);
    expect(await jobsOf('gone')).toEqual([]);
    expect(await statusesOf('later')).toEqual([{ status: 'Active', n: 20 }]);

    // Expiry warnings: 10 days left crosses 30 and 14 of [30,14,7,0]: one "14" warning each.
    const warnings = async () =>
      (
        await db.query<{ certificate_id: string; threshold_days: number }>(
          `SELECT envelope->'data'->>'certificate_id' AS certificate_id,
             (envelope->'data'->>'threshold_days')::int AS threshold_days
           FROM issuance.outbox WHERE subject = 'issuance.v1.certificate.expiry-warning'
             AND envelope->'data'->>'certificate_id' LIKE 'due-%'`,
        )
      ).rows;
    await eventually(async () => (await warnings()).length >= 300, 'the expiry warnings', 20_000);
    // A few more sweeps of both replicas: still once each (the recorded thresholds say so).
    const recorded = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM issuance.certificate_expiry_alerts WHERE certificate_id LIKE 'due-%'`,
    );
    expect(recorded.rows[0].n).toBe(600);
    await seed('marker', 1, 1);
    await eventually(async () => (await jobsOf('marker')).length === 1, 'a later sweep');
    const all = await warnings();
    expect(all).toHaveLength(300);
    expect(new Set(all.map((w) => w.certificate_id)).size).toBe(300);
    expect(all.every((w) => w.threshold_days === 14)).toBe(true);
  }, 60_000);

  it('warns every certificate once when more than a batch share one sub-millisecond expiry', async () => {
    // More than two batches (ALERT_BATCH, 5,000): a Date-based cursor (milliseconds) would never
    // get past the first batch of them.
    await db.query(
      `INSERT INTO issuance.renewal_policies (id, name, renewal_window_days, max_retries, retry_interval_seconds,
         alert_thresholds_days)
       VALUES ('rp-warn', 'Warn only', 1, 0, 60, '{30}')`,
    );
    await db.query(
      `INSERT INTO issuance.certificates (id, name, common_name, status, issuer_id, renewal_policy_id,
         agent_id, not_before, expires_at)
       SELECT 'frac-' || n, 'frac-' || n, 'frac-' || n || '.example.com', 'Active', 'iss-local', 'rp-warn',
         'agt-edge', now() - interval '300 days',
         date_trunc('second', now()) + interval '20 days 0.123456 seconds'
       FROM generate_series(1, 12500) AS n`,
    );
    const counts = async () =>
      (
        await db.query<{ warnings: number; exact: number }>(
          `SELECT (SELECT count(*)::int FROM issuance.outbox WHERE subject = 'issuance.v1.certificate.expiry-warning'
                     AND envelope->'data'->>'certificate_id' LIKE 'frac-%') AS warnings,
                  (SELECT count(*)::int FROM issuance.certificate_expiry_alerts a
                     JOIN issuance.certificates c ON c.id = a.certificate_id AND c.expires_at = a.expires_at
                     WHERE a.certificate_id LIKE 'frac-%') AS exact`,
        )
      ).rows[0];
    await eventually(async () => (await counts()).warnings >= 12500, 'a warning per certificate', 30_000);
    await seed('fmark', 1, 1);
    await eventually(async () => (await jobsOf('fmark')).length === 1, 'a later sweep', 30_000);
    // Once each, and recorded under the certificate's exact expiry (so later sweeps skip them).
    expect(await counts()).toEqual({ warnings: 12500, exact: 12500 });
    // Deleting certificates deletes their recorded thresholds (a trigger since migration 0017).
    await db.query(`DELETE FROM issuance.certificates WHERE id LIKE 'frac-%'`);
    const left = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM issuance.certificate_expiry_alerts WHERE certificate_id LIKE 'frac-%'`,
    );
    expect(left.rows[0].n).toBe(0);
  }, 90_000);

  it('holds the renewal of a certificate whose profile requires approval and opens one approval (ADR 0025)', async () => {
    await db.query(
      `INSERT INTO issuance.profiles (id, name, requires_approval) VALUES ('prof-gated', 'Gated', true)`,
    );
    await db.query('BEGIN');
    await seed('gated', 3, 10);
    await db.query(`UPDATE issuance.certificates SET profile_id = 'prof-gated' WHERE id LIKE 'gated-%'`);
    await db.query('COMMIT');
    await eventually(async () => (await jobsOf('gated')).length === 3, 'a job per gated certificate', 30_000);
    const jobs = await db.query<{ id: string; status: string; certificate_id: string }>(
      `SELECT id, status, certificate_id FROM issuance.jobs WHERE certificate_id LIKE 'gated-%' ORDER BY certificate_id`,
    );
    expect(jobs.rows.map((job) => job.status)).toEqual([
      'AwaitingApproval',
      'AwaitingApproval',
      'AwaitingApproval',
    ]);
    const approvals = await db.query<{
      job_id: string;
      approval_kind: string;
      status: string;
      requested_by: string;
    }>(
      `SELECT job_id, approval_kind, status, requested_by FROM issuance.approvals
       WHERE certificate_id LIKE 'gated-%' ORDER BY certificate_id`,
    );
    expect(approvals.rows).toEqual(
      jobs.rows.map((job) => ({
        job_id: job.id,
        approval_kind: 'cert_issuance',
        status: 'pending',
        requested_by: 'system',
      })),
    );
    const created = await db.query<{ status: string }>(
      `SELECT DISTINCT envelope->'data'->>'status' AS status FROM issuance.outbox
       WHERE subject = 'issuance.v1.job.created' AND envelope->'data'->>'certificate_id' LIKE 'gated-%'`,
    );
    expect(created.rows).toEqual([{ status: 'AwaitingApproval' }]);
  }, 60_000);

  it('retries a failed renewal after its interval and while attempts remain, once', async () => {
    // rp-retry: max_retries 1 (2 attempts), retry_interval_seconds 60.
    const failed = async (id: string, attempts: number, failedSecondsAgo: number) => {
      await db.query(
        `INSERT INTO issuance.certificates (id, name, common_name, status, issuer_id, renewal_policy_id,
           agent_id, expires_at)
         VALUES ($1, $1, $1 || '.example.com', 'Failed', 'iss-local', 'rp-retry', 'agt-edge', now() + interval '5 days')`,
        [id],
      );
      await db.query(
        `INSERT INTO issuance.jobs (id, type, status, certificate_id, attempts, max_attempts, last_error, completed_at)
         VALUES ('job-' || $1, 'Renewal', 'Failed', $1, $2, 2, 'issuer down', now() - make_interval(secs => $3))`,
        [id, attempts, failedSecondsAgo],
      );
    };
    const job = async (id: string) =>
      (
        await db.query<{ status: string; retries: number; attempts: number }>(
          `SELECT status, retries, attempts FROM issuance.jobs WHERE id = 'job-' || $1`,
          [id],
        )
      ).rows[0];
    const certificateStatus = async (id: string) =>
      (await db.query<{ status: string }>('SELECT status FROM issuance.certificates WHERE id = $1', [id]))
        .rows[0].status;

    await db.query('BEGIN');
    await failed('retry-ready', 1, 120); // interval passed, 1 of 2 attempts made
    await failed('retry-early', 1, 30); // interval not passed yet
    await failed('retry-spent', 2, 600); // both attempts made
    await db.query('COMMIT');

    await eventually(async () => (await job('retry-ready')).status === 'AwaitingCSR', 'the due retry');
    expect(await job('retry-ready')).toEqual({ status: 'AwaitingCSR', retries: 1, attempts: 1 });
    expect(await certificateStatus('retry-ready')).toBe('RenewalInProgress');
    // The same sweep saw the others (one transaction) and left them alone.
    expect(await job('retry-early')).toMatchObject({ status: 'Failed', retries: 0 });
    expect(await job('retry-spent')).toMatchObject({ status: 'Failed', retries: 0 });
    expect(await certificateStatus('retry-early')).toBe('Failed');

    // The interval passes (the failure moves 61 s into the past): now it is retried.
    await db.query(
      `UPDATE issuance.jobs SET completed_at = now() - interval '61 seconds' WHERE id = 'job-retry-early'`,
    );
    await eventually(
      async () => (await job('retry-early')).status === 'AwaitingCSR',
      'the retry after the interval',
    );
    expect(await job('retry-early')).toMatchObject({ retries: 1 });

    // The retried job fails again (its second attempt): no third attempt, even long after.
    await db.query('BEGIN');
    await db.query(
      `UPDATE issuance.jobs SET status = 'Failed', attempts = 2, completed_at = now() - interval '1 hour'
       WHERE id = 'job-retry-ready'`,
    );
    await db.query(`UPDATE issuance.certificates SET status = 'Failed' WHERE id = 'retry-ready'`);
    await failed('retry-marker', 1, 120);
    await db.query('COMMIT');
    await eventually(
      async () => (await job('retry-marker')).status === 'AwaitingCSR',
      'a sweep after the failure',
    );
    expect(await job('retry-ready')).toMatchObject({ status: 'Failed', retries: 1 });
    expect(await job('retry-spent')).toMatchObject({ status: 'Failed', retries: 0 });

    // Exactly one retry each, although both replicas swept: one status-changed event per retry.
    const events = await db.query<{ job_id: string; n: number }>(
      `SELECT envelope->'data'->>'job_id' AS job_id, count(*)::int AS n FROM issuance.outbox
       WHERE subject = 'issuance.v1.job.status-changed' AND envelope->'data'->>'job_id' LIKE 'job-retry-%'
       GROUP BY 1 ORDER BY 1`,
    );
    expect(events.rows).toEqual([
      { job_id: 'job-retry-early', n: 1 },
      { job_id: 'job-retry-marker', n: 1 },
      { job_id: 'job-retry-ready', n: 1 },
    ]);
  }, 60_000);

  it('holds the retry of a failed job for approval when the profile came to require one the job never had (ADR 0025)', async () => {
    await db.query(
      `INSERT INTO issuance.profiles (id, name, requires_approval) VALUES ('prof-gated-later', 'Gated later', true)`,
    );
    await db.query('BEGIN');
    for (const id of ['retry-gated', 'retry-approved']) {
      await db.query(
        `INSERT INTO issuance.certificates (id, name, common_name, status, issuer_id, renewal_policy_id,
           agent_id, expires_at, profile_id)
         VALUES ($1, $1, $1 || '.example.com', 'Failed', 'iss-local', 'rp-retry', 'agt-edge',
                 now() + interval '5 days', 'prof-gated-later')`,
        [id],
      );
      await db.query(
        `INSERT INTO issuance.jobs (id, type, status, certificate_id, attempts, max_attempts, last_error, completed_at)
         VALUES ('job-' || $1, 'Renewal', 'Failed', $1, 1, 2, 'issuer down', now() - interval '120 seconds')`,
        [id],
      );
    }
    // This one was approved before it failed: its retry needs no second approval.
    await db.query(
      `INSERT INTO issuance.approvals (id, approval_kind, status, certificate_id, job_id, profile_id, requested_by,
         decided_by, decided_at)
       VALUES ('apr-retry-approved', 'cert_issuance', 'approved', 'retry-approved', 'job-retry-approved',
               'prof-gated-later', 'system', 'usr-approver', now())`,
    );
    await db.query('COMMIT');
    const statusOf = async (id: string) =>
      (await db.query<{ status: string }>(`SELECT status FROM issuance.jobs WHERE id = 'job-' || $1`, [id]))
        .rows[0].status;
    await eventually(async () => (await statusOf('retry-gated')) === 'AwaitingApproval', 'the held retry');
    await eventually(async () => (await statusOf('retry-approved')) === 'AwaitingCSR', 'the approved retry');
    const approvals = await db.query<{ job_id: string; status: string }>(
      `SELECT job_id, status FROM issuance.approvals WHERE certificate_id IN ('retry-gated', 'retry-approved')
        ORDER BY job_id, status`,
    );
    expect(approvals.rows).toEqual([
      { job_id: 'job-retry-approved', status: 'approved' },
      { job_id: 'job-retry-gated', status: 'pending' },
    ]);
  }, 60_000);

  it('gives no job to a due certificate without an agent, without an issuer or of an issuer that cannot issue, stays due, and names them in a warning', async () => {
    // One transaction: the sweep that renews the one with an agent sees the others too.
    await db.query('BEGIN');
    // An issuer of a kind without a connector (ADR 0046): its imported certificates cannot be
    // renewed here; before, the loop gave them jobs that failed and turned them Failed.
    await db.query(
      `INSERT INTO issuance.issuers (id, name, kind, config_sealed) VALUES ('iss-vault', 'Vault', 'digicert', 'v1.x')`,
    );
    await seed('agentless', 2, 10, 'rp-default', 'Active', { agent: '' });
    await seed('issuerless', 1, 10, 'rp-default', 'Expiring', { issuer: null });
    await seed('remote', 1, 10, 'rp-default', 'Active', { issuer: 'iss-vault' });
    await seed('agented', 1, 10);
    // Nor is a failed renewal of a certificate of that issuer retried.
    await db.query(
      `INSERT INTO issuance.certificates (id, name, common_name, status, issuer_id, renewal_policy_id, agent_id,
         expires_at)
       VALUES ('remote-failed', 'remote-failed', 'remote-failed.example.com', 'Failed', 'iss-vault', 'rp-retry',
         'agt-edge', now() + interval '5 days')`,
    );
    await db.query(
      `INSERT INTO issuance.jobs (id, type, status, certificate_id, attempts, max_attempts, last_error, completed_at)
       VALUES ('job-remote-failed', 'Renewal', 'Failed', 'remote-failed', 1, 2, 'not_implemented',
         now() - interval '120 seconds')`,
    );
    // A failed renewal of an agentless certificate is not retried either (interval passed).
    await db.query(
      `INSERT INTO issuance.certificates (id, name, common_name, status, issuer_id, renewal_policy_id, expires_at)
       VALUES ('stuck-1', 'stuck-1', 'stuck-1.example.com', 'Failed', 'iss-local', 'rp-retry', now() + interval '5 days')`,
    );
    await db.query(
      `INSERT INTO issuance.jobs (id, type, status, certificate_id, attempts, max_attempts, last_error, completed_at)
       VALUES ('job-stuck-1', 'Renewal', 'Failed', 'stuck-1', 1, 2, 'no CSR', now() - interval '120 seconds')`,
    );
    await db.query('COMMIT');

    await eventually(
      async () => (await jobsOf('agented')).length === 1,
      'the renewal of the agented one',
      30_000,
    );
    const warned = () =>
      replicas.some((replica) =>
        replica
          .output()
          .split('\n')
          .some(
            (line) =>
              line.includes('due certificates not renewed') &&
              line.includes('"agentless-1"') &&
              line.includes('"agentless-2"') &&
              line.includes('"issuerless-1"') &&
              /"no_connector":\["remote-1"\]/.test(line),
          ),
      );
    await eventually(async () => warned(), 'a warning naming the certificates left due', 20_000);
    // A later sweep of both replicas: still nothing for them.
    await seed('marker2', 1, 1);
    await eventually(async () => (await jobsOf('marker2')).length === 1, 'a later sweep');
    expect(await jobsOf('agentless')).toEqual([]);
    expect(await jobsOf('issuerless')).toEqual([]);
    expect(await jobsOf('remote')).toEqual([{ certificate_id: 'remote-failed', n: 1 }]);
    expect(await statusesOf('agentless')).toEqual([{ status: 'Active', n: 2 }]);
    expect(await statusesOf('issuerless')).toEqual([{ status: 'Expiring', n: 1 }]);
    expect(
      (await db.query(`SELECT id, status FROM issuance.certificates WHERE id LIKE 'remote-%' ORDER BY id`))
        .rows,
    ).toEqual([
      { id: 'remote-1', status: 'Active' },
      { id: 'remote-failed', status: 'Failed' },
    ]);
    expect(
      (await db.query(`SELECT status, retries FROM issuance.jobs WHERE id = 'job-remote-failed'`)).rows,
    ).toEqual([{ status: 'Failed', retries: 0 }]);
    const stuck = await db.query(
      `SELECT c.status, j.status AS job_status, j.retries FROM issuance.certificates c
       JOIN issuance.jobs j ON j.certificate_id = c.id WHERE c.id = 'stuck-1'`,
    );
    expect(stuck.rows).toEqual([{ status: 'Failed', job_status: 'Failed', retries: 0 }]);
    // The expiry warnings still come: the certificates stay visible as due.
    const warnings = await db.query<{ certificate_id: string }>(
      `SELECT DISTINCT envelope->'data'->>'certificate_id' AS certificate_id FROM issuance.outbox
       WHERE subject = 'issuance.v1.certificate.expiry-warning'
         AND envelope->'data'->>'certificate_id' IN ('agentless-1', 'agentless-2', 'issuerless-1')
       ORDER BY 1`,
    );
    expect(warnings.rows.map((row) => row.certificate_id)).toEqual([
      'agentless-1',
      'agentless-2',
      'issuerless-1',
    ]);
  }, 60_000);
});

describe('renewal loop in server key-generation mode', () => {
  let system: TestSystem;
  let db: Client;

  beforeAll(async () => {
    system = await startTestSystem('renewserver', ['issuance'], {
      SERVICE_KEYGEN_MODE: 'server',
      SERVICE_RENEWAL_SWEEP_INTERVAL: '1s',
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  it('issues the renewal at once, like a renew request: a new version, the job Completed, the certificate Active', async () => {
    // srv-noissuer was imported from a CA Certlane does not hold: no issuer to renew it (ADR 0043).
    // srv-acme and srv-est are their enrollment clients' to renew; srv-scep-agent was given to an agent.
    await db.query(
      `INSERT INTO issuance.certificates (id, name, common_name, status, issuer_id, renewal_policy_id, expires_at,
         source, agent_id)
       VALUES ('srv-1', 'srv-1', 'srv-1.example.com', 'Expiring', 'iss-local', 'rp-default', now() + interval '3 days', '', ''),
         ('srv-noissuer', 'srv-noissuer', 'srv-noissuer.example.com', 'Expiring', NULL, 'rp-default',
          now() + interval '3 days', '', ''),
         ('srv-acme', 'srv-acme', 'srv-acme.example.com', 'Expiring', 'iss-local', 'rp-default',
          now() + interval '3 days', 'ACME', ''),
         ('srv-est', 'srv-est', 'srv-est.example.com', 'Expiring', 'iss-local', 'rp-default',
          now() + interval '3 days', 'EST', ''),
         ('srv-scep-agent', 'srv-scep-agent', 'srv-scep-agent.example.com', 'Expiring', 'iss-local', 'rp-default',
          now() + interval '3 days', 'SCEP', 'edge-1')`,
    );
    const state = async () =>
      (
        await db.query<{
          status: string;
          current_version_id: string | null;
          far: boolean;
          job_status: string;
        }>(
          `SELECT c.status, c.current_version_id, c.expires_at > now() + interval '20 days' AS far, j.status AS job_status
           FROM issuance.certificates c JOIN issuance.jobs j ON j.certificate_id = c.id WHERE c.id = 'srv-1'`,
        )
      ).rows;
    await eventually(
      async () => (await state())[0]?.job_status === 'Completed',
      'the renewal issued',
      20_000,
    );
    expect(await state()).toEqual([
      {
        status: 'Active',
        current_version_id: expect.stringMatching(/^ver-/),
        far: true,
        job_status: 'Completed',
      },
    ]);
    await eventually(
      async () =>
        (
          await db.query(
            `SELECT 1 FROM issuance.jobs WHERE certificate_id = 'srv-scep-agent' AND status = 'Completed'`,
          )
        ).rows.length === 1,
      'the renewal of the SCEP certificate given to an agent',
      20_000,
    );
    const left = await db.query(
      `SELECT c.id, c.status, c.current_version_id,
              (SELECT count(*)::int FROM issuance.jobs j WHERE j.certificate_id = c.id) AS jobs
       FROM issuance.certificates c WHERE c.id IN ('srv-noissuer', 'srv-acme', 'srv-est') ORDER BY c.id`,
    );
    expect(left.rows).toEqual([
      { id: 'srv-acme', status: 'Expiring', current_version_id: null, jobs: 0 },
      { id: 'srv-est', status: 'Expiring', current_version_id: null, jobs: 0 },
      { id: 'srv-noissuer', status: 'Expiring', current_version_id: null, jobs: 0 },
    ]);
    // Not the loop's to renew, so not named among the due certificates it could not renew.
    const warnings = system.services.issuance
      .output()
      .split('\n')
      .filter((line) => line.includes('due certificates not renewed'));
    expect(warnings.join('\n')).toContain('srv-noissuer');
    expect(warnings.join('\n')).not.toMatch(/srv-acme|srv-est/);
  }, 60_000);
});
