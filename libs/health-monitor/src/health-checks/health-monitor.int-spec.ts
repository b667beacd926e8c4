import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { AddressInfo, createServer as createTcpServer, Server as TcpServer, Socket } from 'node:net';
import { createServer as createTlsServer, Server as TlsServer } from 'node:tls';
import { EventEnvelope, HealthCheckDto, HealthCheckStatusChanged, RequestContext } from '@certlane/contracts';
import { createTlsFixture, TlsFixture } from '@certlane/testing';
import { InProcessService, startInProcessService } from '@certlane/testing-in-process';
import { HealthMonitorModule } from '../health-monitor.module';
import { HealthMonitorLoop } from './health-monitor.loop';
import { TlsProber } from './tls-prober';

const admin: RequestContext = { actor_id: 'actor-health-test', request_id: 'req-health' };
const DAY_MS = 86_400_000;

/** A clock the test moves by hand. */
const clock = {
  current: new Date(),
  now() {
    return new Date(this.current);
  },
};

async function tlsServer(host: string, fixture: TlsFixture): Promise<TlsServer> {
  const server = createTlsServer(
    { cert: readFileSync(fixture.certPath), key: readFileSync(fixture.keyPath) },
    (socket) => socket.end(),
  );
  server.listen(0, host);
  await once(server, 'listening');
  return server;
}

/** Accepts TCP connections and never answers the ClientHello. */
async function silentServer(host: string): Promise<{ server: TcpServer; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = createTcpServer((socket) => sockets.push(socket));
  server.listen(0, host);
  await once(server, 'listening');
  return { server, sockets };
}

