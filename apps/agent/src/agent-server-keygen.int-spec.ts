import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEventDto, CertificateDto } from '@certlane/contracts';
import { builtEntry, eventually, recordSecrets, startTestSystem, TestSystem } from '@certlane/testing';
import { adminApi, json } from './testing/admin-api';
import { writeAgentKey } from './testing/agent-files';
import { writeFilesConnectorAgent } from './testing/files-connector-agent';
import { AgentProcess, startAgentProcess } from './testing/agent-process';
import { jobCompleted } from './testing/agent-waits';
import { pemBody } from './testing/private-keys';
import { RecordingProxy, startRecordingProxy } from './testing/recording-proxy';

const AGENT = 'srvkey-agent-01';

/**
 * Server key generation end to end (ADR 0033): SERVICE_KEYGEN_MODE=server issues the certificate
 * at once and keeps its key sealed; the real built agent, given the deployment, fetches the key
 * wrapped to a one-time P-256 key, opens it, stores it 0600 and deploys it. Nothing that crossed
 * the wire, either way, and nothing the agent logged holds the plaintext key.
 */
describe('certlane-agent with server-generated keys (real process)', () => {
  let system: TestSystem;
  let dir: string;
  let proxy: RecordingProxy;
  let agent: AgentProcess | undefined;
  const { api, job, registerTarget } = adminApi(() => system);

  beforeAll(async () => {
    builtEntry('agent');
    dir = mkdtempSync(join(tmpdir(), 'certlane-agent-srvkey-'));
    system = await startTestSystem(
      'agentsrvkey',
      ['auth', 'issuance', 'revocation', 'deployment-dispatch', 'api-gateway'],
      { SERVICE_KEYGEN_MODE: 'server' },
    );
    proxy = await startRecordingProxy(system.services['api-gateway'].url, system.ca);
  }, 120_000);

  afterAll(async () => {
    if (agent && agent.child.exitCode === null) {
      agent.child.kill('SIGTERM');
      await agent.exited;
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
    await registerTarget('tgt-files', AGENT);

    const created = await api('POST', '/api/v1/certificates', {
      id: 'srv-web',
      common_name: 'srv-web.example.com',
      key_algorithm: 'ECDSA-P256',
      agent_id: AGENT,
    });
    expect(created.status).toBe(201);
    const certificate = json<CertificateDto>(created);
    expect(certificate.status).toBe('Active');

    writeAgentKey(dir, agentKey);
    const script = writeFilesConnectorAgent(dir);
    const deployed = await api('POST', '/api/v1/certificates/srv-web/deploy', { target_id: 'tgt-files' });
    expect(deployed.status).toBe(202);
    const deployment = json<{ job_id: string }>(deployed).job_id;

    agent = startAgentProcess({
      dir,
      agentId: AGENT,
      serverUrl: proxy.url,
      caPath: proxy.caPath,
      stateDir: join(dir, 'state'),
      script,
    });
    await jobCompleted(job, deployment, 'the deployment', agent.output);

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
    const base64 = pemBody(stored);
    expect(proxy.exchanges.length).toBeGreaterThan(3);
    for (const exchange of proxy.exchanges) {
      for (const body of [exchange.request, exchange.response]) {
        expect(body).not.toContain('PRIVATE KEY');
        expect(body.replace(/\\n/g, '')).not.toContain(base64.slice(0, 48));
      }
    }
    expect(agent.output()).not.toContain('PRIVATE KEY');
    expect(agent.output()).not.toContain(base64.slice(0, 48));

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

    agent.child.kill('SIGTERM');
    expect(await agent.exited).toBe(0);
  }, 120_000);
});
