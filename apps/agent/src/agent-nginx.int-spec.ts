import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CertificateDto, JobDto, JobVerificationDto } from '@certlane/contracts';
import {
  freePort,
  hasBinary,
  opensslServedFingerprint,
  ServerProcess,
  startServer,
  waitUntil,
} from '@certlane/connectors/testing';
import {
  builtEntry,
  eventually,
  httpsRequest,
  HttpsResult,
  recordSecrets,
  startTestSystem,
  TestSystem,
} from '@certlane/testing';

const AGENT = 'nginx-agent-01';
const CN = 'shop.example.com';
const CERT = 'shop-web';
const TARGET = 'tgt-nginx-shop';

/** Every regular file under `root` (recursively). */
function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .map((f) => join(root, f))
    .filter((f) => statSync(f).isFile());
}

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
  let admin: string;
  let dir: string;
  let port: number;
  let nginx: ServerProcess | undefined;
  let child: ChildProcess | undefined;
  let output = '';
  let deployJob: string;
  const nginxDir = () => join(dir, 'nginx');
  const keyPath = () => join(nginxDir(), 'certs', 'server.key');
  const certPath = () => join(nginxDir(), 'certs', 'fullchain.pem');
  const stateDir = () => join(dir, 'agent-state');

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
  const jobsOf = async (certificateId: string) =>
    json<{ data: JobDto[] }>(await api('GET', `/api/v1/jobs?certificate_id=${certificateId}&per_page=100`))
      .data;
  const certificate = async () => json<CertificateDto>(await api('GET', `/api/v1/certificates/${CERT}`));
  const exportedFingerprint = async () => {
    const pem = json<{ cert_pem: string }>(
      await api('GET', `/api/v1/certificates/${CERT}/export/pem`),
    ).cert_pem;
    return execFileSync('openssl', ['x509', '-noout', '-fingerprint', '-sha256'], { input: pem })
      .toString()
      .replace(/^.*=/, '')
      .replace(/[:\s]/g, '')
      .toLowerCase();
  };
  const served = () => opensslServedFingerprint(port, { serverName: CN });
  const deployAndWait = async () => {
    const deployed = await api('POST', `/api/v1/certificates/${CERT}/deploy`, { target_id: TARGET });
    expect(deployed.status).toBe(202);
    const id = json<{ job_id: string }>(deployed).job_id;
    await eventually(async () => {
      const status = (await job(id)).status;
      if (status === 'Failed') throw new Error(`deployment failed: ${(await job(id)).last_error}`);
      return status === 'Completed';
    }, `the deployment completed (agent output: ${output})`);
    return id;
  };

  beforeAll(async () => {
    if (!hasBinary('nginx') || !hasBinary('openssl')) throw new Error('nginx and openssl are required');
    builtEntry('agent');
    dir = mkdtempSync(join(tmpdir(), 'certlane-agent-nginx-'));
    mkdirSync(join(nginxDir(), 'certs'), { recursive: true });
    mkdirSync(join(nginxDir(), 'logs'));
    system = await startTestSystem('agentnginx', [
      'auth',
      'issuance',
      'revocation',
      'deployment-dispatch',
      'api-gateway',
    ]);
    admin = system.env.SERVICE_AUTH_SECRET!;

    // nginx needs a certificate to start: a throw-away self-signed placeholder the agent replaces.
    port = await freePort();
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=placeholder',
        '-keyout',
        keyPath(),
        '-out',
        certPath(),
      ],
      { stdio: 'ignore' },
    );
    chmodSync(keyPath(), 0o600);
    const conf = join(nginxDir(), 'nginx.conf');
    const d = nginxDir();
    writeFileSync(
      conf,
      `daemon off;
worker_processes 1;
pid ${d}/nginx.pid;
error_log ${d}/logs/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${d}/body; proxy_temp_path ${d}/proxy; fastcgi_temp_path ${d}/fastcgi;
  uwsgi_temp_path ${d}/uwsgi; scgi_temp_path ${d}/scgi;
  server {
    listen 127.0.0.1:${port} ssl;
    server_name ${CN};
    ssl_certificate ${certPath()};
    ssl_certificate_key ${keyPath()};
    return 200 "ok\\n";
  }
}
`,
    );
    nginx = startServer('nginx', ['-p', `${d}/`, '-c', conf, '-e', `${d}/logs/error.log`]);
    const placeholder = execFileSync('openssl', [
      'x509',
      '-noout',
      '-fingerprint',
      '-sha256',
      '-in',
      certPath(),
    ])
      .toString()
      .replace(/^.*=/, '')
      .replace(/[:\s]/g, '')
      .toLowerCase();
    await waitUntil(() => served() === placeholder, `nginx serving the placeholder (${nginx?.output()})`);

    const nginxArgs = `nginx -p ${d}/ -c ${conf} -e ${d}/logs/error.log`;
    writeFileSync(
      join(dir, 'targets.json'),
      JSON.stringify({
        [TARGET]: {
          type: 'nginx',
          config: {
            cert_path: certPath(),
            key_path: keyPath(),
            validate_command: `${nginxArgs} -t`,
            reload_command: `${nginxArgs} -s reload`,
          },
          endpoint: `127.0.0.1:${port}`,
        },
      }),
    );
    writeFileSync(join(dir, 'server-ca.pem'), system.ca);
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await nginx?.stop();
    if (dir) {
      const keys = filesUnder(dir)
        .map((f) => readFileSync(f, 'utf8'))
        .filter((text) => text.includes('PRIVATE KEY'));
      recordSecrets('agent and nginx private keys', keys);
    }
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
    writeFileSync(join(dir, 'agent.key'), `${json<{ api_key: string }>(registered).api_key}\n`, {
      mode: 0o600,
    });

    const target = await api('POST', '/api/v1/targets', {
      id: TARGET,
      name: 'shop nginx',
      type: 'nginx',
      agent_id: AGENT,
      config: { cert_path: certPath(), key_path: keyPath() },
      endpoint: `127.0.0.1:${port}`,
    });
    expect(target.status).toBe(201);

    child = spawn(process.execPath, [builtEntry('agent')], {
      env: {
        PATH: process.env.PATH,
        SERVICE_SERVER_URL: system.services['api-gateway'].url,
        SERVICE_AGENT_ID: AGENT,
        SERVICE_AGENT_API_KEY_FILE: join(dir, 'agent.key'),
        SERVICE_SERVER_CA_BUNDLE_PATH: join(dir, 'server-ca.pem'),
        SERVICE_AGENT_STATE_DIR: stateDir(),
        SERVICE_AGENT_TARGETS_FILE: join(dir, 'targets.json'),
        SERVICE_AGENT_POLL_INTERVAL_SECONDS: '0.3',
        SERVICE_AGENT_HEARTBEAT_INTERVAL_SECONDS: '1',
        SERVICE_AGENT_BACKOFF_MAX_SECONDS: '2',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    await eventually(
      async () => json<{ status: string }>(await api('GET', `/api/v1/agents/${AGENT}`)).status === 'Online',
      `the agent came online (agent output: ${output})`,
    );
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
      `the Issuance job completed (agent output: ${output})`,
    );
    const issued = await certificate();
    expect(issued.status).toBe('Active');
    expect(
      statSync(join(stateDir(), 'keys', CERT, `${issued.current_version_id}.key.pem`)).mode & 0o777,
    ).toBe(0o600);
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
      `the renewal completed (agent output: ${output})`,
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
    const keyBody = readFileSync(keyPath(), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('-----'))
      .join('');
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
    expect(output).not.toContain('PRIVATE KEY');
  });
});
