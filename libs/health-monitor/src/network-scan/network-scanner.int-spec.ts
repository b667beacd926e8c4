import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { createServer, Server } from 'node:tls';
import { createTlsFixture, TlsFixture } from '@certlane/testing';
import { InProcessService, startInProcessService } from '@certlane/testing-in-process';
import { HealthMonitorModule } from '../health-monitor.module';
import { TlsProber } from '../health-checks/tls-prober';
import { DiscoveryRecorder } from '../discovery/discovery-recorder';
import { NetworkScanner } from './network-scanner';

async function tlsServer(host: string, port: number, fixture: TlsFixture): Promise<Server> {
  const server = createServer(
    { cert: readFileSync(fixture.certPath), key: readFileSync(fixture.keyPath) },
    (s) => s.end(),
  );
  server.listen(port, host);
  await once(server, 'listening');
  return server;
}

/** A network scan over a loopback range with TLS servers on some addresses (ADR 0057). */
describe('network scan over a loopback range', () => {
  let service: InProcessService;
  let scanner: NetworkScanner;
  let shared: TlsFixture;
  let single: TlsFixture;
  const servers: Server[] = [];
  let port: number;

  const scan = (over: Partial<Parameters<NetworkScanner['run']>[0]> = {}) =>
    scanner.run({
      cidrs: ['127.0.0.16/28'],
      hosts: [],
      ports: [port],
      concurrency: 8,
      ratePerSecond: 1000,
      startedBy: 'actor-scan-test',
      ...over,
    });

  const foundEvents = async () =>
    (
      await service.sql.query(
        `SELECT envelope->'data' AS data FROM outbox
          WHERE subject = 'health-monitor.v1.discovered-certificate.found' ORDER BY envelope->'data'->>'subject'`,
      )
    ).rows.map((row) => row.data);

  beforeAll(async () => {
    [shared, single] = await Promise.all([createTlsFixture('shared.test'), createTlsFixture('single.test')]);
    servers.push(await tlsServer('127.0.0.17', 0, shared));
    port = (servers[0].address() as AddressInfo).port;
    servers.push(await tlsServer('127.0.0.20', port, shared), await tlsServer('127.0.0.30', port, single));
    service = await startInProcessService({
      services: ['health-monitor'],
      modules: [HealthMonitorModule.forRoot({ timer: false })],
      env: { SERVICE_NETWORK_ALLOW_CIDRS: '127.0.0.0/8' },
      label: 'netscan',
    });
    scanner = service.module.get(NetworkScanner);
  }, 30_000);

  afterAll(async () => {
    await service?.close();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('probes every address of the range and stores each certificate once, with every place it was seen', async () => {
    const result = await scan();
    expect(result).toMatchObject({
      status: 'completed',
      endpoints_total: 16,
      endpoints_done: 16,
      certificates_found: 2,
    });
    const certificates = await service.sql.query(
      'SELECT fingerprint, status, subject FROM discovered_certificates ORDER BY subject',
    );
    expect(certificates.rows).toEqual([
      {
        fingerprint: shared.fingerprint,
        status: 'Unmanaged',
        subject: expect.stringContaining('CN=shared.test'),
      },
      {
        fingerprint: single.fingerprint,
        status: 'Unmanaged',
        subject: expect.stringContaining('CN=single.test'),
      },
    ]);
    const sightings = await service.sql.query(
      'SELECT location FROM discovered_certificate_sightings WHERE fingerprint = $1 ORDER BY location',
      [shared.fingerprint],
    );
    expect(sightings.rows.map((row) => row.location)).toEqual([
      `network:127.0.0.17:${port}`,
      `network:127.0.0.20:${port}`,
    ]);
    const stored = await service.sql.query(
      'SELECT status, endpoints_done, started_by FROM network_scans WHERE id = $1',
      [result.id],
    );
    expect(stored.rows[0]).toEqual({
      status: 'completed',
      endpoints_done: 16,
      started_by: 'actor-scan-test',
    });
    // One first-sighting event per certificate (the notifier's discovery.found), in the outbox.
    expect(await foundEvents()).toEqual([
      expect.objectContaining({
        fingerprint: shared.fingerprint,
        source: 'network',
        scan_id: result.id,
        location: expect.stringMatching(new RegExp(`^network:127\\.0\\.0\\.(17|20):${port}$`)),
      }),
      expect.objectContaining({ fingerprint: single.fingerprint, location: `network:127.0.0.30:${port}` }),
    ]);
  });

  it('keeps a dismissed certificate dismissed when a later scan finds it again, moving last_seen', async () => {
    await service.sql.query(
      `UPDATE discovered_certificates SET status = 'Dismissed' WHERE fingerprint = $1`,
      [single.fingerprint],
    );
    const before = await service.sql.query(
      'SELECT last_seen_at FROM discovered_certificates WHERE fingerprint = $1',
      [single.fingerprint],
    );
    await scan({ cidrs: ['127.0.0.30/32'] });
    const after = await service.sql.query(
      'SELECT status, last_seen_at FROM discovered_certificates WHERE fingerprint = $1',
      [single.fingerprint],
    );
    expect(after.rows[0].status).toBe('Dismissed');
    expect(after.rows[0].last_seen_at.getTime()).toBeGreaterThan(before.rows[0].last_seen_at.getTime());
    expect(
      (await service.sql.query('SELECT count(*)::int AS n FROM discovered_certificates')).rows[0].n,
    ).toBe(2);
    // Found again: no second first-sighting event.
    expect(await foundEvents()).toHaveLength(2);
  });

  it('holds to the connection rate: 16 endpoints at 20 per second take at least 0.75 s', async () => {
    const started = Date.now();
    await scan({ ratePerSecond: 20, concurrency: 16 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(750);
  });

  // Regression: when one worker threw, the scan was marked failed while the other workers went on
  // probing (and writing progress) behind it.
  it('stops every worker when one fails, and records the failure only once all have stopped', async () => {
    const prober = service.module.get(TlsProber);
    let calls = 0;
    let inFlight = 0;
    const spy = jest.spyOn(prober, 'probe').mockImplementation(async () => {
      if (++calls === 1) throw new Error('the prober broke');
      inFlight++;
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return {
        observation: { kind: 'error', error: 'refused' },
        handshake_ms: null,
        tls_version: null,
        chain: [],
      };
    });
    try {
      const result = await scan({ cidrs: ['127.0.0.64/26'], concurrency: 4, ratePerSecond: 10_000 });
      expect(result.status).toBe('failed');
      // The other three workers each finished the probe in hand and took no further endpoint.
      expect(inFlight).toBe(0);
      expect(calls).toBeLessThanOrEqual(4);
      const row = await service.sql.query(
        'SELECT status, error, endpoints_done FROM network_scans WHERE id = $1',
        [result.id],
      );
      expect(row.rows).toEqual([
        { status: 'failed', error: 'the prober broke', endpoints_done: result.endpoints_done },
      ]);
    } finally {
      spy.mockRestore();
    }
  });

  describe('a scan the scheduler marked failed as lost while it still ran (ADR 0063 amendment)', () => {
    const LOST = 'the replica running this scan was lost: no progress for more than 213 s';
    /** A prober whose first probe marks the running scan failed, as the scheduler's sweep does. */
    const proberThatLosesTheScan = () => {
      let calls = 0;
      const spy = jest.spyOn(service.module.get(TlsProber), 'probe').mockImplementation(async () => {
        if (++calls === 1)
          await service.sql.query(
            `UPDATE network_scans SET status = 'failed', error = $1 WHERE status = 'running'`,
            [LOST],
          );
        return {
          observation: { kind: 'error', error: 'refused' },
          handshake_ms: null,
          tls_version: null,
          chain: [],
        };
      });
      return { spy, calls: () => calls };
    };
    const row = async (id: string) =>
      (await service.sql.query('SELECT status, error FROM network_scans WHERE id = $1', [id])).rows[0];

    it('is not overwritten completed when it finishes', async () => {
      const prober = proberThatLosesTheScan();
      try {
        const result = await scan({ cidrs: ['127.0.0.64/28'], concurrency: 1, ratePerSecond: 10_000 });
        expect(prober.calls()).toBe(16);
        expect(result.status).toBe('failed');
        expect(await row(result.id)).toEqual({ status: 'failed', error: LOST });
      } finally {
        prober.spy.mockRestore();
      }
    });

    it('stops at its next progress write instead of probing the rest', async () => {
      const prober = proberThatLosesTheScan();
      try {
        // Progress is written every 256 endpoints: the scan stops there, not after all 1,024.
        const result = await scan({ cidrs: ['127.0.4.0/22'], concurrency: 1, ratePerSecond: 10_000 });
        expect(prober.calls()).toBe(256);
        expect(result.status).toBe('failed');
        expect(await row(result.id)).toEqual({ status: 'failed', error: LOST });
      } finally {
        prober.spy.mockRestore();
      }
    });
  });

  it('never reaches reserved addresses outside the allow-list, and refuses oversized targets', async () => {
    const result = await scan({ cidrs: ['169.254.169.254/32'], ports: [80] });
    expect(result).toMatchObject({ status: 'completed', endpoints_done: 1, certificates_found: 0 });
    await expect(scan({ cidrs: ['10.0.0.0/8'] })).rejects.toThrow('more than 1048576');
  });

  it('serves triage: list by status and source, get with where it was seen, summary, dismiss (idempotent)', async () => {
    const list = await service.bus.request('health-monitor.v1.list-discovered-certificates', {
      status: 'Unmanaged',
      source: 'network',
    });
    expect(list.data.map((c) => c.id)).toEqual([shared.fingerprint]);
    const got = await service.bus.request('health-monitor.v1.get-discovered-certificate', {
      id: shared.fingerprint,
    });
    expect(got.seen_at.map((s) => s.location)).toEqual([
      `network:127.0.0.17:${port}`,
      `network:127.0.0.20:${port}`,
    ]);
    expect(got.chain[0].fingerprint_sha256).toBe(shared.fingerprint);
    const context = { context: { actor_id: 'actor-triage', request_id: 'req-triage' } };
    const dismissed = await service.bus.request(
      'health-monitor.v1.dismiss-discovered-certificate',
      { id: shared.fingerprint },
      context,
    );
    expect(dismissed.status).toBe('Dismissed');
    const again = await service.bus.request(
      'health-monitor.v1.dismiss-discovered-certificate',
      { id: shared.fingerprint },
      context,
    );
    expect(again.status).toBe('Dismissed');
    expect(
      await service.bus.request('health-monitor.v1.get-discovered-certificate-summary', {}),
    ).toMatchObject({
      total: 2,
      unmanaged: 0,
      dismissed: 2,
      claimed: 0,
    });
  });

  it('refuses to dismiss a claimed certificate (409) and answers 404 for an unknown one', async () => {
    await service.sql.query(`UPDATE discovered_certificates SET status = 'Claimed' WHERE fingerprint = $1`, [
      single.fingerprint,
    ]);
    await expect(
      service.bus.request('health-monitor.v1.dismiss-discovered-certificate', { id: single.fingerprint }),
    ).rejects.toMatchObject({ code: 'discovered_certificate_claimed' });
    await expect(
      service.bus.request('health-monitor.v1.get-discovered-certificate', { id: 'f'.repeat(64) }),
    ).rejects.toMatchObject({ code: 'discovered_certificate_not_found' });
  });

  it('marks a certificate gone when a completed scan of the same target no longer finds it, present when seen again (ADR 0063)', async () => {
    const context = { context: { actor_id: 'actor-gone', request_id: 'req-gone' } };
    const fixture = await createTlsFixture('gone.test');
    let server = await tlsServer('127.0.0.41', port, fixture);
    const target = await service.bus.request(
      'health-monitor.v1.create-scan-target',
      { name: 'gone test', cidrs: ['127.0.0.40/30'], ports: [port], concurrency: 4, rate_per_second: 1000 },
      context,
    );
    // The scan runs in the background after the trigger answers: wait for its recorded end.
    const scanTarget = async () => {
      let scanned = await service.bus.request(
        'health-monitor.v1.trigger-scan-target',
        { id: target.id },
        context,
      );
      while (scanned.status === 'running') {
        await new Promise((resolve) => setTimeout(resolve, 25));
        scanned = await service.bus.request('health-monitor.v1.get-network-scan', { id: scanned.id });
      }
      expect(scanned.status).toBe('completed');
    };
    const get = (id: string) => service.bus.request('health-monitor.v1.get-discovered-certificate', { id });
    await scanTarget();
    expect(await get(fixture.fingerprint)).toMatchObject({
      gone_at: null,
      seen_at: [expect.objectContaining({ gone_at: null })],
    });

    await new Promise((resolve) => server.close(resolve));
    await scanTarget();
    const gone = await get(fixture.fingerprint);
    expect(gone.gone_at).not.toBeNull();
    expect(gone.seen_at).toEqual([
      expect.objectContaining({ location: `network:127.0.0.41:${port}`, gone_at: gone.gone_at }),
    ]);
    const listed = await service.bus.request('health-monitor.v1.list-discovered-certificates', {
      presence: 'gone',
    });
    expect(listed.data.map((c) => c.id)).toEqual([fixture.fingerprint]);
    expect(
      await service.bus.request('health-monitor.v1.get-discovered-certificate-summary', {}),
    ).toMatchObject({ gone: 1 });
    // Certificates seen by other scans are outside this target's scope: still present.
    expect((await get(shared.fingerprint)).gone_at).toBeNull();

    server = await tlsServer('127.0.0.41', port, fixture);
    servers.push(server);
    await scanTarget();
    expect(await get(fixture.fingerprint)).toMatchObject({
      gone_at: null,
      seen_at: [expect.objectContaining({ gone_at: null })],
    });
    const present = await service.bus.request('health-monitor.v1.list-discovered-certificates', {
      presence: 'present',
    });
    expect(present.data.map((c) => c.id)).toContain(fixture.fingerprint);
  });

  it('leaves a sighting an overlapping scan of the target recorded after this one started present (ADR 0057 amendment)', async () => {
    const fingerprint = 'ab'.repeat(32);
    await service.sql.query(
      `INSERT INTO network_scans (id, target_id, ports, status, endpoints_total, started_by, started_at)
       VALUES ('scan-overlap-a', 'tgt-overlap', '[443]', 'running', 1, 'test', now() - interval '1 minute'),
              ('scan-overlap-b', 'tgt-overlap', '[443]', 'completed', 1, 'test', now() - interval '30 seconds')`,
    );
    await service.sql.query(
      `INSERT INTO discovered_certificates (fingerprint, subject, issuer, not_before, not_after, first_seen_at, last_seen_at)
       VALUES ($1, 'CN=overlap', 'CN=overlap', now(), now() + interval '1 day', now(), now())`,
      [fingerprint],
    );
    // Scan B saw the endpoint after scan A started; A (which missed it) then completes.
    await service.sql.query(
      `INSERT INTO discovered_certificate_sightings (fingerprint, location, source, scan_id, first_seen_at, last_seen_at)
       VALUES ($1, 'network:10.9.9.9:443', 'network', 'scan-overlap-b', now(), now())`,
      [fingerprint],
    );
    const executor = {
      query: async (text: string, values?: unknown[]) => (await service.sql.query(text, values)).rows,
    } as unknown as Parameters<DiscoveryRecorder['markGone']>[0];
    const recorder = service.module.get(DiscoveryRecorder);
    expect(
      await recorder.markGone(executor, { kind: 'scan-target', targetId: 'tgt-overlap' }, 'scan-overlap-a'),
    ).toBe(0);
    const sighting = await service.sql.query(
      'SELECT gone_at FROM discovered_certificate_sightings WHERE fingerprint = $1',
      [fingerprint],
    );
    expect(sighting.rows).toEqual([{ gone_at: null }]);
  });
});
