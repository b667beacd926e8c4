import { HealthCheckDto, HealthCheckSummary, Page } from '@certlane/contracts';
import { httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

const FINGERPRINT = 'AB:'.repeat(31) + 'AB';

/**
 * The eight health-check routes (ADR 0057) through the real gateway, auth and health-monitor
 * processes over real NATS and Postgres.
 */
describe('health checks through gateway -> NATS -> health-monitor -> Postgres', () => {
  let system: TestSystem;
  let db: Client;

  const api = (method: string, path: string, body?: unknown, base = '/api/v1/health-checks') =>
    httpsRequest(`${system.services['api-gateway'].url}${base}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    system = await startTestSystem('health', ['auth', 'health-monitor', 'api-gateway']);
    db = new Client({ connectionString: system.database.url });
    await db.connect();
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  it('creates a check with defaults, a normalised fingerprint and a due time within its interval', async () => {
    const before = Date.now();
    const response = await api('POST', '', { host: 'www.example.test', expected_fingerprint: FINGERPRINT });
    expect(response.status).toBe(201);
    const check = response.json() as HealthCheckDto;
    expect(check).toMatchObject({
      name: 'www.example.test:443',
      host: 'www.example.test',
      port: 443,
      sni: null,
      expected_fingerprint: 'ab'.repeat(32),
      interval_seconds: 300,
      enabled: true,
      status: 'healthy',
      consecutive_failures: 0,
      acknowledged: false,
      last_checked_at: null,
    });
    const due = Date.parse(check.next_check_at);
    expect(due).toBeGreaterThanOrEqual(before - 1000);
    expect(due).toBeLessThanOrEqual(Date.now() + 300_000);
    expect((await api('GET', `/${check.id}`)).json()).toEqual(check);
  });

  it.each([
    [{ host: '' }, 'host'],
    [{ host: 'https://x.test/' }, 'host'],
    [{ host: 'x.test', port: 70000 }, 'port'],
    [{ host: 'x.test', interval_seconds: 59 }, 'interval_seconds'],
    [{ host: 'x.test', expected_fingerprint: 'abc' }, 'expected_fingerprint'],
    [{ host: 'x.test', colour: 'red' }, 'colour'],
  ])('refuses %j with 400 naming %s', async (body, field) => {
    const response = await api('POST', '', body);
    expect(response.status).toBe(400);
    expect(response.text).toContain(field);
  });

  it('updates given fields only, and clears a fingerprint with null', async () => {
    const created = (
      await api('POST', '', { host: 'a.example.test', port: 8443, expected_fingerprint: FINGERPRINT })
    ).json() as HealthCheckDto;
    const response = await api('PUT', `/${created.id}`, { expected_fingerprint: null, interval_seconds: 60 });
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({
      host: 'a.example.test',
      port: 8443,
      expected_fingerprint: null,
      interval_seconds: 60,
    });
    expect((await api('PUT', '/hc-missing', { port: 1 })).status).toBe(404);
  });

  it('lists with a status filter, summarises, and answers 404 for unknown ids', async () => {
    const down = (await api('POST', '', { host: 'down.example.test' })).json() as HealthCheckDto;
    await db.query(
      `UPDATE health_monitor.health_checks SET status = 'down', consecutive_failures = 5 WHERE id = $1`,
      [down.id],
    );
    const list = (await api('GET', '?status=down')).json() as Page<HealthCheckDto>;
    expect(list.data.map((c) => c.id)).toEqual([down.id]);
    expect(list.total).toBe(1);
    expect((await api('GET', '?status=sideways')).status).toBe(400);
    const summary = (await api('GET', '/summary')).json() as HealthCheckSummary;
    expect(summary).toMatchObject({ down: 1, alerting: 1, acknowledged: 0 });
    expect(summary.total).toBe(summary.healthy + summary.degraded + summary.down + summary.cert_mismatch);
    expect((await api('GET', '/hc-missing')).json()).toMatchObject({ code: 'health_check_not_found' });
  });

  it('acknowledges an alerting check once, and refuses a healthy one with 409', async () => {
    const healthy = (await api('POST', '', { host: 'ok.example.test' })).json() as HealthCheckDto;
    const refused = await api('POST', `/${healthy.id}/acknowledge`);
    expect(refused.status).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'health_check_not_alerting' });

    await db.query(
      `UPDATE health_monitor.health_checks SET status = 'degraded', consecutive_failures = 2 WHERE id = $1`,
      [healthy.id],
    );
    const acknowledged = await api('POST', `/${healthy.id}/acknowledge`);
    expect(acknowledged.status).toBe(200);
    expect(acknowledged.json()).toMatchObject({ acknowledged: true, acknowledged_by: expect.any(String) });
    const summary = (await api('GET', '/summary')).json() as HealthCheckSummary;
    expect(summary.acknowledged).toBeGreaterThanOrEqual(1);
  });

  it('serves an empty history for a new check and 404 for an unknown one; delete removes the check', async () => {
    const check = (await api('POST', '', { host: 'gone.example.test' })).json() as HealthCheckDto;
    expect((await api('GET', `/${check.id}/history`)).json()).toEqual({
      data: [],
      total: 0,
      page: 1,
      per_page: 50,
    });
    expect((await api('DELETE', `/${check.id}`)).status).toBe(204);
    expect((await api('GET', `/${check.id}`)).status).toBe(404);
    expect((await api('GET', `/${check.id}/history`)).status).toBe(404);
    expect((await api('DELETE', `/${check.id}`)).status).toBe(404);
  });

  it('runs the SCEP probe through the gateway: a reserved address is an error in a 200 result, and the list clamps its limit', async () => {
    const scan = '/api/v1/network-scan';
    const refused = await api('POST', '/scep-probe', { url: 'http://169.254.169.254/scep' }, scan);
    expect(refused.status).toBe(200);
    expect(refused.json()).toMatchObject({
      reachable: false,
      error: 'refused to connect to 169.254.169.254: reserved address (cloud_metadata)',
    });
    expect((await api('POST', '/scep-probe', { url: 42 }, scan)).status).toBe(400);
    const list = await api('GET', '/scep-probes?limit=0', undefined, scan);
    expect(list.status).toBe(200);
    expect(list.json()).toMatchObject({ limit: 1, probes: [{ target_url: 'http://169.254.169.254/scep' }] });
    expect((await api('GET', '/scep-probes?limit=100000', undefined, scan)).json()).toMatchObject({
      limit: 200,
    });
  });

  it('serves discovered-certificate triage through the gateway', async () => {
    const base = '/api/v1/discovered-certificates';
    const id = 'c'.repeat(64);
    await db.query(
      `INSERT INTO health_monitor.discovered_certificates (fingerprint, subject, issuer, not_before, not_after, first_seen_at, last_seen_at)
       VALUES ($1, 'CN=found.test', 'CN=ca.test', now() - interval '60 days', now() - interval '1 day', now(), now())`,
      [id],
    );
    expect((await api('GET', '?status=Unmanaged', undefined, base)).json()).toMatchObject({
      total: 1,
      data: [{ id }],
    });
    expect((await api('GET', '/summary', undefined, base)).json()).toMatchObject({
      unmanaged: 1,
      unmanaged_expired: 1,
    });
    expect((await api('GET', '/not-a-fingerprint', undefined, base)).status).toBe(400);
    expect((await api('GET', `/${'d'.repeat(64)}`, undefined, base)).status).toBe(404);
    const dismissed = await api('POST', `/${id}/dismiss`, undefined, base);
    expect(dismissed.status).toBe(200);
    expect(dismissed.json()).toMatchObject({ id, status: 'Dismissed', seen_at: [] });
  });
});
