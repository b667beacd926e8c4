import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { createServer, Server } from 'node:tls';
import {
  CertificateDto,
  DiscoveredCertificateDto,
  DiscoveryBulkResult,
  NetworkScanDto,
  Page,
  ScanTargetDto,
} from '@certlane/contracts';
import { createTlsFixture, httpsRequest, startTestSystem, TestSystem, TlsFixture } from '@certlane/testing';
import { Client } from 'pg';

async function tlsServer(host: string, port: number, fixture: TlsFixture): Promise<Server> {
  const server = createServer(
    { cert: readFileSync(fixture.certPath), key: readFileSync(fixture.keyPath) },
    (socket) => socket.end(),
  );
  server.listen(port, host);
  await once(server, 'listening');
  return server;
}

/**
 * Scan targets and triggered scans (ADR 0057) through the real gateway, auth and health-monitor
 * processes over NATS and Postgres, scanning TLS servers on loopback (allow-listed).
 */
describe('network scan targets through gateway -> NATS -> health-monitor -> Postgres', () => {
  let system: TestSystem;
  let db: Client;
  let fixture: TlsFixture;
  let port: number;
  const servers: Server[] = [];

  const api = (method: string, path: string, body?: unknown) =>
    httpsRequest(`${system.services['api-gateway'].url}/api/v1${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  async function finished(id: string): Promise<NetworkScanDto> {
    for (;;) {
      const scan = (await api('GET', `/network-scan/scans/${id}`)).json() as NetworkScanDto;
      if (scan.status !== 'running') return scan;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  beforeAll(async () => {
    fixture = await createTlsFixture('scanned.test');
    servers.push(await tlsServer('127.0.0.41', 0, fixture));
    port = (servers[0].address() as AddressInfo).port;
    servers.push(await tlsServer('127.0.0.45', port, fixture));
    system = await startTestSystem('netscan', ['auth', 'issuance', 'health-monitor', 'api-gateway'], {
      SERVICE_NETWORK_ALLOW_CIDRS: '127.0.0.0/8',
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('creates a target, triggers a scan recorded with who started it, and finds the certificate at both addresses', async () => {
    const created = await api('POST', '/network-scan/targets', {
      name: 'loopback',
      cidrs: ['127.0.0.40/29'],
      ports: [port],
      concurrency: 4,
      rate_per_second: 500,
    });
    expect(created.status).toBe(201);
    const target = created.json() as ScanTargetDto;
    expect(target).toMatchObject({ name: 'loopback', endpoints: 8, hosts: [], last_scan_id: null });
    expect((await api('GET', `/network-scan/targets/${target.id}`)).json()).toEqual(target);

    const triggered = await api('POST', `/network-scan/targets/${target.id}/trigger`);
    expect(triggered.status).toBe(202);
    const started = triggered.json() as NetworkScanDto;
    expect(started).toMatchObject({ target_id: target.id, status: 'running', endpoints_total: 8 });
    expect(started.started_by).not.toBe('');

    const scan = await finished(started.id);
    expect(scan).toMatchObject({
      status: 'completed',
      endpoints_total: 8,
      endpoints_done: 8,
      certificates_found: 1,
      error: null,
      started_by: started.started_by,
    });
    expect(scan.finished_at).not.toBeNull();
    const found = (
      await api('GET', `/discovered-certificates/${fixture.fingerprint}`)
    ).json() as DiscoveredCertificateDto;
    expect(found.seen_at.map((sighting) => [sighting.location, sighting.scan_id])).toEqual([
      [`network:127.0.0.41:${port}`, started.id],
      [`network:127.0.0.45:${port}`, started.id],
    ]);
    const listed = (
      await api('GET', `/network-scan/scans?target_id=${target.id}`)
    ).json() as Page<NetworkScanDto>;
    expect(listed.data.map((s) => s.id)).toEqual([started.id]);
    expect(
      ((await api('GET', `/network-scan/targets/${target.id}`)).json() as ScanTargetDto).last_scan_id,
    ).toBe(started.id);
    // The audit event went to the health-monitor outbox in the trigger's transaction.
    const audit = await db.query(
      `SELECT envelope FROM health_monitor.outbox WHERE subject = 'health-monitor.v1.audit.recorded'
         AND envelope::text LIKE '%network_scan.started%' AND envelope::text LIKE $1`,
      [`%${started.id}%`],
    );
    expect(audit.rows).toHaveLength(1);
    expect(JSON.stringify(audit.rows[0].envelope)).toContain(`"actor_id":"${started.started_by}"`);
    expect(JSON.stringify(audit.rows[0].envelope)).toContain(`"target_id":"${target.id}"`);
  });

  it('updates a target, refuses an unsweepable one with 400, and deletes it keeping its scans', async () => {
    const target = (
      await api('POST', '/network-scan/targets', { hosts: ['127.0.0.45'], ports: [port] })
    ).json() as ScanTargetDto;
    const updated = await api('PUT', `/network-scan/targets/${target.id}`, { ports: [port, port + 1] });
    expect(updated.status).toBe(200);
    expect(updated.json()).toMatchObject({ hosts: ['127.0.0.45'], ports: [port, port + 1], endpoints: 2 });
    const ipv6Range = await api('PUT', `/network-scan/targets/${target.id}`, { cidrs: ['fd00::/64'] });
    expect(ipv6Range.status).toBe(400);
    expect(ipv6Range.json()).toMatchObject({ code: 'scan_target_invalid' });
    const tooLarge = await api('POST', '/network-scan/targets', { cidrs: ['10.0.0.0/8'], ports: [443] });
    expect(tooLarge.status).toBe(400);
    expect((await api('POST', '/network-scan/targets', { ports: [443] })).status).toBe(400);
    expect((await api('POST', '/network-scan/targets', { hosts: ['a.test'], ports: [0] })).status).toBe(400);

    const scan = (await api('POST', `/network-scan/targets/${target.id}/trigger`)).json() as NetworkScanDto;
    await finished(scan.id);
    expect((await api('DELETE', `/network-scan/targets/${target.id}`)).status).toBe(204);
    expect((await api('GET', `/network-scan/targets/${target.id}`)).status).toBe(404);
    expect((await api('POST', `/network-scan/targets/${target.id}/trigger`)).status).toBe(404);
    expect((await api('GET', `/network-scan/scans/${scan.id}`)).json()).toMatchObject({
      target_id: target.id,
      status: 'completed',
    });
    expect((await api('GET', '/network-scan/scans/scan-none')).status).toBe(404);
  });

  it('claims a discovered certificate: imported into the inventory as the served certificate, once', async () => {
    const claimed = await api('POST', `/discovered-certificates/${fixture.fingerprint}/claim`, {
      name: 'found by a scan',
      environment: 'production',
    });
    expect(claimed.status).toBe(200);
    const discovered = claimed.json() as DiscoveredCertificateDto;
    expect(discovered.status).toBe('Claimed');
    expect(discovered.managed_certificate_id).toEqual(expect.any(String));
    const managed = (
      await api('GET', `/certificates/${discovered.managed_certificate_id}`)
    ).json() as CertificateDto;
    expect(managed).toMatchObject({
      name: 'found by a scan',
      common_name: 'scanned.test',
      environment: 'production',
    });
    expect(managed.tags).toMatchObject({ discovered: fixture.fingerprint });
    expect((await api('GET', `/discovered-certificates/${fixture.fingerprint}`)).json()).toMatchObject({
      status: 'Claimed',
      managed_certificate_id: managed.id,
    });
    const again = await api('POST', `/discovered-certificates/${fixture.fingerprint}/claim`, {});
    expect(again.status).toBe(409);
    expect(again.json()).toMatchObject({ code: 'discovered_certificate_claimed' });
  });

  it('refuses to claim a certificate whose PEM was not kept (409 discovered_certificate_not_importable)', async () => {
    const id = 'cd'.repeat(32);
    await db.query(
      `INSERT INTO health_monitor.discovered_certificates (fingerprint, subject, issuer, not_before, not_after, first_seen_at, last_seen_at)
       VALUES ($1, 'CN=old.test', 'CN=old.test', now(), now() + interval '1 day', now(), now())`,
      [id],
    );
    const response = await api('POST', `/discovered-certificates/${id}/claim`, {});
    expect(response.status).toBe(409);
    expect(response.json()).toMatchObject({ code: 'discovered_certificate_not_importable' });
    expect((await api('GET', `/discovered-certificates/${id}`)).json()).toMatchObject({
      status: 'Unmanaged',
    });
  });

  it('claims and dismisses in bulk: per-item results, one audit event per call', async () => {
    const [a, b] = await Promise.all([createTlsFixture('bulk-a.test'), createTlsFixture('bulk-b.test')]);
    for (const f of [a, b]) {
      await db.query(
        `INSERT INTO health_monitor.discovered_certificates (fingerprint, subject, issuer, not_before, not_after, first_seen_at, last_seen_at, certificate_pem)
         VALUES ($1, 'CN=bulk', 'CN=bulk', now(), now() + interval '30 days', now(), now(), $2)`,
        [f.fingerprint, f.certPem],
      );
    }
    const unknown = 'ee'.repeat(32);
    const dismissed = await api('POST', '/discovered-certificates/bulk-dismiss', {
      ids: [a.fingerprint, unknown, fixture.fingerprint],
    });
    expect(dismissed.status).toBe(200);
    expect(dismissed.json()).toMatchObject({
      total_requested: 3,
      total_changed: 1,
      total_unchanged: 0,
      total_failed: 2,
      changed: [{ id: a.fingerprint, status: 'Dismissed', managed_certificate_id: null }],
    });
    expect((dismissed.json() as DiscoveryBulkResult).errors.map((e) => [e.id, e.code]).sort()).toEqual(
      [
        [fixture.fingerprint, 'discovered_certificate_claimed'],
        [unknown, 'discovered_certificate_not_found'],
      ].sort(),
    );
    const again = (
      await api('POST', '/discovered-certificates/bulk-dismiss', { ids: [a.fingerprint] })
    ).json() as DiscoveryBulkResult;
    expect(again).toMatchObject({ total_changed: 0, total_unchanged: 1, unchanged: [a.fingerprint] });

    // A dismissed certificate can still be claimed; the claimed one fails alone.
    const claimed = await api('POST', '/discovered-certificates/bulk-claim', {
      ids: [a.fingerprint, b.fingerprint, fixture.fingerprint],
      environment: 'staging',
    });
    expect(claimed.status).toBe(200);
    const result = claimed.json() as DiscoveryBulkResult;
    expect(result).toMatchObject({ total_requested: 3, total_changed: 2, total_failed: 1 });
    expect(result.errors).toEqual([
      expect.objectContaining({ id: fixture.fingerprint, code: 'discovered_certificate_claimed' }),
    ]);
    for (const item of result.changed) {
      const managed = (
        await api('GET', `/certificates/${item.managed_certificate_id}`)
      ).json() as CertificateDto;
      expect(managed).toMatchObject({ environment: 'staging', tags: { discovered: item.id } });
    }
    const audits = await db.query(
      `SELECT envelope FROM health_monitor.outbox WHERE subject = 'health-monitor.v1.audit.recorded'
         AND envelope::text LIKE '%discovered_certificate.bulk_%'`,
    );
    expect(audits.rows).toHaveLength(3);

    expect((await api('POST', '/discovered-certificates/bulk-claim', { ids: [] })).status).toBe(400);
    expect((await api('POST', '/discovered-certificates/bulk-dismiss', { ids: ['nope'] })).status).toBe(400);
  });
});
