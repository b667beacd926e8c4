import { randomBytes } from 'node:crypto';
import {
  eventually,
  httpsRequest,
  HttpsResult,
  PrivateServer,
  startPrivateNats,
  startPrivatePostgres,
  startServiceProcess,
  startTestSystem,
  TestSystem,
} from '@certlane/testing';
import { Client } from 'pg';
import { AUTH_SECRET_ACTOR_ID } from './auth/authenticator';
import { idempotentResourceId } from './idempotency/idempotency-key';

/** How long a server-run job may stay Running before it is re-queued (SERVICE_JOB_SERVER_LEASE). */
const SERVER_LEASE = '5s';
/** Recovery bound: the lease, a reaper pass and a run, with room for a loaded 2-core machine. */
const RECOVERY_MS = 45_000;

/** One call fired during a fault, and what it answered (0: no HTTP answer at all). */
interface Fired {
  kind: 'create' | 'revoke';
  certificateId: string;
  idempotencyKey: string;
  body: unknown;
  status: number;
}

/**
 * Fault test (issue 15 point 5, ADR 0045): certificate creates (server key generation) and revokes
 * fired while the system's own Postgres restarts, while its own NATS restarts, and while the
 * issuance process is killed (SIGKILL) and started again. Afterwards: every answer was a success
 * or an outage answer (503/504, never 500); every create that succeeded exists; one that did not
 * either does not exist or, retried with the same Idempotency-Key, answers 201 with the one
 * certificate of that key; no certificate stays Pending with an open job past the recovery bound; no serial the
 * local CA recorded lacks a version, and every serial the revocation service knows as issued
 * belongs to a version. Never the shared Postgres and NATS: both servers are this file's own.
 */
