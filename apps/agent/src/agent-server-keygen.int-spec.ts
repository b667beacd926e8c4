import { ChildProcess, spawn } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, request as httpsRequestRaw, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AuditEventDto, CertificateDto, JobDto } from '@certlane/contracts';
import {
  builtEntry,
  createTlsFixture,
  eventually,
  httpsRequest,
  HttpsResult,
  recordSecrets,
  startTestSystem,
  TestSystem,
  TlsFixture,
} from '@certlane/testing';

const AGENT = 'srvkey-agent-01';
const DIST_RUN = resolve(__dirname, '../../../dist/apps/agent/src/run.js');

interface Exchange {
  method: string;
  path: string;
  request: string;
  status: number;
  response: string;
}

/**
 * A TLS-terminating recording proxy between the agent and the gateway that keeps both directions:
 * every request body the agent sent and every response body it read.
 */
async function recordingProxy(tls: TlsFixture, upstream: string, upstreamCa: string) {
  const exchanges: Exchange[] = [];
  const server: Server = createHttpsServer(
    { cert: readFileSync(tls.certPath), key: readFileSync(tls.keyPath), minVersion: 'TLSv1.3' },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const forward = httpsRequestRaw(
          `${upstream}${req.url}`,
          {
            method: req.method,
            ca: upstreamCa,
            headers: { ...req.headers, host: new URL(upstream).host },
            agent: false,
          },
          (answer) => {
            const parts: Buffer[] = [];
            answer.on('data', (c: Buffer) => parts.push(c));
            answer.on('end', () => {
              const text = Buffer.concat(parts);
              exchanges.push({
                method: req.method ?? '',
                path: req.url ?? '',
                request: body.toString('utf8'),
                status: answer.statusCode ?? 0,
                response: text.toString('utf8'),
              });
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              res.end(text);
            });
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
  return { url, exchanges, close: () => new Promise<void>((done) => server.close(() => done())) };
}

/**
 * Server key generation end to end (ADR 0033): SERVICE_KEYGEN_MODE=server issues the certificate
 * at once and keeps its key sealed; the real built agent, given the deployment, fetches the key
 * wrapped to a one-time P-256 key, opens it, stores it 0600 and deploys it. Nothing that crossed
 * the wire, either way, and nothing the agent logged holds the plaintext key.
 */
describe('certlane-agent with server-generated keys (real process)', () => {
  let system: TestSystem;
  let admin: string;
  let dir: string;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let proxyTls: TlsFixture;
  let child: ChildProcess | undefined;
  let output = '';
  let exited: Promise<number | null> | undefined;

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
  const job = async (id: string) => json<JobDto>(await api('GET', `/api/v1/jobs/${id}`));

  beforeAll(async () => {
    builtEntry('agent');
    dir = mkdtempSync(join(tmpdir(), 'certlane-agent-srvkey-'));
    system = await startTestSystem(
      'agentsrvkey',
      ['auth', 'issuance', 'revocation', 'deployment-dispatch', 'api-gateway'],
      { SERVICE_KEYGEN_MODE: 'server' },
    );
    admin = system.env.SERVICE_AUTH_SECRET!;
    proxyTls = await createTlsFixture();
    proxy = await recordingProxy(proxyTls, system.services['api-gateway'].url, system.ca);
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    await proxy?.close();
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('deploys a server-generated key it fetched wrapped: job Completed, key 0600, nothing in plaintext on the wire', async () => {
    const registered = await api('POST', '/api/v1/agents', {
      id: AGENT,
      name: AGENT,
      hostname: 'srvkey-host',
    });
    expect(registered.status).toBe(201);
    const agentKey = json<{ api_key: string }>(registered).api_key;

    const created = await api('POST', '/api/v1/certificates', {
      id: 'srv-web',
      common_name: 'srv-web.example.com',
      key_algorithm: 'ECDSA-P256',
      agent_id: AGENT,
    });
    expect(created.status).toBe(201);
    const certificate = json<CertificateDto>(created);
    expect(certificate.status).toBe('Active');

    writeFileSync(join(dir, 'agent.key'), `${agentKey}\n`, { mode: 0o600 });
    writeFileSync(
      join(dir, 'targets.json'),
      JSON.stringify({ 'tgt-files': { type: 'nginx', config: { dir: join(dir, 'deployed') } } }),
    );
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
    const deployed = await api('POST', '/api/v1/certificates/srv-web/deploy', { target_id: 'tgt-files' });
    expect(deployed.status).toBe(202);
    const deployment = json<{ job_id: string }>(deployed).job_id;

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

    await eventually(async () => {
      const { status, last_error } = await job(deployment);
      if (status === 'Failed') throw new Error(`the deployment failed: ${last_error}`);
      return status === 'Completed';
    }, `the deployment completed (agent output: ${output})`);

    const keyPath = join(dir, 'state', 'keys', 'srv-web', `${certificate.current_version_id}.key.pem`);
    const stored = readFileSync(keyPath, 'utf8');
    recordSecrets('server-generated key deployed by the agent', [stored]);
    expect(statSync(keyPath).mode & 0o777).toBe(0o600);
    const served = readFileSync(join(dir, 'deployed', 'key.pem'), 'utf8');
    expect(served).toBe(stored);
    const exported = json<{ cert_pem: string }>(await api('GET', '/api/v1/certificates/srv-web/export/pem'));
    expect(new X509Certificate(exported.cert_pem).checkPrivateKey(createPrivateKey(served))).toBe(true);
    expect(readFileSync(join(dir, 'deployed', 'cert.pem'), 'utf8')).toContain(exported.cert_pem.trim());

    // The fetch: a public P-256 JWK out, a JWE back.
    const fetches = proxy.exchanges.filter(
      (e) => e.path === `/api/v1/agents/${AGENT}/certificates/srv-web/key`,
    );
    expect(fetches).toHaveLength(1);
    expect(fetches[0]).toMatchObject({ method: 'POST', status: 200 });
    const sentJwk = (JSON.parse(fetches[0].request) as { recipient_public_jwk: Record<string, unknown> })
      .recipient_public_jwk;
    expect(Object.keys(sentJwk).sort()).toEqual(['crv', 'kty', 'x', 'y']);
    expect(JSON.parse(fetches[0].response)).toEqual({
      certificate_id: 'srv-web',
      version_id: certificate.current_version_id,
      private_key_jwe: expect.stringMatching(/^[\w-]+(\.[\w-]*){4}$/),
    });

    // Nothing in plaintext, either way, nor in the agent's log.
    const base64 = stored
      .split('\n')
      .filter((line) => line && !line.startsWith('-----'))
      .join('');
    expect(proxy.exchanges.length).toBeGreaterThan(3);
    for (const exchange of proxy.exchanges) {
      for (const body of [exchange.request, exchange.response]) {
        expect(body).not.toContain('PRIVATE KEY');
        expect(body.replace(/\\n/g, '')).not.toContain(base64.slice(0, 48));
      }
    }
    expect(output).not.toContain('PRIVATE KEY');
    expect(output).not.toContain(base64.slice(0, 48));

    // The release is audited: certificate, version and agent.
    await eventually(async () => {
      const listed = await api('GET', '/api/v1/audit?per_page=100&action=certificate.key_released');
      return json<{ data: AuditEventDto[] }>(listed).data.some(
        (event) =>
          event.resource_id === 'srv-web' &&
          event.actor_id === `agent.${AGENT}` &&
          (event.details as Record<string, unknown>).version_id === certificate.current_version_id,
      );
    }, 'the certificate.key_released audit record');

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 120_000);
});
