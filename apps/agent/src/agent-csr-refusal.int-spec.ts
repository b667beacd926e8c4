import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CertificateDto } from '@certlane/contracts';
import { builtEntry, eventually, recordSecrets, startTestSystem, TestSystem } from '@certlane/testing';
import { adminApi, json } from './testing/admin-api';
import { writeAgentKey } from './testing/agent-files';
import { AgentProcess, startAgentProcess } from './testing/agent-process';
import { jobCompleted } from './testing/agent-waits';
import { writeFilesConnectorAgent } from './testing/files-connector-agent';
import { privateKeysUnder } from './testing/private-keys';
import { RecordingProxy, startRecordingProxy } from './testing/recording-proxy';

const AGENT = 'refusal-agent-01';

/**
 * A CSR the server refuses for good (ADR 0030, fifteenth stop): the certificate's profile requires
 * must-staple, which the agent's CSR never asks for, so its submission is a 400 profile_violation
 * however often it is sent. That job, the oldest of the poll, is reported Failed with the server's
 * message, and the agent's other work of the same poll is still done.
 */
describe('certlane-agent with a CSR the server refuses for good (real process)', () => {
  let system: TestSystem;
  let dir: string;
  let proxy: RecordingProxy;
  let agent: AgentProcess | undefined;
  const { api, job, jobsOf } = adminApi(() => system);
  const output = () => agent?.output() ?? '';

  beforeAll(async () => {
    builtEntry('agent');
    dir = mkdtempSync(join(tmpdir(), 'certlane-agent-refusal-'));
    system = await startTestSystem('agentrefusal', [
      'auth',
      'issuance',
      'revocation',
      'deployment-dispatch',
      'api-gateway',
    ]);
    proxy = await startRecordingProxy(system.services['api-gateway'].url, system.ca);
  }, 120_000);

  afterAll(async () => {
    if (agent && agent.child.exitCode === null) {
      agent.child.kill('SIGTERM');
      await agent.exited;
    }
    const state = join(dir ?? '/nonexistent', 'state');
    if (existsSync(state)) recordSecrets('agent private keys', privateKeysUnder(state));
    await proxy?.close();
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('fails the refused job with the server reason and still answers the next job of the poll', async () => {
    const registered = await api('POST', '/api/v1/agents', { id: AGENT, name: AGENT, hostname: 'r-host' });
    expect(registered.status).toBe(201);
    writeAgentKey(dir, json<{ api_key: string }>(registered).api_key);
    const profile = await api('POST', '/api/v1/profiles', {
      id: 'prof-staple',
      name: 'Must staple',
      must_staple: true,
    });
    expect(profile.status).toBe(201);

    // Created first, so the poll returns it first (oldest first), on every poll until it is settled.
    const refused = await api('POST', '/api/v1/certificates', {
      id: 'staple-web',
      common_name: 'staple-web.example.com',
      key_algorithm: 'ECDSA-P256',
      agent_id: AGENT,
      profile_id: 'prof-staple',
    });
    expect(refused.status).toBe(201);
    const fine = await api('POST', '/api/v1/certificates', {
      id: 'plain-web',
      common_name: 'plain-web.example.com',
      key_algorithm: 'ECDSA-P256',
      agent_id: AGENT,
    });
    expect(fine.status).toBe(201);
    const [refusedJob] = await jobsOf('staple-web');
    const [fineJob] = await jobsOf('plain-web');
    expect([refusedJob.status, fineJob.status]).toEqual(['AwaitingCSR', 'AwaitingCSR']);

    agent = startAgentProcess({
      dir,
      agentId: AGENT,
      serverUrl: proxy.url,
      caPath: proxy.caPath,
      stateDir: join(dir, 'state'),
      script: writeFilesConnectorAgent(dir),
    });

    await jobCompleted(job, fineJob.id, 'the Issuance job after the refused one', output);
    await eventually(
      async () => (await job(refusedJob.id)).status === 'Failed',
      `the refused Issuance job failed (agent output: ${output()})`,
    );
    expect((await job(refusedJob.id)).last_error).toBe(
      `POST /api/v1/agents/${AGENT}/csr: 400 profile_violation: the CSR breaks rule must_staple of ` +
        'profile prof-staple: the profile requires must-staple (TLS feature status_request)',
    );

    // The refused CSR's key is gone; the issued one is filed under its version.
    const plain = json<CertificateDto>(await api('GET', '/api/v1/certificates/plain-web'));
    await eventually(
      async () => existsSync(join(dir, 'state', 'keys', 'plain-web', `${plain.current_version_id}.key.pem`)),
      'the issued key filed under its version',
    );
    expect(readdirSync(join(dir, 'state', 'keys', 'staple-web'))).toEqual([]);
    const csrs = proxy.exchanges.filter((e) => e.path === `/api/v1/agents/${AGENT}/csr`);
    expect(csrs.map((e) => e.status)).toEqual([400, 202]);
    expect(JSON.parse(csrs[0].response)).toMatchObject({ code: 'profile_violation' });
    expect(output()).not.toContain('PRIVATE KEY');
  }, 120_000);
});
