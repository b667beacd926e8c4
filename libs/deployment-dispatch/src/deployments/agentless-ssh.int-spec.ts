import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  AgentlessDeploymentStart,
  CertificateDto,
  JobDto,
  JobVerificationDto,
  TargetDto,
} from '@certlane/contracts';
import {
  freePort,
  opensslServedFingerprint,
  ServerProcess,
  ServerSite,
  startTestSshd,
  TestSshd,
  waitUntil,
  writeNginxSite,
  writePlaceholderCertificate,
} from '@certlane/connectors/testing';
import { NatsBus } from '@certlane/platform';
import {
  eventually,
  httpsRequest,
  HttpsResult,
  recordSecrets,
  startTestSystem,
  testNatsUrl,
  TestSystem,
} from '@certlane/testing';
import { Client } from 'pg';

const CN = 'localhost';

/**
 * Agentless SSH deployment through real services only (ADR 0031): auth, issuance (server key
 * generation), revocation, deployment-dispatch and the gateway as built processes; a real sshd and
 * a real nginx on loopback high ports. The API creates an `ssh` target and a certificate and asks
 * for a deployment; deployment-dispatch consumes issuance.v1.job.created, claims the job, uploads
 * over SFTP, reloads nginx over SSH, verifies the served leaf and reports.
 */