/** A port on `host` where nothing listens (bound, then closed). */
async function refusingPort(host: string): Promise<number> {
  const server = createTcpServer();
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

const portOf = (server: TlsServer | TcpServer) => (server.address() as AddressInfo).port;

/**
 * The monitor loop (ADR 0057) against real TLS servers on loopback addresses, with a fake clock:
 * probes, the spec 3 transitions, history, status-change events in the outbox, reserved-address
 * refusal, and SKIP LOCKED claiming shared by concurrent claimers.
 */
describe('health monitor loop against real TLS servers', () => {
  let service: InProcessService;
  let loop: HealthMonitorLoop;
  let good: TlsFixture;
  let other: TlsFixture;
  let healthy: TlsServer;
  let wrong: TlsServer;
  let slow: { server: TcpServer; sockets: Socket[] };
  let refusing: number;

  const create = (body: Record<string, unknown>) =>
    service.bus.request('health-monitor.v1.create-health-check', { host: '127.0.0.1', ...body } as never, {
      context: admin,
    });
  const get = (id: string) => service.bus.request('health-monitor.v1.get-health-check', { id });
  const update = (id: string, body: Record<string, unknown>) =>
    service.bus.request('health-monitor.v1.update-health-check', { id, ...body } as never, {
      context: admin,
    });

  /** Makes one check due now and runs the loop once, with the clock `advanceMs` later. */
  async function probeOnce(id: string, advanceMs = 60_000): Promise<HealthCheckDto> {
    clock.current = new Date(clock.current.getTime() + advanceMs);
    await service.sql.query('UPDATE health_checks SET next_check_at = $2 WHERE id = $1', [id, clock.current]);
    await loop.runDue();
    return get(id);
  }

  const statusEvents = async (id: string) =>
    (
      await service.sql.query<{ envelope: EventEnvelope<HealthCheckStatusChanged> }>(
        `SELECT envelope FROM outbox WHERE subject = 'health-monitor.v1.health-check.status-changed'
           AND envelope->'data'->>'health_check_id' = $1 ORDER BY seq`,
        [id],
      )
    ).rows.map((row) => `${row.envelope.data.from}->${row.envelope.data.to}`);

  beforeAll(async () => {
    [good, other] = await Promise.all([createTlsFixture('good.test'), createTlsFixture('other.test')]);
    [healthy, wrong, slow, refusing] = await Promise.all([
      tlsServer('127.0.0.2', good),
      tlsServer('127.0.0.3', other),
      silentServer('127.0.0.4'),
      refusingPort('127.0.0.5'),
    ]);
    service = await startInProcessService({
      services: ['health-monitor'],
      modules: [HealthMonitorModule.forRoot({ clock, timer: false })],
      env: { SERVICE_NETWORK_ALLOW_CIDRS: '127.0.0.0/8' },
      label: 'healthloop',
    });
    loop = service.module.get(HealthMonitorLoop);
    service.module.get(TlsProber).timeoutMs = 500;
  }, 30_000);

  afterAll(async () => {
    await service?.close();
    slow?.sockets.forEach((socket) => socket.destroy());
    await Promise.all(
      [healthy, wrong, slow?.server].map((server) => server && new Promise((r) => server.close(r))),
    );
  });

  beforeEach(async () => {
    // Only the checks a test creates are due.
    await service.sql.query(`UPDATE health_checks SET enabled = false`);
  });

  it('records a healthy endpoint: fingerprint, expiry, TLS version, handshake time and the served chain', async () => {
    const check = await create({
      host: '127.0.0.2',
      port: portOf(healthy),
      sni: 'good.test',
      expected_fingerprint: good.fingerprint,
    });
    const after = await probeOnce(check.id);
    expect(after).toMatchObject({
      status: 'healthy',
      consecutive_failures: 0,
      last_error: null,
      last_fingerprint: good.fingerprint,
    });
    expect(after.last_not_after).toBe(new Date(new X509Certificate(good.certPem).validTo).toISOString());
    const history = await service.bus.request('health-monitor.v1.list-health-check-history', {
      id: check.id,
    });
    expect(history.total).toBe(1);
    expect(history.data[0]).toMatchObject({
      success: true,
      status: 'healthy',
      tls_version: 'TLSv1.3',
      fingerprint: good.fingerprint,
      error: null,
    });
    expect(history.data[0].handshake_ms).toBeGreaterThanOrEqual(0);
    expect(history.data[0].chain).toEqual([
      expect.objectContaining({
        subject: expect.stringContaining('CN=good.test'),
        fingerprint_sha256: good.fingerprint,
      }),
    ]);
  });

  it("stores the STARTTLS protocol of a check, with that protocol's port by default, and refuses another one", async () => {
    const smtp = await create({ host: 'mail.example.com', starttls: 'smtp', enabled: false });
    expect(smtp).toMatchObject({ starttls: 'smtp', port: 25, name: 'mail.example.com:25' });
    expect(await create({ host: 'imap.example.com', starttls: 'imap', enabled: false })).toMatchObject({
      starttls: 'imap',
      port: 143,
    });
    expect(await create({ host: 'web.example.com', enabled: false })).toMatchObject({
      starttls: null,
      port: 443,
    });
    expect(await update(smtp.id, { port: 587 })).toMatchObject({ starttls: 'smtp', port: 587 });
    expect(await update(smtp.id, { starttls: null })).toMatchObject({ starttls: null, port: 587 });
    await expect(create({ host: 'pop.example.com', starttls: 'pop3' })).rejects.toMatchObject({
      code: 'validation_failed',
    });
  });

  it('goes degraded after 2 refused connections, down after 5, and back to healthy, emitting each change (spec 3)', async () => {
    const check = await create({ host: '127.0.0.5', port: refusing });
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) seen.push((await probeOnce(check.id)).status);
    expect(seen).toEqual(['healthy', 'degraded', 'degraded', 'degraded', 'down']);
    expect((await get(check.id)).last_error).toContain('ECONNREFUSED');
    await update(check.id, { host: '127.0.0.2', port: portOf(healthy) });
    expect((await probeOnce(check.id)).status).toBe('healthy');
    expect(await statusEvents(check.id)).toEqual(['healthy->degraded', 'degraded->down', 'down->healthy']);
  });

  it('reports cert_mismatch when the served certificate is not the expected one', async () => {
    const check = await create({
      host: '127.0.0.3',
      port: portOf(wrong),
      expected_fingerprint: good.fingerprint,
    });
    const after = await probeOnce(check.id);
    expect(after).toMatchObject({ status: 'cert_mismatch', last_fingerprint: other.fingerprint });
    expect(after.last_error).toContain('is not the expected');
    expect(await statusEvents(check.id)).toEqual(['healthy->cert_mismatch']);
  });

  it('counts a certificate past its notAfter as a failure (fake clock 31 days on)', async () => {
    const check = await create({ host: '127.0.0.2', port: portOf(healthy) });
    const first = await probeOnce(check.id, 31 * DAY_MS);
    expect(first).toMatchObject({ status: 'healthy', consecutive_failures: 1 });
    expect(first.last_error).toMatch(/^certificate expired at /);
    expect((await probeOnce(check.id)).status).toBe('degraded');
    clock.current = new Date();
  });

  it('fails a server that accepts TCP but never completes the handshake (slow)', async () => {
    const check = await create({ host: '127.0.0.4', port: portOf(slow.server) });
    const after = await probeOnce(check.id);
    expect(after).toMatchObject({ consecutive_failures: 1, last_error: 'no TLS handshake within 500 ms' });
  });

  it('refuses reserved addresses the allow-list does not name, without connecting', async () => {
    const metadata = await create({ host: '169.254.169.254', port: 80 });
    const ipv6Loopback = await create({ host: '::1', port: portOf(healthy) });
    expect((await probeOnce(metadata.id)).last_error).toBe(
      'refused to connect to 169.254.169.254: reserved address (cloud_metadata)',
    );
    expect((await probeOnce(ipv6Loopback.id)).last_error).toBe(
      'refused to connect to ::1: reserved address (loopback)',
    );
  });

  it('keeps an acknowledgement while the status stays and clears it when it changes', async () => {
    const check = await create({ host: '127.0.0.5', port: refusing });
    await probeOnce(check.id);
    await probeOnce(check.id);
    const acknowledged = await service.bus.request(
      'health-monitor.v1.acknowledge-health-check',
      { id: check.id },
      { context: admin },
    );
    expect(acknowledged).toMatchObject({
      status: 'degraded',
      acknowledged: true,
      acknowledged_by: 'actor-health-test',
    });
    expect(await probeOnce(check.id)).toMatchObject({ status: 'degraded', acknowledged: true });
    await probeOnce(check.id);
    expect(await probeOnce(check.id)).toMatchObject({
      status: 'down',
      acknowledged: false,
      acknowledged_at: null,
    });
  });

  it('lets concurrent claimers share due checks without probing one twice (FOR UPDATE SKIP LOCKED)', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await create({ host: '127.0.0.5', port: refusing })).id);
    clock.current = new Date(clock.current.getTime() + 60_000);
    await service.sql.query('UPDATE health_checks SET next_check_at = $2 WHERE id = ANY($1)', [
      ids,
      clock.current,
    ]);
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => loop.runDue()));
    const all = [...a, ...b, ...c];
    expect(new Set(all).size).toBe(all.length);
    expect([...all].sort()).toEqual([...ids].sort());
    const histories = await Promise.all(
      ids.map((id) => service.bus.request('health-monitor.v1.list-health-check-history', { id })),
    );
    expect(histories.map((h) => h.total)).toEqual(ids.map(() => 1));
    // Claimed checks moved one interval on, keeping their phase.
    const next = await get(ids[0]);
    expect(Date.parse(next.next_check_at)).toBe(clock.current.getTime() + 300_000);
  });

  it('keeps the newest 500 results of a check and drops older ones', async () => {
    const check = await create({ host: '127.0.0.5', port: refusing });
    await service.sql.query(
      `INSERT INTO health_check_results (health_check_id, checked_at, success, status, error)
       SELECT $1, now(), false, 'healthy', 'old ' || n FROM generate_series(1, 499) AS n`,
      [check.id],
    );
    await probeOnce(check.id);
    await probeOnce(check.id);
    const history = await service.bus.request('health-monitor.v1.list-health-check-history', {
      id: check.id,
      per_page: 500,
    });
    expect(history.total).toBe(500);
    expect(history.data[0].error).toContain('ECONNREFUSED');
    expect(history.data[499].error).toBe('old 2');
  });

  it("trims the stored history to 500 every 50th probe of a check, in the probe's transaction", async () => {
    const check = await create({ host: '127.0.0.5', port: refusing });
    await service.sql.query(
      `INSERT INTO health_check_results (health_check_id, checked_at, success, status, error)
       SELECT $1, now(), false, 'healthy', 'old ' || n FROM generate_series(1, 540) AS n`,
      [check.id],
    );
    const stored = async () =>
      Number(
        (
          await service.sql.query<{ n: string }>(
            'SELECT count(*) AS n FROM health_check_results WHERE health_check_id = $1',
            [check.id],
          )
        ).rows[0].n,
      );
    await service.sql.query('UPDATE health_checks SET results_since_trim = 48 WHERE id = $1', [check.id]);
    await probeOnce(check.id);
    expect(await stored()).toBe(541);
    await probeOnce(check.id);
    expect(await stored()).toBe(500);
    const newest = await service.bus.request('health-monitor.v1.list-health-check-history', { id: check.id });
    expect(newest.data[0].error).toContain('ECONNREFUSED');
    const { rows } = await service.sql.query<{ results_since_trim: number }>(
      'SELECT results_since_trim FROM health_checks WHERE id = $1',
      [check.id],
    );
    expect(rows[0].results_since_trim).toBe(0);
  });
});
