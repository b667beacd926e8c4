import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestContext, SCEP_PROBE_MAX_BYTES } from '@certlane/contracts';
import { eventually } from '@certlane/testing';
import { InProcessService, startInProcessService } from '@certlane/testing-in-process';
import { HealthMonitorModule } from '../health-monitor.module';
import { ScepProber } from './scep-prober';

const admin: RequestContext = { actor_id: 'actor-scep-test', request_id: 'req-scep' };
const clock = {
  current: new Date(),
  now() {
    return new Date(this.current);
  },
};

/** A loopback port nothing listens on now (bound, then closed) for scepserver to take. */
async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  server.close();
  await once(server, 'close');
  return port;
}

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/**
 * The SCEP probe (spec 2.17, 4.9, 8) against micromdm's scepserver (Debian package `scep`) on
 * loopback, which the test allow-lists, and against local servers for the limits.
 */
describe('SCEP probe', () => {
  let service: InProcessService;
  let prober: ScepProber;
  let depot: string;
  let scepserver: ChildProcess;
  let scepUrl: string;
  let huge: Server;
  let silent: Server;

  const probe = (url: string) =>
    service.bus.request('health-monitor.v1.run-scep-probe', { url }, { context: admin });

  beforeAll(async () => {
    depot = mkdtempSync(join(tmpdir(), 'certlane-scep-'));
    execFileSync('scepserver', [
      'ca',
      '-init',
      '-depot',
      join(depot, 'depot'),
      '-keySize',
      '2048',
      '-organization',
      'certlane-test',
    ]);
    huge = createServer((_, response) => response.end(Buffer.alloc(SCEP_PROBE_MAX_BYTES + 1, 'A')));
    silent = createServer(() => undefined);
    const [hugePort, silentPort, scepPort] = await Promise.all([listen(huge), listen(silent), freePort()]);
    scepserver = spawn('scepserver', ['-depot', join(depot, 'depot'), '-port', String(scepPort)], {
      stdio: 'ignore',
    });
    scepUrl = `http://127.0.0.1:${scepPort}/scep`;
    Object.assign(urls, {
      huge: `http://127.0.0.1:${hugePort}/scep`,
      silent: `http://127.0.0.1:${silentPort}/scep`,
    });
    service = await startInProcessService({
      services: ['health-monitor'],
      modules: [HealthMonitorModule.forRoot({ clock, timer: false })],
      env: { SERVICE_NETWORK_ALLOW_CIDRS: '127.0.0.0/8' },
      label: 'scepprobe',
    });
    prober = service.module.get(ScepProber);
    await eventually(
      async () => (await fetch(`${scepUrl}?operation=GetCACaps`).catch(() => null))?.status === 200,
      'scepserver answers GetCACaps',
      10_000,
    );
  }, 30_000);
  const urls = { huge: '', silent: '' };

  afterAll(async () => {
    scepserver?.kill();
    huge?.close();
    silent?.closeAllConnections();
    silent?.close();
    await service?.close();
    rmSync(depot, { recursive: true, force: true });
  });

  it('reports every spec 2.17 field of a real scepserver', async () => {
    const result = await probe(scepUrl);
    expect(result).toMatchObject({
      target_url: scepUrl,
      reachable: true,
      supports_rfc8894: true,
      supports_aes: true,
      supports_post: true,
      supports_renewal: true,
      supports_sha256: true,
      supports_sha512: false,
      expired: false,
      key_algorithm: 'RSA-2048',
      error: null,
    });
    expect(result.capabilities).toEqual(
      expect.arrayContaining(['SCEPStandard', 'POSTPKIOperation', 'Renewal']),
    );
    expect(result.ca_subject).toContain('O=certlane-test');
    expect(result.ca_issuer).toBe(result.ca_subject);
    expect(result.chain_length).toBeGreaterThanOrEqual(1);
    expect(result.days_to_expiry).toBeGreaterThan(3000);
    expect(result.probe_duration_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(result.probed_at)).not.toBeNaN();
  });

  it('answers an empty url with an error in the result', async () => {
    expect(await probe('')).toMatchObject({ reachable: false, error: 'url is empty', capabilities: [] });
    expect(await probe('ftp://127.0.0.1/scep')).toMatchObject({
      reachable: false,
      error: 'url must use http or https',
    });
  });

  it('refuses reserved addresses the allow-list does not name', async () => {
    expect((await probe('http://169.254.169.254/scep')).error).toBe(
      'refused to connect to 169.254.169.254: reserved address (cloud_metadata)',
    );
    expect((await probe('http://[::1]:1/scep')).error).toBe(
      'refused to connect to ::1: reserved address (loopback)',
    );
  });

  it('judges the address the socket dials (DNS rebinding): the name is resolved once per connection, by the dial itself', async () => {
    const original = prober.resolver;
    const port = new URL(scepUrl).port;
    let calls = 0;
    // A rebinding name: public-looking first, the metadata address on every later lookup. The one
    // lookup is the dial's own, so the probe talks to the judged address and nothing else.
    prober.resolver = async () =>
      calls++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '169.254.169.254', family: 4 }];
    try {
      const result = await probe(`http://scep.rebind.test:${port}/scep`);
      expect(result).toMatchObject({ reachable: true, supports_rfc8894: true, error: null });
      expect(calls).toBe(1);

      // The same name, now answering the metadata address when the socket dials: refused.
      prober.resolver = async () => [{ address: '169.254.169.254', family: 4 }];
      expect(await probe(`http://rebound.test:${port}/scep`)).toMatchObject({
        reachable: false,
        error: 'refused to connect to 169.254.169.254: reserved address (cloud_metadata)',
      });

      // Every answer is judged: one reserved address among allowed ones refuses the name.
      prober.resolver = async () => [
        { address: '127.0.0.1', family: 4 },
        { address: 'fe80::1', family: 6 },
      ];
      expect((await probe(`http://mixed.test:${port}/scep`)).error).toBe(
        'refused to connect to fe80::1: reserved address (link_local)',
      );
    } finally {
      prober.resolver = original;
    }
  });

  it('stops reading an answer larger than 1 MB', async () => {
    expect((await probe(urls.huge)).error).toBe(
      `GetCACaps answer is larger than ${SCEP_PROBE_MAX_BYTES} bytes`,
    );
  });

  it('gives up on a server that does not answer within the timeout', async () => {
    prober.timeoutMs = 300;
    try {
      expect(await probe(urls.silent)).toMatchObject({ reachable: false, error: 'no answer within 300 ms' });
    } finally {
      prober.timeoutMs = 30_000;
    }
  });

  it('lists recent probes newest first, clamps the limit to 1..200, and recomputes days to expiry at read time', async () => {
    const fresh = await probe(scepUrl);
    const list = (limit?: unknown) =>
      service.bus.request(
        'health-monitor.v1.list-scep-probes',
        (limit === undefined ? {} : { limit }) as never,
      );
    const one = await list('0');
    expect(one.limit).toBe(1);
    expect(one.probes.map((p) => p.id)).toEqual([fresh.id]);
    expect((await list('999')).limit).toBe(200);
    expect((await list('abc')).limit).toBe(50);
    clock.current = new Date(clock.current.getTime() + 10 * 86_400_000);
    const later = (await list(1)).probes[0];
    expect(later.days_to_expiry).toBe((fresh.days_to_expiry as number) - 10);
    clock.current = new Date();
  });
});
