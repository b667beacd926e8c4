import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobDto, JobVerificationDto, TargetType } from '@certlane/contracts';
import {
  caddyEnv,
  freePort,
  hasBinary,
  opensslFingerprint,
  keytoolEntrySha256,
  opensslServedFingerprint,
  ServerProcess,
  siteTargetConfig,
  waitUntil,
  writeApacheSite,
  writeCaddySite,
  writeDovecotSite,
  writeHaproxySite,
  writePlaceholderCertificate,
  writePostfixSite,
} from '@certlane/connectors/testing';
import { builtEntry, eventually, recordSecrets, startTestSystem, TestSystem } from '@certlane/testing';
import { adminApi, json } from './testing/admin-api';
import { writeAgentKey, writeServerCa, writeTargetsFile } from './testing/agent-files';
import { AgentProcess, startAgentProcess } from './testing/agent-process';
import { agentOnline } from './testing/agent-waits';
import { privateKeysUnder } from './testing/private-keys';

const AGENT = 'servers-agent-01';
const STORE_PASSWORD = 'keystore-secret-7731';

/** One target of the agent: a real server (or a keystore) with its certificate and target ids. */
interface Kind {
  type: TargetType;
  cn: string;
  certificate: string;
  target: string;
  /** The target's config in the agent's targets file (paths and commands). */
  config: Record<string, string>;
  /** Loopback port served; none for the keystore. */
  port?: number;
  starttls?: 'smtp' | 'imap';
  /** The server's own config file, for the broken-config case. */
  serverConfig?: string;
  stop?: () => Promise<void>;
}

const served = (kind: Kind) =>
  opensslServedFingerprint(kind.port!, { serverName: kind.cn, starttls: kind.starttls });

/**
 * A kind served by a real server: its placeholder certificate written, the server started and
 * serving it; the target config is the site's paths and commands.
 */
async function started(
  kind: Omit<Kind, 'config' | 'stop'>,
  site: { start(): ServerProcess },
  placeholder: string,
  config: (server: ServerProcess) => Record<string, string>,
): Promise<Kind> {
  const server = site.start();
  const ready: Kind = { ...kind, config: config(server), stop: () => server.stop() };
  await waitUntil(
    () => served(ready) === placeholder,
    `${kind.type} serving its placeholder (${server.output()})`,
    20_000,
  );
  return ready;
}

async function haproxy(dir: string): Promise<Kind> {
  const d = join(dir, 'haproxy');
  const cn = 'haproxy.example.com';
  const port = await freePort();
  const site = writeHaproxySite(d, port);
  const initial = writePlaceholderCertificate(join(d, 'k.pem'), join(d, 'c.pem'), cn);
  writeFileSync(
    site.pemPath,
    readFileSync(join(d, 'c.pem'), 'utf8') + readFileSync(join(d, 'k.pem'), 'utf8'),
    {
      mode: 0o600,
    },
  );
  rmSync(join(d, 'k.pem'));
  const kind = { type: 'haproxy', cn, certificate: 'srv-haproxy', target: 'tgt-haproxy', port } as const;
  return started({ ...kind, serverConfig: site.serverConfig }, site, initial, (server) => ({
    pem_path: site.pemPath,
    validate_command: site.validateCommand,
    reload_command: site.reloadCommand(server),
  }));
}

async function apache(dir: string): Promise<Kind> {
  const cn = 'apache.example.com';
  const port = await freePort();
  const site = writeApacheSite(join(dir, 'apache'), port, cn);
  const initial = writePlaceholderCertificate(site.keyPath, site.certPath, cn);
  writeFileSync(site.chainPath, readFileSync(site.certPath));
  const kind = { type: 'apache', cn, certificate: 'srv-apache', target: 'tgt-apache', port } as const;
  return started({ ...kind, serverConfig: site.serverConfig }, site, initial, () => ({
    cert_path: site.certPath,
    chain_path: site.chainPath,
    key_path: site.keyPath,
    validate_command: site.validateCommand,
    reload_command: site.reloadCommand,
  }));
}

async function caddy(dir: string): Promise<Kind> {
  const cn = 'caddy.example.com';
  const port = await freePort();
  const site = writeCaddySite(
    join(dir, 'caddy'),
    { port, adminPort: await freePort() },
    { serverName: cn, home: join(dir, 'home') },
  );
  const initial = writePlaceholderCertificate(site.keyPath, site.certPath, cn);
  const kind = { type: 'caddy', cn, certificate: 'srv-caddy', target: 'tgt-caddy', port } as const;
  return started({ ...kind, serverConfig: site.serverConfig }, site, initial, () => siteTargetConfig(site));
}

