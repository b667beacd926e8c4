import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CertificateDto, JobVerificationDto } from '@certlane/contracts';
import {
  freePort,
  hasBinary,
  opensslFingerprint,
  opensslServedFingerprint,
  ServerProcess,
  ServerSite,
  waitUntil,
  writeNginxSite,
  writePlaceholderCertificate,
} from '@certlane/connectors/testing';
import { builtEntry, eventually, recordSecrets, startTestSystem, TestSystem } from '@certlane/testing';
import { adminApi, json } from './testing/admin-api';
import { writeAgentKey, writeServerCa, writeTargetsFile } from './testing/agent-files';
import { AgentProcess, startAgentProcess } from './testing/agent-process';
import { agentOnline, jobCompleted } from './testing/agent-waits';
import { filesUnder, pemBody, privateKeysUnder } from './testing/private-keys';

const AGENT = 'nginx-agent-01';
const CN = 'shop.example.com';
const CERT = 'shop-web';
const TARGET = 'tgt-nginx-shop';

/**
 * The headline flow with real parts only (ADR 0027, 0029, 0030): the real auth, issuance,
 * revocation, deployment-dispatch and gateway processes; a real nginx on a loopback high port;
 * the real built agent (dist/apps/agent/src/main.js) with its built-in nginx connector configured
 * by SERVICE_AGENT_TARGETS_FILE. The agent generates the key, answers the Issuance job with a CSR,
 * deploys to nginx (which reloads and serves the issued leaf, as `openssl s_client` sees it),
 * answers the renewal with a new CSR, deploys version 2 and records its verification with the
 * job's status (ADR 0032); the server's own check agrees.
 */