describe('agentless SSH deployment (all real processes, sshd and nginx)', () => {
  let system: TestSystem;
  let admin: string;
  let sshd: TestSshd;
  let dir: string;
  let port: number;
  let nginx: ServerProcess | undefined;
  let bus: NatsBus;
  let db: Client;
  let site: ServerSite;
  const certPath = () => join(dir, 'certs', 'fullchain.pem');
  const keyPath = () => join(dir, 'certs', 'server.key');

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
  const served = () => opensslServedFingerprint(port, { serverName: CN });
  const sshConfig = (overrides: Record<string, unknown> = {}) => ({
    host: '127.0.0.1',
    port: sshd.port,
    username: 'root',
    auth_method: 'key',
    private_key: sshd.clientPrivateKey,
    host_key_fingerprint: sshd.hostKeyFingerprint,
    cert_path: certPath(),
    key_path: keyPath(),
    validate_command: site.validateCommand,
    reload_command: site.reloadCommand,
    ...overrides,
  });
  const createTarget = async (id: string, config: Record<string, unknown>) => {
    const created = await api('POST', '/api/v1/targets', {
      id,
      name: id,
      type: 'ssh',
      config,
      endpoint: `127.0.0.1:${port}`,
    });
    expect(created.status).toBe(201);
    const target = json<TargetDto>(created);
    expect(target.config.private_key).toBe('********');
    return target;
  };
  /** A target deployment-dispatch does not run itself (not ssh, no agent): it leaves the job alone. */
  const leftAlone = async (id: string) => {
    const created = await api('POST', '/api/v1/targets', {
      id,
      name: id,
      type: 'aws_acm',
      config: { region: 'eu-west-1' },
    });
    expect(created.status).toBe(201);
    return id;
  };
  const issuedCertificate = async (id: string) => {
    expect(
      (await api('POST', '/api/v1/certificates', { id, common_name: CN, key_algorithm: 'ECDSA-P256' }))
        .status,
    ).toBe(201);
    await eventually(
      async () => json<CertificateDto>(await api('GET', `/api/v1/certificates/${id}`)).status === 'Active',
      `certificate ${id} issued`,
    );
    return json<CertificateDto>(await api('GET', `/api/v1/certificates/${id}`));
  };
  const exportedFingerprint = async (id: string) =>
    new X509Certificate(
      json<{ cert_pem: string }>(await api('GET', `/api/v1/certificates/${id}/export/pem`)).cert_pem,
    ).fingerprint256
      .replace(/:/g, '')
      .toLowerCase();
  const deploy = async (certificateId: string, targetId: string) => {
    const response = await api('POST', `/api/v1/certificates/${certificateId}/deploy`, {
      target_id: targetId,
    });
    expect(response.status).toBe(202);
    return json<{ job_id: string }>(response).job_id;
  };
  const finished = async (jobId: string) => {
    let last: JobDto | undefined;
    await eventually(
      async () => {
        last = await job(jobId);
        return last.status === 'Completed' || last.status === 'Failed';
      },
      `job ${jobId} finished (sshd: ${sshd.output().slice(-2000)})`,
    );
    return last as JobDto;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-agentless-'));
    sshd = await startTestSshd();
    port = await freePort();
    site = writeNginxSite(dir, port, { serverName: CN, binary: '/usr/sbin/nginx' });
    // nginx needs a certificate to start: a self-signed placeholder the deployment replaces.
    const placeholder = writePlaceholderCertificate(keyPath(), certPath());
    nginx = site.start();
    await waitUntil(() => served() === placeholder, 'nginx serving the placeholder');

    system = await startTestSystem(
      'agentless',
      ['auth', 'issuance', 'revocation', 'deployment-dispatch', 'api-gateway'],
      { SERVICE_KEYGEN_MODE: 'server' },
    );
    admin = system.env.SERVICE_AUTH_SECRET!;
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'agentless-test',
      requestTimeoutMs: 10_000,
      namespace: system.env.SERVICE_NATS_NAMESPACE,
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await bus?.close();
    await nginx?.stop();
    if (sshd) recordSecrets('ssh client key', [sshd.clientPrivateKey]);
    if (dir) {
      recordSecrets(
        'deployed private keys',
        [keyPath(), `${keyPath()}.certlane-prev`].flatMap((path) => {
          try {
            return [readFileSync(path, 'utf8')];
          } catch {
            return [];
          }
        }),
      );
    }
    await sshd?.stop();
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('deploys over SSH: nginx reloaded remotely serves the new leaf, the job is Completed and verified', async () => {
    await createTarget('tgt-ssh-web', sshConfig());
    const certificate = await issuedCertificate('ssh-web');
    const jobId = await deploy(certificate.id, 'tgt-ssh-web');

    const done = await finished(jobId);
    expect(done.last_error).toBe('');
    expect(done.status).toBe('Completed');
    const fingerprint = await exportedFingerprint(certificate.id);
    expect(served()).toBe(fingerprint);
    expect(statSync(keyPath()).mode & 0o777).toBe(0o600);
    expect(
      new X509Certificate(readFileSync(certPath())).checkPrivateKey(
        createPrivateKey(readFileSync(keyPath())),
      ),
    ).toBe(true);

    const verification = await api('GET', `/api/v1/jobs/${jobId}/verification`);
    expect(verification.status).toBe(200);
    expect(json<JobVerificationDto>(verification)).toMatchObject({
      job_id: jobId,
      endpoint: `127.0.0.1:${port}`,
      result: 'verified',
      expected_fingerprint_sha256: fingerprint,
      served_fingerprint_sha256: fingerprint,
    });
    // One audit record for the claim and one for the outcome (the audit store is eventual).
    for (const action of ['job.deployment_started', 'job.deployment_finished']) {
      await eventually(async () => {
        const listed = json<{ data: { resource_id: string; outcome: string }[] }>(
          await api('GET', `/api/v1/audit?per_page=500&action=${action}`),
        ).data.filter((record) => record.resource_id === jobId);
        return listed.length === 1 && listed[0].outcome === 'success';
      }, `one ${action} audit record for ${jobId}`);
    }
  }, 120_000);

  it('a host key that is not the pinned one fails the job; nothing is uploaded', async () => {
    await createTarget('tgt-ssh-wrong-pin', sshConfig({ host_key_fingerprint: `SHA256:${'Q'.repeat(43)}` }));
    const certBefore = readFileSync(certPath());
    const keyBefore = readFileSync(keyPath());
    const jobId = await deploy('ssh-web', 'tgt-ssh-wrong-pin');
    const done = await finished(jobId);
    expect(done.status).toBe('Failed');
    expect(done.last_error).toContain(`host key mismatch: the server presents ${sshd.hostKeyFingerprint}`);
    expect(readFileSync(certPath())).toEqual(certBefore);
    expect(readFileSync(keyPath())).toEqual(keyBefore);
    expect((await api('GET', `/api/v1/jobs/${jobId}/verification`)).status).toBe(404);
  }, 60_000);

  it('a failing validate command fails the job with the previous files restored byte for byte', async () => {
    await createTarget(
      'tgt-ssh-bad-validate',
      sshConfig({ validate_command: `/usr/bin/test -e ${dir}/missing` }),
    );
    const servedBefore = served();
    const certBefore = readFileSync(certPath());
    const keyBefore = readFileSync(keyPath());
    const renewed = await api('POST', '/api/v1/certificates/ssh-web/renew');
    expect(renewed.status).toBe(202);
    await eventually(
      async () => (await exportedFingerprint('ssh-web')) !== servedBefore,
      'the renewed version issued',
    );
    const jobId = await deploy('ssh-web', 'tgt-ssh-bad-validate');
    const done = await finished(jobId);
    expect(done.status).toBe('Failed');
    expect(done.last_error).toMatch(/^validate failed: \/usr\/bin\/test exit code 1 \(rolled back\)$/);
    expect(readFileSync(certPath())).toEqual(certBefore);
    expect(readFileSync(keyPath())).toEqual(keyBefore);
    expect(served()).toBe(servedBefore);
  }, 90_000);

  it('a version without a server-held key (agent key generation) fails with a clear message', async () => {
    const certificate = await issuedCertificate('ssh-agent-keyed');
    // What a version issued from an agent's CSR looks like: no sealed key beside it.
    await db.query('DELETE FROM issuance.certificate_keys WHERE version_id = $1', [
      certificate.current_version_id,
    ]);
    const jobId = await deploy(certificate.id, 'tgt-ssh-web');
    const done = await finished(jobId);
    expect(done.status).toBe('Failed');
    expect(done.last_error).toContain('SERVICE_KEYGEN_MODE=server');
  }, 60_000);

  it('the claim is the lock: of concurrent claims of one job exactly one starts it', async () => {
    const jobId = await deploy('ssh-web', await leftAlone('tgt-left-alone-1'));
    expect((await job(jobId)).status).toBe('Pending');
    // Only a job started as an agentless deployment can be finished as one.
    await expect(
      bus.request('issuance.v1.finish-agentless-deployment', { job_id: jobId, status: 'Completed' }),
    ).rejects.toMatchObject({ code: 'job_invalid_transition' });
    const claims = await Promise.all(
      Array.from(
        { length: 6 },
        () =>
          bus.request('issuance.v1.start-agentless-deployment', {
            job_id: jobId,
          }) as Promise<AgentlessDeploymentStart>,
      ),
    );
    const started = claims.filter((claim) => claim.started);
    expect(started).toHaveLength(1);
    expect(
      claims.filter((claim) => !claim.started).map((claim) => (claim.started ? '' : claim.status)),
    ).toEqual(Array(5).fill('Running'));
    // The key crossed the bus sealed only.
    const [claim] = started;
    expect(claim.started && claim.private_key_sealed).not.toContain('PRIVATE KEY');
    const report = await bus.request('issuance.v1.finish-agentless-deployment', {
      job_id: jobId,
      status: 'Failed',
      error: 'test ends the claimed job',
    });
    expect(report.status).toBe('Failed');
    expect((await job(jobId)).attempts).toBe(1);
  }, 60_000);

  it('an agent that also sees the job (its certificate names the agent) cannot report on the claimed job', async () => {
    const registered = await api('POST', '/api/v1/agents', {
      id: 'ssh-side-agent',
      name: 'ssh-side-agent',
      hostname: 'h',
    });
    expect(registered.status).toBe(201);
    const agentKey = json<{ api_key: string }>(registered).api_key;
    const created = await api('POST', '/api/v1/certificates', {
      id: 'ssh-with-agent',
      common_name: CN,
      key_algorithm: 'ECDSA-P256',
      agent_id: 'ssh-side-agent',
    });
    expect(created.status).toBe(201);
    await eventually(
      async () =>
        json<CertificateDto>(await api('GET', '/api/v1/certificates/ssh-with-agent')).status === 'Active',
      'certificate ssh-with-agent issued',
    );
    const jobId = await deploy('ssh-with-agent', await leftAlone('tgt-left-alone-2'));
    const claim = await bus.request('issuance.v1.start-agentless-deployment', { job_id: jobId });
    expect(claim.started).toBe(true);
    const report = await httpsRequest(
      `${system.services['api-gateway'].url}/api/v1/agents/ssh-side-agent/jobs/${jobId}/status`,
      {
        method: 'POST',
        ca: system.ca,
        headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'Failed', error: 'not configured here' }),
      },
    );
    expect(report.status).toBe(400);
    expect(json<{ code: string; message: string }>(report)).toMatchObject({
      code: 'job_invalid_transition',
      message: `job ${jobId} is run by deployment-dispatch (agentless target); agents do not report it`,
    });
    expect((await job(jobId)).status).toBe('Running');
    const finished = await bus.request('issuance.v1.finish-agentless-deployment', {
      job_id: jobId,
      status: 'Completed',
    });
    expect(finished.status).toBe('Completed');
  }, 60_000);
});
