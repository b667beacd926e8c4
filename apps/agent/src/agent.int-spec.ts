import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentDto, CertificateDto } from '@certlane/contracts';
import {
  builtEntry,
  eventually,
  recordSecrets,
  runCommand,
  startTestSystem,
  TestSystem,
} from '@certlane/testing';
import { adminApi, json } from './testing/admin-api';
import { writeAgentKey } from './testing/agent-files';
import { writeFilesConnectorAgent } from './testing/files-connector-agent';
import { AgentProcess, startAgentProcess } from './testing/agent-process';
import { pemBody } from './testing/private-keys';
import { RecordingProxy, startRecordingProxy } from './testing/recording-proxy';

const AGENT = 'it-agent-01';
const CN = 'agent-app.example.com';

/**
 * The real agent process end to end (ADR 0030): registered through the API, run from dist/ against
 * the real auth, issuance, revocation, deployment-dispatch and gateway processes through a
 * recording proxy, it answers an Issuance job with a CSR for a key it keeps (0600), completes a
 * deployment through a connector, and exits once retired.
 */
describe('certlane-agent (real process)', () => {
  let system: TestSystem;
  let dir: string;
  let proxy: RecordingProxy;
  let agentKey: string;
  let agentProcess: AgentProcess | undefined;
  const output = () => agentProcess?.output() ?? '';
  const { api, job, jobsOf, registerTarget } = adminApi(() => system);

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
    proxy = await startRecordingProxy(system.services['api-gateway'].url, system.ca);
  }, 120_000);

  afterAll(async () => {
    if (agentProcess && agentProcess.child.exitCode === null) agentProcess.child.kill('SIGKILL');
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
    // Both known to the server; only tgt-files is in the agent's targets file.
    await registerTarget('tgt-files', AGENT);
    await registerTarget('tgt-nowhere', AGENT);

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

    writeAgentKey(dir, agentKey);
    // The real agent (dist/), started with one extra connector: the test double of a target kind,
    // which writes the files to a directory (the real kinds come with libs/connectors).
    agentProcess = startAgentProcess({
      dir,
      agentId: AGENT,
      serverUrl: proxy.url,
      caPath: proxy.caPath,
      stateDir: join(dir, 'state'),
      script: writeFilesConnectorAgent(dir),
    });

    await eventually(
      async () => (await job(issuance.id)).status === 'Completed',
      `the Issuance job completed (agent output: ${output()})`,
    );
    const certificate = json<CertificateDto>(await api('GET', '/api/v1/certificates/agent-web'));
    expect(certificate.status).toBe('Active');
    const keyPath = join(dir, 'state', 'keys', 'agent-web', `${certificate.current_version_id}.key.pem`);
    // The job completes when the server accepts the CSR; the agent files the key under the issued
    // version once it has read that answer, a moment later.
    await eventually(async () => existsSync(keyPath), `the agent filed the key under ${keyPath}`);
    expect(statSync(keyPath).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'state', 'keys')).mode & 0o777).toBe(0o700);
    const key = readFileSync(keyPath, 'utf8');
    expect(key).toContain('-----BEGIN PRIVATE KEY-----');
    const cert = json<{ cert_pem: string }>(await api('GET', '/api/v1/certificates/agent-web/export/pem'));
    expect(new X509Certificate(cert.cert_pem).checkPrivateKey(createPrivateKey(key))).toBe(true);

    const csr = proxy.exchanges.find((c) => c.path === `/api/v1/agents/${AGENT}/csr`);
    expect(csr?.method).toBe('POST');
    expect(JSON.parse(csr!.request)).toEqual({
      csr_pem: expect.stringContaining('BEGIN CERTIFICATE REQUEST'),
      certificate_id: 'agent-web',
    });
    const heartbeat = proxy.exchanges.find((c) => c.path === `/api/v1/agents/${AGENT}/heartbeat`);
    expect(JSON.parse(heartbeat!.request)).toEqual({
      version: expect.any(String),
      hostname: expect.any(String),
      os: expect.any(String),
      architecture: process.arch,
      ...(JSON.parse(heartbeat!.request).ip_address ? { ip_address: expect.any(String) } : {}),
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
      `the deployment completed (agent output: ${output()})`,
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
    const base64 = pemBody(key);
    expect(proxy.exchanges.length).toBeGreaterThan(3);
    const paths = new Set(proxy.exchanges.map((c) => `${c.method} ${c.path.replace(/job-[^/]+/, '{job}')}`));
    expect([...paths]).toEqual(
      expect.arrayContaining([
        `POST /api/v1/agents/${AGENT}/heartbeat`,
        `GET /api/v1/agents/${AGENT}/work`,
        `POST /api/v1/agents/${AGENT}/csr`,
        `POST /api/v1/agents/${AGENT}/jobs/{job}/status`,
      ]),
    );
    for (const { request } of proxy.exchanges) {
      expect(request).not.toContain('PRIVATE KEY');
      expect(request).not.toContain(base64.slice(0, 64));
      expect(request.replace(/\\n/g, '')).not.toContain(base64.slice(0, 64));
    }
  });

  it('exits with status 0 once retired (its key is revoked: 401)', async () => {
    const retired = await api('DELETE', `/api/v1/agents/${AGENT}?force=true&reason=decommissioned`);
    expect(retired.status).toBe(200);
    const code = await Promise.race([
      agentProcess!.exited,
      new Promise<'still running'>((done) => setTimeout(() => done('still running'), 30_000)),
    ]);
    expect(code).toBe(0);
    expect(output()).toMatch(
      /agent exiting: the (server says this agent is retired \(HTTP 410\)|server no longer accepts this agent key \(HTTP 401\))/,
    );
    expect(output()).not.toContain('PRIVATE KEY');
  }, 40_000);
});
