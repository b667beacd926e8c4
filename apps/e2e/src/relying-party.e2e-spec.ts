import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SERVICE_NAMES } from '@certlane/contracts';
import { encodeOcspGetPath } from '@certlane/pki';
import {
  createTestDatabase,
  eventually,
  TestDatabase,
  testNatsUrl,
  uniqueNamespace,
} from '@certlane/testing';
import { curl, run } from './cli-tools';
import { freeBasePort } from './ports';

const WORKSPACE = resolve(__dirname, '../../..');

interface RunMode {
  name: string;
  program: string;
  /** Ports the run listens on from SERVICE_PORT (all must answer /ready). */
  ports: number;
  env: (database: TestDatabase) => Record<string, string>;
}

const MODES: RunMode[] = [
  {
    name: 'the quick start (npm start, one process) on a port other than 8443',
    program: 'dist/apps/quickstart/src/main.js',
    ports: 1,
    env: (database) => ({ SERVICE_DATABASE_URL: database.url }),
  },
  {
    name: 'the separate services (npm run start:services)',
    program: 'dist/apps/quickstart/src/start-services.js',
    ports: SERVICE_NAMES.length,
    env: (database) => ({
      SERVICE_DATABASE_URL: database.url,
      SERVICE_NATS_URL: testNatsUrl(),
      SERVICE_NATS_NAMESPACE: uniqueNamespace('e2erp'),
    }),
  },
];

/** The URIs of one extension as `openssl x509 -ext` prints them. */
function urisOf(text: string): string[] {
  return [...text.matchAll(/URI:(\S+)/g)].map((m) => m[1]);
}

/**
 * What a relying party does with a certificate the local CA issued, with the defaults of each run
 * mode (no SERVICE_REVOCATION_BASE_URL): take the OCSP URL and the CRL distribution point out of
 * the certificate and use them as they are, with openssl and curl (ARCHITECTURE 8, ADR 0038).
 */