describe('issuance under faults', () => {
  let nats: PrivateServer;
  let postgres: PrivateServer;
  let system: TestSystem;

  const gateway = () => system.services['api-gateway'].url;

  const call = (method: string, path: string, body?: unknown, idempotencyKey?: string) =>
    httpsRequest(`${gateway()}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  /** One query on a fresh connection (the server restarts under the test). */
  async function sql<T>(text: string, values: unknown[] = []): Promise<T[]> {
    const client = new Client({ connectionString: system.database.url });
    await client.connect();
    try {
      return (await client.query(text, values)).rows as T[];
    } finally {
      await client.end();
    }
  }

  const fire = async (kind: Fired['kind'], certificateId: string, body: unknown): Promise<Fired> => {
    const idempotencyKey = `k-${randomBytes(8).toString('hex')}`;
    const path = kind === 'create' ? '/api/v1/certificates' : `/api/v1/certificates/${certificateId}/revoke`;
    const status = await call('POST', path, body, idempotencyKey).then(
      (response) => response.status,
      () => 0,
    );
    return { kind, certificateId, idempotencyKey, body, status };
  };

  /** A create with an Idempotency-Key and no id: its id derives from the caller and the key. */
  const newCreate = async (label: string): Promise<Fired> => {
    const idempotencyKey = `k-${randomBytes(8).toString('hex')}`;
    const certificateId = idempotentResourceId('mc', AUTH_SECRET_ACTOR_ID, idempotencyKey);
    const body = { common_name: `${label}-${randomBytes(4).toString('hex')}.faults.example.com` };
    const status = await call('POST', '/api/v1/certificates', body, idempotencyKey).then(
      (response) => response.status,
      () => 0,
    );
    return { kind: 'create', certificateId, idempotencyKey, body, status };
  };

  /** Certificates issued before the fault, to revoke during it. */
  async function issued(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const id = `mc-rev-${randomBytes(4).toString('hex')}`;
      const created = await call('POST', '/api/v1/certificates', { id, common_name: `${id}.example.com` });
      expect(created.status).toBe(201);
      ids.push(id);
    }
    return ids;
  }

  /**
   * Keeps creates and revokes in flight (three lanes of creates, two of revokes, each call after
   * the previous answer) from before `fault` starts until two calls per lane after it ended, so
   * calls land before, during and after it; `fault` is run once a create of this round reached the
   * database. Returns every call with its answer.
   */
  async function during(label: string, fault: () => Promise<void>): Promise<Fired[]> {
    const toRevoke = await issued(4);
    const fired: Fired[] = [];
    let faultOver = false;
    const lane = async (next: () => Promise<Fired> | undefined) => {
      let afterFault = 0;
      while (afterFault < 2) {
        if (faultOver) afterFault++;
        const call = next();
        if (!call) return;
        fired.push(await call);
      }
    };
    const revokeLane = (ids: string[]) => () => {
      const id = ids.shift();
      return id ? fire('revoke', id, { reason: 'keyCompromise' }) : undefined;
    };
    const lanes = [
      ...Array.from({ length: 3 }, () => lane(() => newCreate(label))),
      lane(revokeLane(toRevoke.slice(0, 2))),
      lane(revokeLane(toRevoke.slice(2))),
    ];
    await eventually(
      async () =>
        (
          await sql<{ n: number }>(
            `SELECT count(*)::int AS n FROM issuance.certificates WHERE common_name LIKE $1`,
            [`${label}-%`],
          )
        )[0].n > 0,
      'a create of this round to reach the issuance service',
      20_000,
    );
    await fault();
    faultOver = true;
    await Promise.all(lanes);
    return fired;
  }

  /**
   * A client's retry with the same key: again while the key is in use (a lost attempt holds it
   * until its lease runs out).
   */
  async function retry(path: string, body: unknown, idempotencyKey: string): Promise<HttpsResult> {
    let retried = await call('POST', path, body, idempotencyKey);
    const inUse = (response: HttpsResult) =>
      response.status === 409 && (response.json() as { code: string }).code === 'idempotency_key_in_use';
    if (inUse(retried)) {
      await eventually(
        async () => !inUse((retried = await call('POST', path, body, idempotencyKey))),
        'the lost attempt to let go of its Idempotency-Key',
        RECOVERY_MS,
      );
    }
    return retried;
  }

  /** What the last probe of {@link serviceAnswers} got, for the failure message. */
  let lastProbe = '';
  const serviceAnswers = async () => {
    const probe = await call('GET', '/api/v1/certificates?per_page=1').catch((error: Error) => error);
    lastProbe = probe instanceof Error ? probe.message : `${probe.status} ${probe.text.slice(0, 300)}`;
    return !(probe instanceof Error) && probe.status === 200;
  };

  /** The end of every service's output: what a recovery that never came left behind. */
  const serviceOutputs = () =>
    Object.values(system.services)
      .map((service) => `--- ${service.name} ---\n${service.output().slice(-4000)}`)
      .join('\n');

  /** The invariants that must hold once the system has recovered from the fault. */
  async function expectNoHarm(fired: Fired[]): Promise<void> {
    // Every answer is a success or an outage answer: 500 is for bugs.
    expect(fired.filter((call) => ![200, 201, 503, 504].includes(call.status))).toEqual([]);
    await eventually(serviceAnswers, 'the system to serve again', RECOVERY_MS).catch((error: Error) => {
      throw new Error(`${error.message}; last answer: ${lastProbe}\n${serviceOutputs()}`);
    });

    for (const { kind, certificateId, status, idempotencyKey, body } of fired) {
      const got = await call('GET', `/api/v1/certificates/${certificateId}`);
      if (kind === 'create') {
        if (status === 201) expect(got.status).toBe(200);
        else expect([200, 404]).toContain(got.status);
        if (status !== 201) {
          // The retry a client makes, with the same key: the one certificate of that key, created
          // now or by the first attempt (409 idempotency_key_in_use while a lost attempt's lease runs).
          const retried = await retry('/api/v1/certificates', body, idempotencyKey);
          expect(retried.status).toBe(201);
          expect((retried.json() as { id: string }).id).toBe(certificateId);
        }
      } else {
        if (status === 200) expect((got.json() as { status: string }).status).toBe('Revoked');
        // Revoking a Revoked certificate answers 200 again (natural idempotency).
        const retried = await retry(`/api/v1/certificates/${certificateId}/revoke`, body, idempotencyKey);
        expect(retried.status).toBe(200);
        const after = (await call('GET', `/api/v1/certificates/${certificateId}`)).json() as {
          status: string;
        };
        expect(after.status).toBe('Revoked');
      }
    }

    // No issuance left hanging: every create ends with its certificate issued.
    const creates = fired.filter((f) => f.kind === 'create').map((f) => f.certificateId);
    await eventually(
      async () =>
        (
          await sql<{ n: number }>(
            `SELECT count(*)::int AS n FROM issuance.jobs
              WHERE status IN ('Pending', 'Running') AND type IN ('Issuance', 'Renewal')`,
          )
        )[0].n === 0,
      'no issuance job to stay Pending or Running past the recovery bound',
      RECOVERY_MS,
    );
    const statuses = await sql<{ id: string; status: string }>(
      'SELECT id, status FROM issuance.certificates WHERE id = ANY($1::text[])',
      [creates],
    );
    expect(statuses).toHaveLength(creates.length);
    for (const row of statuses)
      expect({ id: row.id, status: row.status }).toEqual({ id: row.id, status: 'Active' });

    // No orphan serial at the local CA ...
    expect(
      await sql(
        `SELECT i.serial_hex FROM issuance.issued_certificates i
          LEFT JOIN issuance.certificate_versions v ON v.serial_number = i.serial_hex
         WHERE i.purpose = 'leaf' AND v.id IS NULL`,
      ),
    ).toEqual([]);
    // ... nor at the revocation service (which learns of serials through the issued events).
    expect(
      await sql(
        `SELECT r.serial_hex FROM revocation.issued_certificates r
          LEFT JOIN issuance.certificate_versions v ON v.serial_number = r.serial_hex
         WHERE v.id IS NULL
           AND NOT EXISTS (SELECT 1 FROM issuance.issued_certificates ca
                            WHERE ca.serial_hex = r.serial_hex AND ca.purpose = 'ca')`,
      ),
    ).toEqual([]);
  }

  beforeAll(async () => {
    [nats, postgres] = await Promise.all([startPrivateNats(), startPrivatePostgres()]);
    system = await startTestSystem(
      'faults',
      ['auth', 'issuance', 'revocation', 'api-gateway'],
      {
        SERVICE_KEYGEN_MODE: 'server',
        SERVICE_JOB_SERVER_LEASE: SERVER_LEASE,
        SERVICE_BUS_REQUEST_TIMEOUT: '5s',
      },
      { databaseServerUrl: postgres.url, natsUrl: nats.url },
    );
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    await Promise.all([nats?.destroy(), postgres?.destroy()]);
  }, 60_000);

  it('leaves no half-done issuance when Postgres restarts under creates and revokes', async () => {
    const fired = await during('pg', async () => {
      await postgres.stop();
      await postgres.start();
    });
    await expectNoHarm(fired);
  }, 120_000);

  it('leaves no half-done issuance when NATS restarts under creates and revokes', async () => {
    const fired = await during('nats', async () => {
      await nats.stop();
      await nats.start();
    });
    await expectNoHarm(fired);
  }, 120_000);

  it('leaves no half-done issuance when the issuance process is killed mid-request', async () => {
    const fired = await during('kill', async () => {
      const issuance = system.services.issuance;
      issuance.child.kill('SIGKILL');
      await issuance.stop();
      system.services.issuance = await startServiceProcess('issuance', system.env, { ca: system.ca });
    });
    await expectNoHarm(fired);
  }, 120_000);
});
