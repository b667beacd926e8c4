import { ChildProcess, spawn } from 'node:child_process';
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, request as httpsRequestRaw, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AgentDto, CertificateDto, JobDto } from '@certlane/contracts';
import {
  builtEntry,
  createTlsFixture,
  eventually,
  httpsRequest,
  HttpsResult,
  recordSecrets,
  runCommand,
  startTestSystem,
  TestSystem,
  TlsFixture,
} from '@certlane/testing';

const AGENT = 'it-agent-01';
const CN = 'agent-app.example.com';
const DIST_RUN = resolve(__dirname, '../../../dist/apps/agent/src/run.js');

interface Captured {
  method: string;
  path: string;
  body: string;
}

/**
 * A TLS-terminating recording proxy between the agent and the gateway: the agent trusts the proxy's
 * own certificate (its SERVICE_SERVER_CA_BUNDLE_PATH), the proxy trusts the test system's. Every
 * request the agent sends is kept, headers and body, to prove what crossed the wire.
 */
async function recordingProxy(tls: TlsFixture, upstream: string, upstreamCa: string) {
  const captured: Captured[] = [];
  const server: Server = createHttpsServer(
    { cert: readFileSync(tls.certPath), key: readFileSync(tls.keyPath), minVersion: 'TLSv1.3' },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        captured.push({ method: req.method ?? '', path: req.url ?? '', body: body.toString('utf8') });
        const forward = httpsRequestRaw(
          `${upstream}${req.url}`,
          {
            method: req.method,
            ca: upstreamCa,
            headers: { ...req.headers, host: new URL(upstream).host },
            agent: false,
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        forward.on('error', () => {
          res.writeHead(502);
          res.end();
        });
        forward.end(body);
      });
    },
  );
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `https://localhost:${(server.address() as AddressInfo).port}`;
  return { url, captured, close: () => new Promise<void>((done) => server.close(() => done())) };
}

/**
 * The real agent process end to end (ADR 0030): registered through the API, run from dist/ against
 * the real auth, issuance, revocation, deployment-dispatch and gateway processes through a
 * recording proxy, it answers an Issuance job with a CSR for a key it keeps (0600), completes a
 * deployment through a connector, and exits once retired.
 */