describe.each(MODES)('relying parties of $name', (mode) => {
  let database: TestDatabase;
  let launcher: ChildProcess;
  let output = '';
  let base: number;
  let dir: string;
  let cacert: string;
  let key: string;
  let ocspUri: string;
  let crlUri: string;
  const origin = () => `https://localhost:${base}`;
  const openssl = (args: string[]) =>
    run(
      'openssl',
      args.map((a) => a.replace(/^@/, `${dir}/`)),
    );

  async function launch(): Promise<'ready' | 'port-taken'> {
    output = '';
    base = await freeBasePort(mode.ports);
    dir = mkdtempSync(join(tmpdir(), 'certlane-e2e-rp-'));
    launcher = spawn(process.execPath, [join(WORKSPACE, mode.program)], {
      env: {
        PATH: process.env.PATH,
        SERVICE_DATA_DIR: join(dir, 'data'),
        SERVICE_PORT: String(base),
        SERVICE_KEYGEN_MODE: 'server',
        SERVICE_LOG_LEVEL: 'warn',
        ...mode.env(database),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    launcher.stdout?.on('data', (c: Buffer) => (output += c.toString()));
    launcher.stderr?.on('data', (c: Buffer) => (output += c.toString()));
    cacert = join(dir, 'data', 'tls', 'server.crt');
    const deadline = Date.now() + 60_000;
    const pending = new Set(Array.from({ length: mode.ports }, (_, i) => base + i));
    while (pending.size > 0) {
      if (launcher.exitCode !== null) {
        if (output.includes('EADDRINUSE')) return 'port-taken';
        throw new Error(`${mode.program} exited early:\n${output}`);
      }
      if (Date.now() > deadline) throw new Error(`not ready on ports ${[...pending]}:\n${output}`);
      for (const port of pending) {
        const ready = await curl(`https://localhost:${port}/ready`, { cacert }).catch(() => undefined);
        if (ready?.status === 200) pending.delete(port);
      }
      if (pending.size) await new Promise((r) => setTimeout(r, 200));
    }
    key = JSON.parse(readFileSync(join(dir, 'data', 'secrets.json'), 'utf8')).auth_secret;
    return 'ready';
  }

  beforeAll(async () => {
    database = await createTestDatabase('e2erp');
    for (let attempt = 1; (await launch()) === 'port-taken'; attempt++) {
      if (attempt === 3) throw new Error(`a port was taken three times:\n${output}`);
    }
    const created = await curl(`${origin()}/api/v1/certificates`, {
      cacert,
      key,
      method: 'POST',
      body: { id: 'rp-web', common_name: 'rp.example.com', key_algorithm: 'ECDSA-P256' },
    });
    expect(created.status).toBe(201);
    const pem = (await curl(`${origin()}/api/v1/certificates/rp-web/export/pem`, { cacert, key })).json() as {
      cert_pem: string;
      chain_pem: string;
    };
    const [issuing, ...parents] = pem.chain_pem.match(
      /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g,
    )!;
    writeFileSync(join(dir, 'leaf.pem'), pem.cert_pem);
    writeFileSync(join(dir, 'issuing.pem'), issuing);
    writeFileSync(join(dir, 'root.pem'), parents[parents.length - 1]);
    writeFileSync(join(dir, 'chain.pem'), pem.chain_pem);
    ocspUri = (await openssl(['x509', '-in', '@leaf.pem', '-noout', '-ocsp_uri'])).stdout.trim();
    crlUri = urisOf(
      (await openssl(['x509', '-in', '@leaf.pem', '-noout', '-ext', 'crlDistributionPoints'])).stdout,
    )[0];
  }, 180_000);

  afterAll(async () => {
    if (launcher && launcher.exitCode === null) {
      const exited = new Promise((r) => launcher.once('exit', r));
      launcher.kill('SIGTERM');
      await exited;
    }
    await database?.drop();
  });

  /** `openssl ocsp -url <the certificate's OCSP URL>` (an RFC 6960 POST); its output. */
  async function ocspPost(): Promise<string> {
    const result = await openssl([
      'ocsp',
      '-issuer',
      '@issuing.pem',
      '-cert',
      '@leaf.pem',
      '-url',
      ocspUri,
      '-CAfile',
      '@chain.pem',
    ]);
    return `${result.stdout}\n${result.stderr}`;
  }

  /** curl of the certificate's CRL DP, then `openssl verify -crl_check` with that CRL. */
  async function verifyWithCrl(): Promise<{ code: number; output: string; headers: string }> {
    const fetched = await run('curl', [
      '--silent',
      '--show-error',
      '--fail',
      '--cacert',
      cacert,
      '-D',
      join(dir, 'crl.headers'),
      '-o',
      join(dir, 'crl.der'),
      crlUri,
    ]);
    expect(fetched).toMatchObject({ code: 0 });
    await openssl(['crl', '-inform', 'DER', '-in', '@crl.der', '-out', '@crl.pem']);
    const verified = await openssl([
      'verify',
      '-crl_check',
      '-CRLfile',
      '@crl.pem',
      '-CAfile',
      '@root.pem',
      '-untrusted',
      '@issuing.pem',
      '@leaf.pem',
    ]);
    return {
      code: verified.code,
      output: `${verified.stdout}\n${verified.stderr}`,
      headers: readFileSync(join(dir, 'crl.headers'), 'utf8'),
    };
  }

  it('embeds URLs on the run’s one public origin', () => {
    expect(ocspUri).toBe(`${origin()}/ocsp/iss-local`);
    expect(crlUri).toMatch(new RegExp(`^${origin()}/crl/iss-local/ca-[a-z0-9-]+\\.crl$`));
  });

  it('answers the certificate’s OCSP URL: openssl ocsp -url verifies a good response', async () => {
    const out = await ocspPost();
    expect(out).toContain('Response verify OK');
    expect(out).toMatch(/leaf\.pem: good/);
  });

  it('answers the RFC 5019 GET form of the OCSP URL with the OCSP cache headers', async () => {
    await openssl([
      'ocsp',
      '-issuer',
      '@issuing.pem',
      '-cert',
      '@leaf.pem',
      '-no_nonce',
      '-reqout',
      '@get.req',
    ]);
    const path = encodeOcspGetPath(readFileSync(join(dir, 'get.req')));
    const fetched = await run('curl', [
      '--silent',
      '--show-error',
      '--fail',
      '--cacert',
      cacert,
      '-D',
      join(dir, 'get.headers'),
      '-o',
      join(dir, 'get.resp'),
      `${ocspUri}/${path}`,
    ]);
    expect(fetched).toMatchObject({ code: 0 });
    const headers = readFileSync(join(dir, 'get.headers'), 'utf8').toLowerCase();
    expect(headers).toContain('content-type: application/ocsp-response');
    expect(headers).toMatch(/cache-control: max-age=\d+, public, no-transform, must-revalidate/);
    const checked = await openssl([
      'ocsp',
      '-respin',
      '@get.resp',
      '-issuer',
      '@issuing.pem',
      '-cert',
      '@leaf.pem',
      '-CAfile',
      '@chain.pem',
    ]);
    expect(`${checked.stdout}\n${checked.stderr}`).toContain('Response verify OK');
    expect(checked.stdout).toMatch(/: good/);
  });

  it('answers the certificate’s CRL DP: openssl verify -crl_check accepts the certificate', async () => {
    const verified = await verifyWithCrl();
    expect(verified.output).toContain('leaf.pem: OK');
    expect(verified.code).toBe(0);
    expect(verified.headers.toLowerCase()).toContain('content-type: application/pkix-crl');
  });

  it('shows a revocation at both URLs', async () => {
    const revoked = await curl(`${origin()}/api/v1/certificates/rp-web/revoke`, {
      cacert,
      key,
      method: 'POST',
      body: { reason: 'keyCompromise' },
    });
    expect(revoked.status).toBe(200);
    await eventually(async () => /leaf\.pem: revoked/.test(await ocspPost()), 'OCSP answering revoked');
    await eventually(
      async () => (await verifyWithCrl()).output.includes('certificate revoked'),
      'the CRL listing the certificate',
    );
  });
});
