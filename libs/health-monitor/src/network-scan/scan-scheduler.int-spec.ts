import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { createServer, Server } from 'node:tls';
import { RequestContext } from '@certlane/contracts';
import { createTlsFixture, eventually, TlsFixture } from '@certlane/testing';
import { InProcessService, startInProcessService } from '@certlane/testing-in-process';
import { scanLostAfterMs } from '@certlane/health-monitor-domain';
import { PROBE_TIMEOUT_MS } from '../health-checks/tls-prober';
import { HealthMonitorModule } from '../health-monitor.module';
import { ScanScheduler } from './scan-scheduler';

const admin: RequestContext = { actor_id: 'actor-schedule-test', request_id: 'req-schedule' };
const HOUR_MS = 3_600_000;

/** A clock the test moves by hand. */
const clock = {
  current: new Date(),
  now() {
    return new Date(this.current);
  },
};

/** Scheduled scans (ADR 0063) with a fake clock against a real TLS server on loopback. */
describe('scheduled network scans', () => {
  let service: InProcessService;
  let scheduler: ScanScheduler;
  let fixture: TlsFixture;
  let server: Server;
  let port: number;

  const scansOf = async (targetId: string) =>
    (
      await service.sql.query(
        'SELECT id, status, started_by, scheduled FROM network_scans WHERE target_id = $1 ORDER BY started_at',
        [targetId],
      )
    ).rows;

  beforeAll(async () => {
    fixture = await createTlsFixture('scheduled.test');
    server = createServer(
      { cert: readFileSync(fixture.certPath), key: readFileSync(fixture.keyPath) },
      (socket) => socket.end(),
    );
    server.listen(0, '127.0.0.51');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
    service = await startInProcessService({
      services: ['health-monitor'],
      modules: [HealthMonitorModule.forRoot({ clock, timer: false })],
      env: { SERVICE_NETWORK_ALLOW_CIDRS: '127.0.0.0/8' },
      label: 'scansched',
    });
    scheduler = service.module.get(ScanScheduler);
  }, 30_000);

  afterAll(async () => {
    await service?.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('stores a schedule with its first due time one period on, and clears it with null', async () => {
    const target = await service.bus.request(
      'health-monitor.v1.create-scan-target',
      { hosts: ['127.0.0.51'], ports: [port], schedule_seconds: 3600 },
      { context: admin },
    );
    expect(target.schedule_seconds).toBe(3600);
    expect(target.next_scan_at).toBe(new Date(clock.current.getTime() + HOUR_MS).toISOString());
    const kept = await service.bus.request(
      'health-monitor.v1.update-scan-target',
      { id: target.id, name: 'renamed' },
      { context: admin },
    );
    expect(kept.next_scan_at).toBe(target.next_scan_at);
    const cleared = await service.bus.request(
      'health-monitor.v1.update-scan-target',
      { id: target.id, schedule_seconds: null },
      { context: admin },
    );
    expect(cleared).toMatchObject({ schedule_seconds: null, next_scan_at: null });
    await expect(
      service.bus.request(
        'health-monitor.v1.update-scan-target',
        { id: target.id, schedule_seconds: 60 },
        { context: admin },
      ),
    ).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('starts a due scan once even when two replicas tick together, as system, audited, and finds the certificate', async () => {
    const target = await service.bus.request(
      'health-monitor.v1.create-scan-target',
      { hosts: ['127.0.0.51'], ports: [port], schedule_seconds: 3600 },
      { context: admin },
    );
    expect(await scheduler.runDue()).toEqual([]); // not due yet
    clock.current = new Date(clock.current.getTime() + HOUR_MS + 1000);
    // Two ticks at once stand for two replicas: FOR UPDATE SKIP LOCKED gives the slot to one.
    const [a, b] = await Promise.all([scheduler.runDue(), scheduler.runDue()]);
    const started = [...a, ...b].filter((run) => run.target_id === target.id);
    expect(started).toHaveLength(1);
    expect(started[0].skipped).toBeNull();
    await eventually(
      async () => (await scansOf(target.id))[0]?.status === 'completed',
      'the scheduled scan to complete',
    );
    expect(await scansOf(target.id)).toEqual([
      { id: started[0].scan_id, status: 'completed', started_by: 'system', scheduled: true },
    ]);
    const found = await service.sql.query(
      'SELECT scan_id FROM discovered_certificate_sightings WHERE fingerprint = $1',
      [fixture.fingerprint],
    );
    expect(found.rows).toEqual([{ scan_id: started[0].scan_id }]);
    const audit = await service.sql.query(
      `SELECT envelope FROM outbox WHERE envelope::text LIKE '%network_scan.started%' AND envelope::text LIKE $1`,
      [`%${started[0].scan_id}%`],
    );
    expect(audit.rows).toHaveLength(1);
    expect(JSON.stringify(audit.rows[0].envelope)).toContain('"actor_id":"system"');
    const after = await service.bus.request('health-monitor.v1.get-scan-target', { id: target.id });
    expect(after.next_scan_at).toBe(
      new Date(new Date(target.next_scan_at!).getTime() + HOUR_MS).toISOString(),
    );
  });

  it('skips a slot while the previous scan of the target still runs, and moves on', async () => {
    const target = await service.bus.request(
      'health-monitor.v1.create-scan-target',
      { hosts: ['127.0.0.51'], ports: [port], schedule_seconds: 900 },
      { context: admin },
    );
    clock.current = new Date(clock.current.getTime() + 900_000);
    // Still running: its progress moved a moment ago.
    await service.sql.query(
      `INSERT INTO network_scans (id, target_id, ports, status, endpoints_total, started_by, started_at, progress_at)
       VALUES ('scan-still-running', $1, '[1]'::jsonb, 'running', 1, 'someone', $2, $2)`,
      [target.id, new Date(clock.current.getTime() - 1000)],
    );
    const runs = (await scheduler.runDue()).filter((run) => run.target_id === target.id);
    expect(runs).toEqual([{ target_id: target.id, scan_id: null, skipped: 'previous_scan_running' }]);
    expect((await scansOf(target.id)).map((scan) => scan.id)).toEqual(['scan-still-running']);
    const after = await service.bus.request('health-monitor.v1.get-scan-target', { id: target.id });
    expect(new Date(after.next_scan_at!).getTime()).toBeGreaterThan(clock.current.getTime());
  });

  // Regression: a replica killed mid-scan left its scan `running` forever, so every later slot
  // of the target was skipped as `previous_scan_running`.
  it('marks a running scan whose progress stood still too long failed (its replica was lost) and scans the target', async () => {
    const target = await service.bus.request(
      'health-monitor.v1.create-scan-target',
      { hosts: ['127.0.0.51'], ports: [port], schedule_seconds: 900 },
      { context: admin },
    );
    clock.current = new Date(clock.current.getTime() + 900_000);
    const stalled = new Date(clock.current.getTime() - scanLostAfterMs(PROBE_TIMEOUT_MS) - 1000);
    await service.sql.query(
      `INSERT INTO network_scans (id, target_id, ports, status, endpoints_total, started_by, started_at, progress_at)
       VALUES ('scan-replica-lost', $1, '[1]'::jsonb, 'running', 1, 'someone', $2, $2)`,
      [target.id, stalled],
    );
    const runs = (await scheduler.runDue()).filter((run) => run.target_id === target.id);
    expect(runs).toEqual([{ target_id: target.id, scan_id: expect.any(String), skipped: null }]);
    const lost = await service.sql.query(
      `SELECT status, error, finished_at FROM network_scans WHERE id = 'scan-replica-lost'`,
    );
    expect(lost.rows).toEqual([
      {
        status: 'failed',
        error: expect.stringContaining('the replica running this scan was lost'),
        finished_at: clock.current,
      },
    ]);
    await eventually(
      async () =>
        (await scansOf(target.id)).some((scan) => scan.id === runs[0].scan_id && scan.status === 'completed'),
      'the new scan to complete',
    );
  });
});