describe('certlane-agent (real process)', () => {
  let system: TestSystem;
  let admin: string;
  let dir: string;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let proxyTls: TlsFixture;
  let agentKey: string;
  let child: ChildProcess | undefined;
  let output = '';
  let exited: Promise<number | null>;

  const api = (method: string, path: string, body?: unknown): Promise<HttpsResult> =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${admin}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  const json = <T>(response: HttpsResult) => response.json() as T;
  const jobsOf = async (certificateId: string) =>
    json<{ data: JobDto[] }>(await api('GET', `/api/v1/jobs?certificate_id=${certificateId}&per_page=100`))
      .data;
  const job = async (id: string) => json<JobDto>(await api('GET', `/api/v1/jobs/${id}`));

  beforeAll(async () => {
    builtEntry('agent'); // fails early with a clear message when dist/ is missing
    dir = mkdtempSync(join(tmpdir(), 'certlane-agent-it-'));
    system = await startTestSystem('agentapp', [
      'auth',
      'issuance',
      'revocation',
      'deployment-dispatch',
      'api-gateway',
    ]);
    admin = system.env.SERVICE_AUTH_SECRET!;
    proxyTls = await createTlsFixture();
    proxy = await recordingProxy(proxyTls, system.services['api-gateway'].url, system.ca);
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    const keys = existsSync(join(dir ?? '/nonexistent', 'state', 'keys'))
      ? readdirSync(join(dir, 'state', 'keys'), { recursive: true, encoding: 'utf8' })
          .filter((f) => f.endsWith('.key.pem'))
          .map((f) => readFileSync(join(dir, 'state', 'keys', f), 'utf8'))
      : [];
    recordSecrets('agent private keys', keys);
    await proxy?.close();
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses an http:// server URL at startup: one line, exit 78', async () => {
    const run = await runCommand(process.execPath, [builtEntry('agent')], {
      env: {
        PATH: process.env.PATH,
        SERVICE_SERVER_URL: 'http://127.0.0.1:8443',
        SERVICE_AGENT_ID: AGENT,
        SERVICE_AGENT_API_KEY: 'x'.repeat(64),
      },
      timeoutMs: 20_000,
    });
    expect(run.code).toBe(78);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([
      'certlane-agent: configuration error: SERVICE_SERVER_URL uses http://: the agent only talks TLS, use the https:// URL of the API gateway',
    ]);
  });

  it('registers, then the agent answers the Issuance job with a CSR for a key it keeps at 0600', async () => {
    const registered = await api('POST', '/api/v1/agents', { id: AGENT, name: AGENT, hostname: 'it-host' });
    expect(registered.status).toBe(201);
    agentKey = json<{ api_key: string }>(registered).api_key;
    expect(agentKey).toMatch(/^[0-9a-f]{64}$/);

    const created = await api('POST', '/api/v1/certificates', {
      id: 'agent-web',
      common_name: CN,
      sans: ['www.agent-app.example.com'],
      key_algorithm: 'ECDSA-P256',
      agent_id: AGENT,
    });
    expect(created.status).toBe(201);
    const [issuance] = await jobsOf('agent-web');
    expect([issuance.type, issuance.status]).toEqual(['Issuance', 'AwaitingCSR']);

    writeFileSync(join(dir, 'agent.key'), `${agentKey}\n`, { mode: 0o600 });
    writeFileSync(
      join(dir, 'targets.json'),
      JSON.stringify({ 'tgt-files': { type: 'nginx', config: { dir: join(dir, 'deployed') } } }),
    );
    // The real agent (dist/), started with one extra connector: the test double of a target kind,
    // which writes the files to a directory (the real kinds come with libs/connectors).
    writeFileSync(
      join(dir, 'agent-with-test-connector.js'),
      `const fs = require('node:fs');
const path = require('node:path');
const { runAgent } = require(${JSON.stringify(DIST_RUN)});
const files = {
  type: 'nginx',
  async deploy(config, material) {
    fs.mkdirSync(config.dir, { recursive: true });
    fs.writeFileSync(path.join(config.dir, 'cert.pem'), material.certificatePem + material.chainPem);
    fs.writeFileSync(path.join(config.dir, 'key.pem'), material.privateKeyPem, { mode: 0o600 });
    return { ok: true, rolledBack: false, steps: [{ step: 'write', ok: true }] };
  },
};
runAgent({ connectors: [files] }).then((code) => process.exit(code));
`,
    );
    child = spawn(process.execPath, [join(dir, 'agent-with-test-connector.js')], {
      env: {
        PATH: process.env.PATH,
        SERVICE_SERVER_URL: proxy.url,
        SERVICE_AGENT_ID: AGENT,
        SERVICE_AGENT_API_KEY_FILE: join(dir, 'agent.key'),
        SERVICE_SERVER_CA_BUNDLE_PATH: proxyTls.certPath,
        SERVICE_AGENT_STATE_DIR: join(dir, 'state'),
        SERVICE_AGENT_TARGETS_FILE: join(dir, 'targets.json'),
        SERVICE_AGENT_POLL_INTERVAL_SECONDS: '0.3',
        SERVICE_AGENT_HEARTBEAT_INTERVAL_SECONDS: '1',
        SERVICE_AGENT_BACKOFF_MAX_SECONDS: '2',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    exited = new Promise((done) => child!.once('exit', (code) => done(code)));

    await eventually(
      async () => (await job(issuance.id)).status === 'Completed',
      `the Issuance job completed (agent output: ${output})`,
    );
    const certificate = json<CertificateDto>(await api('GET', '/api/v1/certificates/agent-web'));
    expect(certificate.status).toBe('Active');
    const keyPath = join(dir, 'state', 'keys', 'agent-web', `${certificate.current_version_id}.key.pem`);
    expect(statSync(keyPath).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'state', 'keys')).mode & 0o777).toBe(0o700);
    const key = readFileSync(keyPath, 'utf8');
    expect(key).toContain('-----BEGIN PRIVATE KEY-----');
    const cert = json<{ cert_pem: string }>(await api('GET', '/api/v1/certificates/agent-web/export/pem'));
    expect(new X509Certificate(cert.cert_pem).checkPrivateKey(createPrivateKey(key))).toBe(true);

    const csr = proxy.captured.find((c) => c.path === `/api/v1/agents/${AGENT}/csr`);
    expect(csr?.method).toBe('POST');
    expect(JSON.parse(csr!.body)).toEqual({
      csr_pem: expect.stringContaining('BEGIN CERTIFICATE REQUEST'),
      certificate_id: 'agent-web',
    });
    const heartbeat = proxy.captured.find((c) => c.path === `/api/v1/agents/${AGENT}/heartbeat`);
    expect(JSON.parse(heartbeat!.body)).toEqual({
      version: expect.any(String),
      hostname: expect.any(String),
      os: expect.any(String),
      architecture: process.arch,
      ...(JSON.parse(heartbeat!.body).ip_address ? { ip_address: expect.any(String) } : {}),
    });
    const agent = json<AgentDto>(await api('GET', `/api/v1/agents/${AGENT}`));
    expect([agent.status, agent.architecture]).toEqual(['Online', process.arch]);
  }, 90_000);

  it('completes a deployment through the connector, with the key that stayed on its disk', async () => {
    const deployed = await api('POST', '/api/v1/certificates/agent-web/deploy', { target_id: 'tgt-files' });
    expect(deployed.status).toBe(202);
    const deployment = json<{ job_id: string }>(deployed).job_id;
    const missing = json<{ job_id: string }>(
      await api('POST', '/api/v1/certificates/agent-web/deploy', { target_id: 'tgt-nowhere' }),
    ).job_id;
    await eventually(
      async () => (await job(deployment)).status === 'Completed',
      `the deployment completed (agent output: ${output})`,
    );
    await eventually(
      async () => (await job(missing)).status === 'Failed',
      'the deployment to an unknown target failed',
    );
    expect((await job(missing)).last_error).toBe(
      'target tgt-nowhere is not configured on this agent (SERVICE_AGENT_TARGETS_FILE)',
    );

    const certificate = json<CertificateDto>(await api('GET', '/api/v1/certificates/agent-web'));
    const served = readFileSync(join(dir, 'deployed', 'cert.pem'), 'utf8');
    const exported = json<{ cert_pem: string }>(
      await api('GET', '/api/v1/certificates/agent-web/export/pem'),
    );
    const fingerprint = (pem: string) =>
      createHash('sha256').update(new X509Certificate(pem).raw).digest('hex');
    expect(fingerprint(served)).toBe(fingerprint(exported.cert_pem));
    expect(readFileSync(join(dir, 'deployed', 'key.pem'), 'utf8')).toBe(
      readFileSync(
        join(dir, 'state', 'keys', 'agent-web', `${certificate.current_version_id}.key.pem`),
        'utf8',
      ),
    );
  }, 60_000);

  it('never sent its private key: no request body carries a key', () => {
    const key = readFileSync(join(dir, 'deployed', 'key.pem'), 'utf8');
    const base64 = key
      .split('\n')
      .filter((l) => l && !l.startsWith('-----'))
      .join('');
    expect(proxy.captured.length).toBeGreaterThan(3);
    const paths = new Set(proxy.captured.map((c) => `${c.method} ${c.path.replace(/job-[^/]+/, '{job}')}`));
    expect([...paths]).toEqual(
      expect.arrayContaining([
        `POST /api/v1/agents/${AGENT}/heartbeat`,
        `GET /api/v1/agents/${AGENT}/work`,
        `POST /api/v1/agents/${AGENT}/csr`,
        `POST /api/v1/agents/${AGENT}/jobs/{job}/status`,
      ]),
    );
    for (const request of proxy.captured) {
      expect(request.body).not.toContain('PRIVATE KEY');
      expect(request.body).not.toContain(base64.slice(0, 64));
      expect(request.body.replace(/\\n/g, '')).not.toContain(base64.slice(0, 64));
    }
  });

  it('exits with status 0 once retired (its key is revoked: 401)', async () => {
    const retired = await api('DELETE', `/api/v1/agents/${AGENT}?force=true&reason=decommissioned`);
    expect(retired.status).toBe(200);
    const code = await Promise.race([
      exited,
      new Promise<'still running'>((done) => setTimeout(() => done('still running'), 30_000)),
    ]);
    expect(code).toBe(0);
    expect(output).toMatch(
      /agent exiting: the (server says this agent is retired \(HTTP 410\)|server no longer accepts this agent key \(HTTP 401\))/,
    );
    expect(output).not.toContain('PRIVATE KEY');
  }, 40_000);
});