describe('agent + nginx: issue, deploy, renew, redeploy, verify (all real processes)', () => {
  let system: TestSystem;
  let dir: string;
  let port: number;
  let site: ServerSite;
  let nginx: ServerProcess | undefined;
  let agent: AgentProcess | undefined;
  let deployJob: string;
  const output = () => agent?.output() ?? '';
  const keyPath = () => site.keyPath;
  const certPath = () => site.certPath;
  const stateDir = () => join(dir, 'agent-state');

  const { api, job, jobsOf } = adminApi(() => system);
  const certificate = async () => json<CertificateDto>(await api('GET', `/api/v1/certificates/${CERT}`));
  const exportedFingerprint = async () =>
    opensslFingerprint(
      json<{ cert_pem: string }>(await api('GET', `/api/v1/certificates/${CERT}/export/pem`)).cert_pem,
    );
  const served = () => opensslServedFingerprint(port, { serverName: CN });
  const deployAndWait = async () => {
    const deployed = await api('POST', `/api/v1/certificates/${CERT}/deploy`, { target_id: TARGET });
    expect(deployed.status).toBe(202);
    const id = json<{ job_id: string }>(deployed).job_id;
    await jobCompleted(job, id, 'the deployment', output);
    return id;
  };

  beforeAll(async () => {
    if (!hasBinary('nginx') || !hasBinary('openssl')) throw new Error('nginx and openssl are required');
    builtEntry('agent');
    dir = mkdtempSync(join(tmpdir(), 'certlane-agent-nginx-'));
    system = await startTestSystem('agentnginx', [
      'auth',
      'issuance',
      'revocation',
      'deployment-dispatch',
      'api-gateway',
    ]);

    port = await freePort();
    site = writeNginxSite(join(dir, 'nginx'), port, { serverName: CN });
    // nginx needs a certificate to start: a throw-away self-signed placeholder the agent replaces.
    const placeholder = writePlaceholderCertificate(keyPath(), certPath());
    nginx = site.start();
    await waitUntil(() => served() === placeholder, `nginx serving the placeholder (${nginx?.output()})`);

    writeTargetsFile(dir, [
      {
        id: TARGET,
        type: 'nginx',
        config: {
          cert_path: certPath(),
          key_path: keyPath(),
          validate_command: site.validateCommand,
          reload_command: site.reloadCommand,
        },
        endpoint: `127.0.0.1:${port}`,
      },
    ]);
    writeServerCa(dir, system.ca);
  }, 120_000);

  afterAll(async () => {
    if (agent && agent.child.exitCode === null) agent.child.kill('SIGKILL');
    await nginx?.stop();
    if (dir) recordSecrets('agent and nginx private keys', privateKeysUnder(dir));
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('registers the agent and its nginx target through the API', async () => {
    const registered = await api('POST', '/api/v1/agents', {
      id: AGENT,
      name: AGENT,
      hostname: 'nginx-host',
    });
    expect(registered.status).toBe(201);
    writeAgentKey(dir, json<{ api_key: string }>(registered).api_key);

    const target = await api('POST', '/api/v1/targets', {
      id: TARGET,
      name: 'shop nginx',
      type: 'nginx',
      agent_id: AGENT,
      config: { cert_path: certPath(), key_path: keyPath() },
      endpoint: `127.0.0.1:${port}`,
    });
    expect(target.status).toBe(201);

    agent = startAgentProcess({
      dir,
      agentId: AGENT,
      serverUrl: system.services['api-gateway'].url,
      caPath: join(dir, 'server-ca.pem'),
      stateDir: stateDir(),
    });
    await agentOnline(api, AGENT, agent.output);
  }, 60_000);

  it('the agent generates the key and answers the Issuance job with a CSR', async () => {
    const created = await api('POST', '/api/v1/certificates', {
      id: CERT,
      common_name: CN,
      key_algorithm: 'ECDSA-P256',
      agent_id: AGENT,
    });
    expect(created.status).toBe(201);
    const [issuance] = await jobsOf(CERT);
    expect(issuance.type).toBe('Issuance');
    expect(['AwaitingCSR', 'Completed']).toContain(issuance.status);
    await eventually(
      async () => (await job(issuance.id)).status === 'Completed',
      `the Issuance job completed (agent output: ${output()})`,
    );
    const issued = await certificate();
    expect(issued.status).toBe('Active');
    // The job completes when the server accepts the CSR; the agent files the key under the issued
    // version once it has read that answer, a moment later.
    const versionKey = join(stateDir(), 'keys', CERT, `${issued.current_version_id}.key.pem`);
    await eventually(async () => existsSync(versionKey), `the agent filed the key under ${versionKey}`);
    expect(statSync(versionKey).mode & 0o777).toBe(0o600);
  }, 60_000);

  it('deploy: the agent writes the files, nginx reloads and serves the issued certificate', async () => {
    deployJob = await deployAndWait();
    const fingerprint = await exportedFingerprint();
    expect(served()).toBe(fingerprint);
    expect(statSync(keyPath()).mode & 0o777).toBe(0o600);
    const v1 = await certificate();
    expect(readFileSync(keyPath(), 'utf8')).toBe(
      readFileSync(join(stateDir(), 'keys', CERT, `${v1.current_version_id}.key.pem`), 'utf8'),
    );
  }, 60_000);

  it('renew: AwaitingCSR, the agent submits a new CSR, version 2 is deployed and served', async () => {
    const v1 = await certificate();
    const v1Fingerprint = await exportedFingerprint();
    const renewed = await api('POST', `/api/v1/certificates/${CERT}/renew`);
    expect(renewed.status).toBe(202);
    const renewal = (await jobsOf(CERT)).find((j) => j.type === 'Renewal');
    expect(renewal).toBeDefined();
    // The agent holds the key, so the renewal waits for its CSR (it may already have answered).
    expect(['AwaitingCSR', 'Completed']).toContain(renewal!.status);
    await eventually(
      async () => (await job(renewal!.id)).status === 'Completed',
      `the renewal completed (agent output: ${output()})`,
    );
    const v2 = await certificate();
    expect(v2.current_version_id).not.toBe(v1.current_version_id);
    const versions = json<{ data: unknown[] }>(
      await api('GET', `/api/v1/certificates/${CERT}/versions`),
    ).data;
    expect(versions).toHaveLength(2);
    const v2Fingerprint = await exportedFingerprint();
    expect(v2Fingerprint).not.toBe(v1Fingerprint);
    expect(served()).toBe(v1Fingerprint); // not deployed yet

    deployJob = await deployAndWait();
    expect(served()).toBe(v2Fingerprint);
    expect(readFileSync(keyPath(), 'utf8')).toBe(
      readFileSync(join(stateDir(), 'keys', CERT, `${v2.current_version_id}.key.pem`), 'utf8'),
    );
  }, 90_000);

  it('verify: the agent recorded `verified` with its report; the server re-checks on request', async () => {
    const recorded = await api('GET', `/api/v1/jobs/${deployJob}/verification`);
    expect(recorded.status).toBe(200);
    expect(json<JobVerificationDto>(recorded)).toMatchObject({
      endpoint: `127.0.0.1:${port}`,
      result: 'verified',
      served_fingerprint_sha256: served(),
      expected_fingerprint_sha256: await exportedFingerprint(),
    });
    const verified = await api('POST', `/api/v1/jobs/${deployJob}/verify`, {
      endpoint: `127.0.0.1:${port}`,
      server_name: CN,
    });
    expect(verified.status).toBe(200);
    const result = json<JobVerificationDto>(verified);
    expect(result.result).toBe('verified');
    const stored = json<JobVerificationDto>(await api('GET', `/api/v1/jobs/${deployJob}/verification`));
    expect(stored.result).toBe('verified');
  }, 30_000);

  it('private keys live only in the agent state dir and nginx key path (0600), never in a response', async () => {
    const withKeys = filesUnder(dir).filter((f) => readFileSync(f, 'utf8').includes('PRIVATE KEY'));
    const allowed = (f: string) =>
      f.startsWith(`${stateDir()}/`) || f === keyPath() || f === `${keyPath()}.certlane-prev`;
    expect(withKeys.filter((f) => !allowed(f))).toEqual([]);
    for (const f of withKeys) expect([f, statSync(f).mode & 0o777]).toEqual([f, 0o600]);
    expect(withKeys).toContain(keyPath());
    expect(withKeys.some((f) => f.startsWith(`${stateDir()}/`))).toBe(true);
    // The responses this test saw (recorded by httpsRequest) are scanned for these keys at teardown
    // (afterAll: recordSecrets); checked here as well for the certificate's API views.
    const keyBody = pemBody(readFileSync(keyPath(), 'utf8'));
    for (const path of [
      `/api/v1/certificates/${CERT}`,
      `/api/v1/certificates/${CERT}/versions`,
      `/api/v1/certificates/${CERT}/export/pem`,
      `/api/v1/targets/${TARGET}`,
      `/api/v1/jobs/${deployJob}`,
    ]) {
      const body = (await api('GET', path)).text;
      expect(body).not.toContain('PRIVATE KEY');
      expect(body).not.toContain(keyBody.slice(0, 48));
    }
    expect(output()).not.toContain('PRIVATE KEY');
  });
});