async function postfix(dir: string): Promise<Kind> {
  // The postfix daemons traverse the directories as the postfix user.
  chmodSync(dir, 0o755);
  const cn = 'mail.example.com';
  const port = await freePort();
  const site = writePostfixSite(join(dir, 'postfix'), port, cn);
  const initial = writePlaceholderCertificate(site.keyPath, site.certPath, cn);
  const kind = { type: 'postfix', cn, certificate: 'srv-postfix', target: 'tgt-postfix', port } as const;
  return started({ ...kind, starttls: 'smtp' }, site, initial, () => siteTargetConfig(site));
}

async function dovecot(dir: string): Promise<Kind> {
  const cn = 'imap.example.com';
  const port = await freePort();
  const site = writeDovecotSite(join(dir, 'dovecot'), port);
  const initial = writePlaceholderCertificate(site.keyPath, site.certPath, cn);
  const kind = { type: 'dovecot', cn, certificate: 'srv-dovecot', target: 'tgt-dovecot', port } as const;
  return started({ ...kind, starttls: 'imap' }, site, initial, () => siteTargetConfig(site));
}

function keystore(dir: string): Kind {
  const d = join(dir, 'keystore');
  mkdirSync(d);
  return {
    type: 'java_keystore',
    cn: 'tomcat.example.com',
    certificate: 'srv-keystore',
    target: 'tgt-keystore',
    config: {
      store_path: join(d, 'server.p12'),
      store_password: STORE_PASSWORD,
      alias: 'tomcat',
      store_type: 'PKCS12',
    },
  };
}

