import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { JobDto, JobVerificationDto, TargetType } from '@certlane/contracts';
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

const fingerprintOf = (pem: string) =>
  execFileSync('openssl', ['x509', '-noout', '-fingerprint', '-sha256'], { input: pem })
    .toString()
    .replace(/^.*=/, '')
    .replace(/[:\s]/g, '')
    .toLowerCase();

/** A throw-away self-signed certificate for the server to start with; the agent replaces it. */
function placeholder(cn: string, keyPath: string, certPath: string): string {
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
      `/CN=${cn}`,
      '-addext',
      `subjectAltName=DNS:${cn}`,
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ],
    { stdio: 'ignore' },
  );
  chmodSync(keyPath, 0o600);
  return fingerprintOf(readFileSync(certPath, 'utf8'));
}

const served = (kind: Kind) =>
  opensslServedFingerprint(kind.port!, { serverName: kind.cn, starttls: kind.starttls });

async function startAndWait(kind: Kind, server: ServerProcess, initial: string): Promise<void> {
  await waitUntil(
    () => served(kind) === initial,
    `${kind.type} serving its placeholder (${server.output()})`,
    20_000,
  );
}

async function haproxy(dir: string): Promise<Kind> {
  const d = join(dir, 'haproxy');
  mkdirSync(d);
  const cn = 'haproxy.example.com';
  const port = await freePort();
  const pem = join(d, 'site.pem');
  const initial = placeholder(cn, join(d, 'k.pem'), join(d, 'c.pem'));
  writeFileSync(pem, readFileSync(join(d, 'c.pem'), 'utf8') + readFileSync(join(d, 'k.pem'), 'utf8'), {
    mode: 0o600,
  });
  rmSync(join(d, 'k.pem'));
  const cfg = join(d, 'haproxy.cfg');
  writeFileSync(
    cfg,
    `global
  maxconn 64
defaults
  mode http
  timeout connect 2s
  timeout client 5s
  timeout server 5s
frontend fe
  bind 127.0.0.1:${port} ssl crt ${pem}
  http-request return status 200 content-type text/plain string ok
`,
  );
  // Master-worker mode: the master's pid stays, reload is USR2 to it (as systemd's reload does).
  const server = startServer('haproxy', ['-W', '-db', '-f', cfg, '-p', join(d, 'haproxy.pid')]);
  const kind: Kind = {
    type: 'haproxy',
    cn,
    certificate: 'srv-haproxy',
    target: 'tgt-haproxy',
    port,
    serverConfig: cfg,
    config: {
      pem_path: pem,
      validate_command: `haproxy -c -q -f ${cfg}`,
      reload_command: `kill -USR2 ${server.child.pid}`,
    },
    stop: () => server.stop(),
  };
  await startAndWait(kind, server, initial);
  return kind;
}

async function apache(dir: string): Promise<Kind> {
  const d = join(dir, 'apache');
  mkdirSync(join(d, 'certs'), { recursive: true });
  const cn = 'apache.example.com';
  const port = await freePort();
  const initial = placeholder(cn, join(d, 'certs', 'server.key'), join(d, 'certs', 'cert.pem'));
  writeFileSync(join(d, 'certs', 'chain.pem'), readFileSync(join(d, 'certs', 'cert.pem')));
  const conf = join(d, 'httpd.conf');
  const modules = '/usr/lib/apache2/modules';
  writeFileSync(
    conf,
    `ServerRoot ${d}
ServerName ${cn}
DefaultRuntimeDir ${d}
PidFile ${d}/httpd.pid
ErrorLog ${d}/error.log
LogLevel warn
LoadModule mpm_event_module ${modules}/mod_mpm_event.so
LoadModule authz_core_module ${modules}/mod_authz_core.so
LoadModule socache_shmcb_module ${modules}/mod_socache_shmcb.so
LoadModule ssl_module ${modules}/mod_ssl.so
User www-data
Group www-data
Listen 127.0.0.1:${port}
SSLSessionCache none
<VirtualHost 127.0.0.1:${port}>
  ServerName ${cn}
  SSLEngine on
  SSLCertificateFile ${d}/certs/cert.pem
  SSLCertificateChainFile ${d}/certs/chain.pem
  SSLCertificateKeyFile ${d}/certs/server.key
</VirtualHost>
`,
  );
  const server = startServer('apache2', ['-f', conf, '-DFOREGROUND']);
  const kind: Kind = {
    type: 'apache',
    cn,
    certificate: 'srv-apache',
    target: 'tgt-apache',
    port,
    serverConfig: conf,
    config: {
      cert_path: `${d}/certs/cert.pem`,
      chain_path: `${d}/certs/chain.pem`,
      key_path: `${d}/certs/server.key`,
      validate_command: `apache2 -f ${conf} -t`,
      reload_command: `apache2 -f ${conf} -k graceful`,
    },
    stop: () => server.stop(),
  };
  await startAndWait(kind, server, initial);
  return kind;
}

