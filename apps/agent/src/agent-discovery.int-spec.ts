import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentDiscoveryFinding, DiscoveredCertificateDto, Page } from '@certlane/contracts';
import { builtEntry, eventually, httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { adminApi, json } from './testing/admin-api';
import { writeAgentKey } from './testing/agent-files';
import { AgentProcess, startAgentProcess } from './testing/agent-process';
import { pemBody } from './testing/private-keys';
import { RecordingProxy, startRecordingProxy } from './testing/recording-proxy';

const AGENT = 'it-discovery-01';
const P12_PASSWORD = 'p12-s3cret-pass';
const run = (command: string, args: string[]) => execFileSync(command, args, { stdio: 'pipe' });

/**
 * Filesystem discovery by the real agent process (ADR 0063): a temporary tree holding PEM (with
 * its key beside it), DER, PKCS#12 (certificates encrypted, password from the passwords file)
 * and JKS files written by openssl and keytool; the agent pushes what it finds through a
 * recording proxy to the real gateway and health-monitor, and no key, keystore or password ever
 * crosses the wire.
 */
describe('agent filesystem discovery (real process)', () => {
  let system: TestSystem;
  let dir: string;
  let tree: string;
  let proxy: RecordingProxy;
  let agentKey: string;
  let agentProcess: AgentProcess | undefined;
  const certs: Record<string, X509Certificate> = {};
  const { api } = adminApi(() => system);

  beforeAll(async () => {
    builtEntry('agent');
    dir = mkdtempSync(join(tmpdir(), 'certlane-agent-discovery-'));
    tree = join(dir, 'tree');
    const at = (...parts: string[]) => join(tree, ...parts);
    mkdirSync(at('etc', 'nginx'), { recursive: true });
    mkdirSync(at('opt', 'app', 'conf'), { recursive: true });
    mkdirSync(at('opt', 'java'), { recursive: true });
    const selfSigned = (name: string, cn: string) =>
      run('openssl', [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        join(dir, `${name}.key`),
        '-out',
        join(dir, `${name}.pem`),
        '-subj',
        `/CN=${cn}`,
        '-days',
        '20',
      ]);
    for (const [name, cn] of [
      ['web', 'web.disc.test'],
      ['der', 'der.disc.test'],
      ['p12', 'p12.disc.test'],
      ['jks', 'jks.disc.test'],
    ]) {
      selfSigned(name, cn);
      certs[name] = new X509Certificate(readFileSync(join(dir, `${name}.pem`)));
    }
    // PEM: the certificate and its key side by side in one file, and the key alone as .key.
    writeFileSync(
      at('etc', 'nginx', 'site.pem'),
      readFileSync(join(dir, 'web.key'), 'utf8') + readFileSync(join(dir, 'web.pem'), 'utf8'),
    );
    writeFileSync(at('etc', 'nginx', 'site.key'), readFileSync(join(dir, 'web.key')));
    run('openssl', [
      'x509',
      '-in',
      join(dir, 'der.pem'),
      '-outform',
      'DER',
      '-out',
      at('opt', 'app', 'conf', 'client.der'),
    ]);
    run('openssl', [
      'pkcs12',
      '-export',
      '-inkey',
      join(dir, 'p12.key'),
      '-in',
      join(dir, 'p12.pem'),
      '-out',
      at('opt', 'app', 'conf', 'bundle.p12'),
      '-passout',
      `pass:${P12_PASSWORD}`,
    ]);
    run('openssl', [
      'pkcs12',
      '-export',
      '-inkey',
      join(dir, 'jks.key'),
      '-in',
      join(dir, 'jks.pem'),
      '-out',
      join(dir, 'jks.p12'),
      '-passout',
      'pass:changeit',
    ]);
    run('keytool', [
      '-importkeystore',
      '-srckeystore',
      join(dir, 'jks.p12'),
      '-srcstoretype',
      'PKCS12',
      '-srcstorepass',
      'changeit',
      '-destkeystore',
      at('opt', 'java', 'app.jks'),
      '-deststoretype',
      'JKS',
      '-deststorepass',
      'changeit',
      '-noprompt',
    ]);
    writeFileSync(join(dir, 'p12-passwords'), `not-this-one\n${P12_PASSWORD}\n`, { mode: 0o600 });

    system = await startTestSystem('agentdisc', [
      'auth',
      'issuance',
      'deployment-dispatch',
      'health-monitor',
      'api-gateway',
    ]);
    proxy = await startRecordingProxy(system.services['api-gateway'].url, system.ca);
    const registered = await api('POST', '/api/v1/agents', { id: AGENT, name: AGENT, hostname: 'disc-host' });
    expect(registered.status).toBe(201);
    agentKey = json<{ api_key: string }>(registered).api_key;
    writeAgentKey(dir, agentKey);
  }, 120_000);

  afterAll(async () => {
    if (agentProcess && agentProcess.child.exitCode === null) agentProcess.child.kill('SIGKILL');
    await proxy?.close();
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('finds the PEM, DER, PKCS#12 and JKS certificates and stores each with agent and path', async () => {
    agentProcess = startAgentProcess({
      dir,
      agentId: AGENT,
      serverUrl: proxy.url,
      caPath: proxy.caPath,
      stateDir: join(dir, 'state'),
      env: {
        SERVICE_AGENT_DISCOVERY_PATHS: tree,
        SERVICE_AGENT_DISCOVERY_PKCS12_PASSWORDS_FILE: join(dir, 'p12-passwords'),
      },
    });
    const agentFound = async () =>
      json<Page<DiscoveredCertificateDto>>(
        await api('GET', '/api/v1/discovered-certificates?source=agent&per_page=100'),
      ).data;
    await eventually(
      async () => (await agentFound()).length === 4,
      `four certificates discovered (agent output: ${agentProcess?.output()})`,
    );
    const found = await agentFound();
    const where = Object.fromEntries(found.map((c) => [c.id, c.seen_at.map((s) => [s.source, s.location])]));
    const fp = (name: string) => certs[name].fingerprint256.replaceAll(':', '').toLowerCase();
    expect(where).toEqual({
      [fp('web')]: [['agent', `agent:${AGENT}:${join(tree, 'etc', 'nginx', 'site.pem')}`]],
      [fp('der')]: [['agent', `agent:${AGENT}:${join(tree, 'opt', 'app', 'conf', 'client.der')}`]],
      [fp('p12')]: [['agent', `agent:${AGENT}:${join(tree, 'opt', 'app', 'conf', 'bundle.p12')}`]],
      [fp('jks')]: [['agent', `agent:${AGENT}:${join(tree, 'opt', 'java', 'app.jks')}`]],
    });
    expect(found.every((c) => c.status === 'Unmanaged')).toBe(true);
    const web = found.find((c) => c.id === fp('web'))!;
    expect(web.subject).toContain('CN=web.disc.test');
    // A found certificate can be claimed into the inventory like a scanned one.
    const claimed = await api('POST', `/api/v1/discovered-certificates/${fp('der')}/claim`, {});
    expect(claimed.status).toBe(200);
  });

  it('sent only certificates: no key, keystore or PKCS#12 password crossed the wire', () => {
    const pushes = proxy.exchanges.filter((e) => e.path === `/api/v1/agents/${AGENT}/discovery`);
    expect(pushes.length).toBeGreaterThanOrEqual(1);
    expect(pushes.every((e) => e.status === 200)).toBe(true);
    const secrets = [
      ...['web', 'der', 'p12', 'jks'].map((name) => pemBody(readFileSync(join(dir, `${name}.key`), 'utf8'))),
      P12_PASSWORD,
      'changeit',
      readFileSync(join(tree, 'opt', 'app', 'conf', 'bundle.p12'))
        .toString('base64')
        .slice(0, 64),
      readFileSync(join(tree, 'opt', 'java', 'app.jks'))
        .toString('base64')
        .slice(0, 64),
    ];
    const wire = proxy.exchanges.map((e) => e.request).join('\n');
    for (const secret of secrets) expect(wire).not.toContain(secret);
    expect(wire).not.toContain('PRIVATE KEY');
    const sent = pushes.flatMap(
      (e) => (JSON.parse(e.request) as { findings: AgentDiscoveryFinding[] }).findings,
    );
    for (const finding of sent) {
      expect(Object.keys(finding).sort()).toEqual(['certificate_pem', 'format', 'path']);
      expect(() => new X509Certificate(finding.certificate_pem)).not.toThrow();
    }
    expect(new Set(sent.map((f) => f.format))).toEqual(new Set(['pem', 'der', 'pkcs12', 'jks']));
  });

  it('lets an agent push only for itself (403 for another agent id), and refuses a key block (400)', async () => {
    const push = (agentId: string, findings: unknown[]) =>
      httpsRequest(`${system.services['api-gateway'].url}/api/v1/agents/${agentId}/discovery`, {
        method: 'POST',
        ca: system.ca,
        headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ findings }),
      });
    const certificate = readFileSync(join(dir, 'web.pem'), 'utf8');
    expect(
      (await push('someone-else', [{ path: '/x.pem', format: 'pem', certificate_pem: certificate }])).status,
    ).toBe(403);
    const withKey = await push(AGENT, [
      {
        path: '/x.pem',
        format: 'pem',
        certificate_pem: readFileSync(join(dir, 'web.key'), 'utf8') + certificate,
      },
    ]);
    expect(withKey.status).toBe(400);
    expect(withKey.text).not.toContain(pemBody(readFileSync(join(dir, 'web.key'), 'utf8')));
  });
});