/** The SHA-256 of the key entry's certificate as the real keytool lists it. */
function keystoreFingerprint(kind: Kind): string | undefined {
  const listing = execFileSync(
    'keytool',
    [
      '-list',
      '-v',
      '-keystore',
      kind.config.store_path,
      '-storetype',
      'PKCS12',
      '-storepass',
      STORE_PASSWORD,
      '-alias',
      kind.config.alias,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  ).toString();
  expect(listing).toMatch(/Entry type: PrivateKeyEntry/);
  return keytoolEntrySha256(listing);
}

/**
 * Issue 7, "against real servers": one real services system and one real built agent process
 * (dist, TLS to the gateway, registered through the API, targets from SERVICE_AGENT_TARGETS_FILE)
 * deploy to real HAProxy, Apache httpd, Caddy, Postfix and Dovecot processes on loopback high
 * ports and to a PKCS#12 keystore read back by keytool. Per kind: issue from the agent's CSR,
 * deploy, served per `openssl s_client` (STARTTLS for the mail pair), renew from a new CSR,
 * deploy version 2, served, and the job's verification recorded by the agent itself (ADR 0032).
 * Then a broken HAProxy config (validate fails) and a Caddy reload that does not take effect
 * (verification fails): both rolled back, the old certificate still served, the jobs Failed.
 */
describe('agent + real servers: HAProxy, Apache, Caddy, Postfix, Dovecot, a Java keystore', () => {
  let system: TestSystem;
  let dir: string;
  let kinds: Kind[] = [];
  let agent: AgentProcess | undefined;
  const output = () => agent?.output() ?? '';
  const versions = new Map<string, string[]>(); // certificate -> fingerprints, oldest first
  const stateDir = () => join(dir, 'agent-state');
  const servers = () => kinds.filter((k) => k.port !== undefined);
  const kind = (type: TargetType) => kinds.find((k) => k.type === type)!;

  const { api, job } = adminApi(() => system);
  const exportedFingerprint = async (certificate: string) =>
    opensslFingerprint(
      json<{ cert_pem: string }>(await api('GET', `/api/v1/certificates/${certificate}/export/pem`)).cert_pem,
    );
  const writeTargets = (overrides: Record<string, Record<string, string>> = {}) =>
    writeTargetsFile(
      dir,
      kinds.map((k) => ({
        id: k.target,
        type: k.type,
        config: { ...k.config, ...overrides[k.target] },
        endpoint: k.port ? `127.0.0.1:${k.port}` : undefined,
      })),
    );
  /** Waits until every job is finished; returns them. */
  const finished = async (ids: string[], what: string): Promise<JobDto[]> => {
    let jobs: JobDto[] = [];
    await eventually(
      async () => {
        jobs = await Promise.all(ids.map(job));
        return jobs.every((j) => ['Completed', 'Failed', 'Cancelled'].includes(j.status));
      },
      `${what} (agent output: ${output()})`,
      45_000,
    );
    return jobs;
  };
  const deploy = async (k: Kind): Promise<string> => {
    const deployed = await api('POST', `/api/v1/certificates/${k.certificate}/deploy`, {
      target_id: k.target,
    });
    expect(deployed.status).toBe(202);
    return json<{ job_id: string }>(deployed).job_id;
  };
  /** Renews each certificate from a new agent CSR; records the new version's fingerprint. */
  const renew = async (some: Kind[]) => {
    const ids: string[] = [];
    for (const k of some) {
      const renewed = await api('POST', `/api/v1/certificates/${k.certificate}/renew`);
      expect(renewed.status).toBe(202);
      ids.push(json<{ job_id: string }>(renewed).job_id);
    }
    const jobs = await finished(ids, 'the renewals');
    expect(jobs.map((j) => [j.certificate_id, j.type, j.status])).toEqual(
      some.map((k) => [k.certificate, 'Renewal', 'Completed']),
    );
    for (const k of some) versions.get(k.certificate)!.push(await exportedFingerprint(k.certificate));
  };
  const latest = (k: Kind) => versions.get(k.certificate)!.at(-1)!;

  beforeAll(async () => {
    for (const binary of ['openssl', 'haproxy', 'apache2', 'caddy', 'postfix', 'dovecot', 'keytool']) {
      if (!hasBinary(binary)) throw new Error(`${binary} is required`);
    }
    builtEntry('agent');
    dir = mkdtempSync(join(tmpdir(), 'certlane-agent-servers-'));
    mkdirSync(join(dir, 'home'));
    const [running] = await Promise.all([
      startTestSystem('agentservers', [
        'auth',
        'issuance',
        'revocation',
        'deployment-dispatch',
        'api-gateway',
      ]),
      (async () => {
        kinds = [keystore(dir)];
        const results = await Promise.allSettled([
          haproxy(dir),
          apache(dir),
          caddy(dir),
          postfix(dir),
          dovecot(dir),
        ]);
        for (const result of results) if (result.status === 'fulfilled') kinds.push(result.value);
        const failure = results.find((r) => r.status === 'rejected');
        if (failure) throw (failure as PromiseRejectedResult).reason;
      })(),
    ]);
    system = running;
    recordSecrets('keystore password', [STORE_PASSWORD]);
    writeTargets();
    writeServerCa(dir, system.ca);
  }, 120_000);

  afterAll(async () => {
    if (agent && agent.child.exitCode === null) agent.child.kill('SIGKILL');
    await Promise.all(kinds.map((k) => k.stop?.()));
    if (dir)
      recordSecrets(
        'agent and server private keys',
        privateKeysUnder(dir, (f) => f.endsWith('.p12')),
      );
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('registers the agent and one target per kind through the API, and starts the built agent', async () => {
    const registered = await api('POST', '/api/v1/agents', {
      id: AGENT,
      name: AGENT,
      hostname: 'servers-host',
    });
    expect(registered.status).toBe(201);
    writeAgentKey(dir, json<{ api_key: string }>(registered).api_key);
    for (const k of kinds) {
      const paths = Object.fromEntries(Object.entries(k.config).filter(([key]) => !key.endsWith('_command')));
      const target = await api('POST', '/api/v1/targets', {
        id: k.target,
        name: `${k.type} target`,
        type: k.type,
        agent_id: AGENT,
        config: paths,
        ...(k.port ? { endpoint: `127.0.0.1:${k.port}` } : {}),
      });
      expect([k.type, target.status]).toEqual([k.type, 201]);
      if (k.type === 'java_keystore') expect(target.text).not.toContain(STORE_PASSWORD);
    }

    agent = startAgentProcess({
      dir,
      agentId: AGENT,
      serverUrl: system.services['api-gateway'].url,
      caPath: join(dir, 'server-ca.pem'),
      stateDir: stateDir(),
      env: caddyEnv(join(dir, 'home')),
    });
    await agentOnline(api, AGENT, agent.output);
  }, 60_000);

  it('issues one certificate per kind from the keys and CSRs the agent generates', async () => {
    const ids: string[] = [];
    for (const k of kinds) {
      const created = await api('POST', '/api/v1/certificates', {
        id: k.certificate,
        common_name: k.cn,
        key_algorithm: 'ECDSA-P256',
        agent_id: AGENT,
      });
      expect(created.status).toBe(201);
      const [issuance] = json<{ data: JobDto[] }>(
        await api('GET', `/api/v1/jobs?certificate_id=${k.certificate}`),
      ).data;
      ids.push(issuance.id);
    }
    const jobs = await finished(ids, 'the Issuance jobs');
    expect(jobs.map((j) => [j.type, j.status])).toEqual(kinds.map(() => ['Issuance', 'Completed']));
    for (const k of kinds) versions.set(k.certificate, [await exportedFingerprint(k.certificate)]);
  }, 60_000);

  /** Deploys the latest version everywhere and checks each server serves it and the agent verified it. */
  const deployEverywhere = async () => {
    const ids = new Map<Kind, string>();
    for (const k of kinds) ids.set(k, await deploy(k));
    const jobs = await finished([...ids.values()], 'the deployments');
    expect(jobs.map((j) => [j.target_id, j.status, j.last_error])).toEqual(
      kinds.map((k) => [k.target, 'Completed', '']),
    );
    for (const k of servers()) {
      expect([k.type, served(k)]).toEqual([k.type, latest(k)]);
      const verification = await api('GET', `/api/v1/jobs/${ids.get(k)}/verification`);
      expect([k.type, verification.status]).toEqual([k.type, 200]);
      expect(json<JobVerificationDto>(verification)).toMatchObject({
        certificate_id: k.certificate,
        endpoint: `127.0.0.1:${k.port}`,
        result: 'verified',
        expected_fingerprint_sha256: latest(k),
        served_fingerprint_sha256: latest(k),
      });
    }
    const store = kind('java_keystore');
    expect(keystoreFingerprint(store)).toBe(latest(store));
    expect(statSync(store.config.store_path).mode & 0o777).toBe(0o600);
    // The keystore has no endpoint: nothing was verified, so nothing is recorded.
    const none = await api('GET', `/api/v1/jobs/${ids.get(store)}/verification`);
    expect([none.status, json<{ code: string }>(none).code]).toEqual([404, 'verification_not_found']);
  };

  it('deploys to every server: reloaded, served per openssl s_client, verified by the agent', async () => {
    await deployEverywhere();
  }, 90_000);

  it('renews each from a new CSR; version 2 is deployed, served and verified by the agent', async () => {
    const before = new Map(servers().map((k) => [k, served(k)]));
    await renew(kinds);
    for (const k of kinds) expect(versions.get(k.certificate)).toHaveLength(2);
    for (const k of kinds) expect(new Set(versions.get(k.certificate)).size).toBe(2);
    for (const [k, fingerprint] of before) expect([k.type, served(k)]).toEqual([k.type, fingerprint]);
    await deployEverywhere();
  }, 120_000);

  it('a broken HAProxy config fails validation: rolled back, the old certificate served, the job Failed', async () => {
    const k = kind('haproxy');
    await renew([k]);
    const [previous, next] = versions.get(k.certificate)!.slice(-2);
    const pemBefore = readFileSync(k.config.pem_path);
    const original = readFileSync(k.serverConfig!, 'utf8');
    appendFileSync(k.serverConfig!, '  this-is-not-a-keyword at all\n');
    let failed: JobDto;
    try {
      [failed] = await finished([await deploy(k)], 'the deployment to the broken HAProxy');
    } finally {
      writeFileSync(k.serverConfig!, original);
    }
    expect(failed.status).toBe('Failed');
    expect(failed.last_error).toMatch(/^validate failed: haproxy exit code \d+/);
    expect(failed.last_error).toContain('[rolled back to the previous certificate]');
    expect(failed.last_error).toContain('rollback:ok');
    expect(readFileSync(k.config.pem_path)).toEqual(pemBefore);
    expect(served(k)).toBe(previous);
    expect(served(k)).not.toBe(next);
    // Validation failed before any reload: nothing was verified.
    const none = await api('GET', `/api/v1/jobs/${failed.id}/verification`);
    expect(none.status).toBe(404);
  }, 60_000);

  it('a Caddy reload that does not take effect fails verification: rolled back, the mismatch recorded', async () => {
    const k = kind('caddy');
    await renew([k]);
    const [previous, next] = versions.get(k.certificate)!.slice(-2);
    // The agent reads its targets file at each deployment: a reload command that does nothing.
    writeTargets({ [k.target]: { reload_command: 'true' } });
    let failed: JobDto;
    try {
      [failed] = await finished([await deploy(k)], 'the deployment with an ineffective reload');
    } finally {
      writeTargets();
    }
    expect(failed.status).toBe('Failed');
    expect(failed.last_error).toMatch(/^verify failed: /);
    expect(failed.last_error).toContain('[rolled back to the previous certificate]');
    expect(served(k)).toBe(previous);
    expect(
      json<JobVerificationDto>(await api('GET', `/api/v1/jobs/${failed.id}/verification`)),
    ).toMatchObject({
      result: 'mismatch',
      expected_fingerprint_sha256: next,
      served_fingerprint_sha256: previous,
    });
  }, 60_000);

  it('private keys stay in the agent state dir and the servers key files, never in the agent output', () => {
    expect(output()).not.toContain('PRIVATE KEY');
    expect(output()).not.toContain(STORE_PASSWORD);
    expect(statSync(join(stateDir(), 'keys')).isDirectory()).toBe(true);
  });
});