/** Caddy's CLI and server keep their state under HOME / XDG dirs: all inside the test dir. */
const caddyEnv = (dir: string) => ({
  HOME: join(dir, 'home'),
  XDG_DATA_HOME: join(dir, 'home', 'data'),
  XDG_CONFIG_HOME: join(dir, 'home', 'config'),
});

async function caddy(dir: string): Promise<Kind> {
  const d = join(dir, 'caddy');
  mkdirSync(join(d, 'certs'), { recursive: true });
  const cn = 'caddy.example.com';
  const port = await freePort();
  const adminPort = await freePort();
  const initial = placeholder(cn, join(d, 'certs', 'key.pem'), join(d, 'certs', 'cert.pem'));
  const caddyfile = join(d, 'Caddyfile');
  writeFileSync(
    caddyfile,
    `{
\tadmin 127.0.0.1:${adminPort}
\tauto_https disable_redirects
\tstorage file_system ${d}/storage
\tskip_install_trust
}
https://${cn}:${port} {
\tbind 127.0.0.1
\ttls ${d}/certs/cert.pem ${d}/certs/key.pem
\trespond "ok"
}
`,
  );
  const server = startServer(
    'caddy',
    ['run', '--config', caddyfile, '--adapter', 'caddyfile'],
    caddyEnv(dir),
  );
  const kind: Kind = {
    type: 'caddy',
    cn,
    certificate: 'srv-caddy',
    target: 'tgt-caddy',
    port,
    serverConfig: caddyfile,
    config: {
      cert_path: `${d}/certs/cert.pem`,
      key_path: `${d}/certs/key.pem`,
      validate_command: `caddy validate --config ${caddyfile} --adapter caddyfile`,
      // --force: Caddy skips a reload whose config text is unchanged (only the files changed).
      reload_command: `caddy reload --config ${caddyfile} --adapter caddyfile --address 127.0.0.1:${adminPort} --force`,
    },
    stop: () => server.stop(),
  };
  await startAndWait(kind, server, initial);
  return kind;
}

async function postfix(dir: string): Promise<Kind> {
  const d = join(dir, 'postfix');
  mkdirSync(d);
  // The postfix daemons traverse the directories as the postfix user.
  chmodSync(dir, 0o755);
  chmodSync(d, 0o755);
  for (const sub of ['conf', 'certs', 'queue', 'data']) mkdirSync(join(d, sub));
  chownSync(join(d, 'data'), Number(execFileSync('id', ['-u', 'postfix']).toString().trim()), userInfo().gid);
  const cn = 'mail.example.com';
  const port = await freePort();
  const initial = placeholder(cn, join(d, 'certs', 'key.pem'), join(d, 'certs', 'cert.pem'));
  const conf = join(d, 'conf');
  writeFileSync(
    join(conf, 'main.cf'),
    `compatibility_level = 3.6
queue_directory = ${d}/queue
data_directory = ${d}/data
mail_owner = postfix
setgid_group = postdrop
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
myhostname = ${cn}
mydestination =
maillog_file_prefixes = ${d}
maillog_file = ${d}/maillog
smtpd_tls_security_level = may
smtpd_tls_cert_file = ${d}/certs/cert.pem
smtpd_tls_key_file = ${d}/certs/key.pem
`,
  );
  const services = [
    `127.0.0.1:${port} inet n - n - - smtpd`,
    'pickup unix n - n 60 1 pickup',
    'cleanup unix n - n - 0 cleanup',
    'qmgr unix n - n 300 1 qmgr',
    'tlsmgr unix - - n 1000? 1 tlsmgr',
    'rewrite unix - - n - - trivial-rewrite',
    'bounce unix - - n - 0 bounce',
    'defer unix - - n - 0 bounce',
    'trace unix - - n - 0 bounce',
    'verify unix - - n - 1 verify',
    'flush unix n - n 1000? 0 flush',
    'proxymap unix - - n - - proxymap',
    'smtp unix - - n - - smtp',
    'relay unix - - n - - smtp',
    'showq unix n - n - - showq',
    'error unix - - n - - error',
    'retry unix - - n - - error',
    'discard unix - - n - - discard',
    'local unix - n n - - local',
    'anvil unix - - n - 1 anvil',
    'scache unix - - n - 1 scache',
    'postlog unix-dgram n - n - 1 postlogd',
  ];
  writeFileSync(join(conf, 'master.cf'), `${services.join('\n')}\n`);
  const server = startServer('postfix', ['-c', conf, 'start-fg']);
  const kind: Kind = {
    type: 'postfix',
    cn,
    certificate: 'srv-postfix',
    target: 'tgt-postfix',
    port,
    starttls: 'smtp',
    config: {
      cert_path: `${d}/certs/cert.pem`,
      key_path: `${d}/certs/key.pem`,
      validate_command: `postfix -c ${conf} check`,
      reload_command: `postfix -c ${conf} reload`,
    },
    stop: async () => {
      try {
        execFileSync('postfix', ['-c', conf, 'stop'], { stdio: 'ignore' });
      } catch {
        // not running
      }
      await server.stop();
    },
  };
  await startAndWait(kind, server, initial);
  return kind;
}

