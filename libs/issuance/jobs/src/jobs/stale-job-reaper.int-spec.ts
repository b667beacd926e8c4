import { randomBytes } from 'node:crypto';
import { CertificateDto } from '@certlane/contracts';
import { eventually, httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';
import { reapIntervalMs } from './stale-job-reaper';

/**
 * The stale-job reaper (ADR 0024) through real auth, issuance and gateway processes: a job left
 * Running past SERVICE_JOB_RUNNING_TIMEOUT (its worker lost) is failed through the job machine,
 * its certificate follows, and the failure is audited; a job that is still within the timeout is
 * left alone. Agent key generation, so a create leaves an Issuance job AwaitingCSR to play with.
 */
describe('stale job reaper', () => {
  let system: TestSystem;
  let db: Client;

  const call = (method: string, path: string, body?: unknown) =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  /** A certificate whose Issuance job is made Running, its last change `age` ago (SQL interval). */
  async function runningJob(age: string): Promise<{ certificate: string; job: string }> {
    const created = await call('POST', '/api/v1/certificates', {
      common_name: `reap-${randomBytes(4).toString('hex')}.example.com`,
      agent_id: 'reap-agent',
    });
    expect(created.status).toBe(201);
    const certificate = (created.json() as CertificateDto).id;
    const { rows } = await db.query<{ id: string }>(
      `UPDATE issuance.jobs SET status = 'Running', started_at = now(), updated_at = now() + $2::interval
       WHERE certificate_id = $1 RETURNING id`,
      [certificate, age],
    );
    expect(rows).toHaveLength(1);
    return { certificate, job: rows[0].id };
  }

  beforeAll(async () => {
    system = await startTestSystem('reaper', ['auth', 'issuance', 'api-gateway'], {
      SERVICE_KEYGEN_MODE: 'agent',
      SERVICE_JOB_RUNNING_TIMEOUT: '30s',
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  it('checks a quarter of the timeout, between 1 s and 1 min', () => {
    expect(reapIntervalMs(1000)).toBe(1000);
    expect(reapIntervalMs(10_000)).toBe(2500);
    expect(reapIntervalMs(3_600_000)).toBe(60_000);
  });

  it('fails a job Running past the timeout, with its certificate, and audits it; a fresh one stays', async () => {
    const stale = await runningJob('-2 hours');
    const fresh = await runningJob('0 seconds');
    await eventually(
      async () =>
        (await db.query(`SELECT 1 FROM issuance.jobs WHERE id = $1 AND status = 'Failed'`, [stale.job]))
          .rowCount === 1,
      'the reaper to fail the stale job (it looks every 7.5 s with a 30 s timeout)',
    );
    const job = (await call('GET', `/api/v1/jobs/${stale.job}`)).json() as {
      status: string;
      last_error: string;
    };
    expect(job.status).toBe('Failed');
    expect(job.last_error).toMatch(/no progress for 30 s while Running: the worker holding the job was lost/);
    expect(
      ((await call('GET', `/api/v1/certificates/${stale.certificate}`)).json() as CertificateDto).status,
    ).toBe('Failed');
    // Changed less than the timeout ago (the stale one was failed within one 7.5 s pass).
    expect(((await call('GET', `/api/v1/jobs/${fresh.job}`)).json() as { status: string }).status).toBe(
      'Running',
    );
    await eventually(async () => {
      const audit = (await call('GET', `/api/v1/audit?resource_id=${stale.job}`)).json() as {
        data: { action: string; actor_id: string }[];
      };
      return audit.data.some((event) => event.action === 'job.timed_out' && event.actor_id === 'system');
    }, 'the job.timed_out audit record');
  }, 120_000);
});