async function dovecot(dir: string): Promise<Kind> {
  const d = join(dir, 'dovecot');
  for (const sub of ['certs', 'run', 'state']) mkdirSync(join(d, sub), { recursive: true });
  const cn = 'imap.example.com';
  const port = await freePort();
  const initial = placeholder(cn, join(d, 'certs', 'key.pem'), join(d, 'certs', 'cert.pem'));
  const conf = join(d, 'dovecot.conf');
  writeFileSync(
    conf,
    `base_dir = ${d}/run
state_dir = ${d}/state
log_path = ${d}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = yes
ssl_cert = <${d}/certs/cert.pem
ssl_key = <${d}/certs/key.pem
passdb {
  driver = static
  args = password=unused
}
userdb {
  driver = static
  args = uid=nobody gid=nogroup home=${d}/home
}
service imap-login {
  chroot =
  inet_listener imap {
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
`,
  );
  const server = startServer('dovecot', ['-F', '-c', conf]);
  const kind: Kind = {
    type: 'dovecot',
    cn,
    certificate: 'srv-dovecot',
    target: 'tgt-dovecot',
    port,
    starttls: 'imap',
    config: {
      cert_path: `${d}/certs/cert.pem`,
      key_path: `${d}/certs/key.pem`,
      validate_command: `doveconf -c ${conf} -n`,
      reload_command: `doveadm -c ${conf} reload`,
    },
    stop: () => server.stop(),
  };
  await startAndWait(kind, server, initial);
  return kind;
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
  return /SHA256: ([0-9A-F:]+)/.exec(listing)?.[1].replace(/:/g, '').toLowerCase();
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
  let admin: string;
  let dir: string;
  let kinds: Kind[] = [];
  let child: ChildProcess | undefined;
  let output = '';
  const versions = new Map<string, string[]>(); // certificate -> fingerprints, oldest first
  const stateDir = () => join(dir, 'agent-state');
  const servers = () => kinds.filter((k) => k.port !== undefined);
  const kind = (type: TargetType) => kinds.find((k) => k.type === type)!;

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
  const exportedFingerprint = async (certificate: string) =>
    fingerprintOf(
      json<{ cert_pem: string }>(await api('GET', `/api/v1/certificates/${certificate}/export/pem`)).cert_pem,
    );
  const writeTargets = (overrides: Record<string, Record<string, string>> = {}) =>
    writeFileSync(
      join(dir, 'targets.json'),
      JSON.stringify(
        Object.fromEntries(
          kinds.map((k) => [
            k.target,
            {
              type: k.type,
              config: { ...k.config, ...overrides[k.target] },
              ...(k.port ? { endpoint: `127.0.0.1:${k.port}` } : {}),
            },
          ]),
        ),
      ),
    );
  /** Waits until every job is finished; returns them. */
  const finished = async (ids: string[], what: string): Promise<JobDto[]> => {
    let jobs: JobDto[] = [];
    await eventually(
      async () => {
        jobs = await Promise.all(ids.map(job));
        return jobs.every((j) => ['Completed', 'Failed', 'Cancelled'].includes(j.status));
      },
      `${what} (agent output: ${output})`,
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
    const [started] = await Promise.all([
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
    system = started;
    admin = system.env.SERVICE_AUTH_SECRET!;
    recordSecrets('keystore password', [STORE_PASSWORD]);
    writeTargets();
    writeFileSync(join(dir, 'server-ca.pem'), system.ca);
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await Promise.all(kinds.map((k) => k.stop?.()));
    if (dir) {
      const keys = readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .map((f) => join(dir, f))
        .filter((f) => statSync(f).isFile() && !f.endsWith('.p12'))
        .map((f) => readFileSync(f, 'utf8'))
        .filter((text) => text.includes('PRIVATE KEY'));
      recordSecrets('agent and server private keys', keys);
    }
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
    writeFileSync(join(dir, 'agent.key'), `${json<{ api_key: string }>(registered).api_key}\n`, {
      mode: 0o600,
    });
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

    child = spawn(process.execPath, [builtEntry('agent')], {
      env: {
        PATH: process.env.PATH,
        ...caddyEnv(dir),
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
    expect(output).not.toContain('PRIVATE KEY');
    expect(output).not.toContain(STORE_PASSWORD);
    expect(statSync(join(stateDir(), 'keys')).isDirectory()).toBe(true);
  });
});
