import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { X509Certificate } from 'node:crypto';
import { freePort, startTestSystem, TestSystem } from '@certlane/testing';

const run = promisify(execFile);

/**
 * The ACME server against real, unmodified clients from Debian (lego and certbot): account,
 * order, http-01 validated by fetching from the client's own responder on a test port, finalize,
 * download, revoke. Names under `.localhost` are loopback (RFC 6761), so no DNS is needed.
 */
describe('ACME server with real clients', () => {
  let system: TestSystem;
  let directory: string;
  let gatewayDirectory: string;
  let http01Port: number;
  let work: string;
  let caFile: string;

  beforeAll(async () => {
    http01Port = await freePort();
    system = await startTestSystem('acmeclients', ['api-gateway', 'issuance', 'protocol-frontends'], {
      SERVICE_ACME_HTTP01_PORT: String(http01Port),
    });
    // lego goes through the gateway (the one origin of the split deployment, forwarded over the
    // bus), certbot to the protocol-frontends listener itself (as in the quick start).
    gatewayDirectory = `${system.services['api-gateway'].url}/acme/directory`;
    directory = `${system.services['protocol-frontends'].url}/acme/directory`;
    work = mkdtempSync(join(tmpdir(), 'certlane-acme-clients-'));
    caFile = join(work, 'ca.pem');
    writeFileSync(caFile, system.ca);
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const sans = (pem: string) => new X509Certificate(pem).subjectAltName;

  it('lego, through the gateway, registers, obtains a certificate with http-01 and revokes it', async () => {
    const path = join(work, 'lego');
    const common = [
      '--server',
      gatewayDirectory,
      '--path',
      path,
      '--email',
      'ops@example.com',
      '--accept-tos',
    ];
    const env = { ...process.env, LEGO_CA_CERTIFICATES: caFile };
    await run(
      'lego',
      [
        ...common,
        '--domains',
        'lego-test.localhost',
        '--http',
        '--http.port',
        `127.0.0.1:${http01Port}`,
        'run',
      ],
      { env, timeout: 90_000 },
    );
    const certPath = join(path, 'certificates', 'lego-test.localhost.crt');
    const pem = readFileSync(certPath, 'utf8');
    expect(sans(pem)).toBe('DNS:lego-test.localhost');
    expect(pem.match(/BEGIN CERTIFICATE/g)!.length).toBeGreaterThanOrEqual(2);

    // --keep: lego leaves the files in place, so the second revoke sends the same certificate.
    await run('lego', [...common, '--domains', 'lego-test.localhost', 'revoke', '--keep'], {
      env,
      timeout: 60_000,
    });
    const again = await run('lego', [...common, '--domains', 'lego-test.localhost', 'revoke'], {
      env,
      timeout: 60_000,
    }).catch((error: { stderr: string }) => error);
    // RFC 8555 7.6: revoking a revoked certificate is answered alreadyRevoked.
    expect(String((again as { stderr: string }).stderr)).toContain(
      'urn:ietf:params:acme:error:alreadyRevoked',
    );
  }, 120_000);

  it('certbot registers, obtains a certificate with standalone http-01 and revokes it', async () => {
    const dirs = ['config', 'work', 'logs'].map((d) => join(work, `certbot-${d}`));
    const common = [
      '--non-interactive',
      '--server',
      directory,
      '--config-dir',
      dirs[0],
      '--work-dir',
      dirs[1],
      '--logs-dir',
      dirs[2],
    ];
    const env = { ...process.env, REQUESTS_CA_BUNDLE: caFile };
    await run(
      'certbot',
      [
        'certonly',
        ...common,
        '--standalone',
        '--agree-tos',
        '-m',
        'ops@example.com',
        '--http-01-port',
        String(http01Port),
        '--http-01-address',
        '127.0.0.1',
        '-d',
        'certbot-test.localhost',
        '-d',
        'www.certbot-test.localhost',
      ],
      { env, timeout: 90_000 },
    );
    const live = join(
      dirs[0],
      'live',
      readdirSync(join(dirs[0], 'live')).find((n) => n.startsWith('certbot-test'))!,
    );
    const pem = readFileSync(join(live, 'cert.pem'), 'utf8');
    expect(sans(pem)?.split(', ').sort()).toEqual([
      'DNS:certbot-test.localhost',
      'DNS:www.certbot-test.localhost',
    ]);
    const { stdout, stderr } = await run(
      'certbot',
      [
        'revoke',
        ...common,
        '--cert-path',
        join(live, 'cert.pem'),
        '--reason',
        'keycompromise',
        '--no-delete-after-revoke',
      ],
      { env, timeout: 60_000 },
    );
    expect(`${stdout}${stderr}`).toMatch(/revoked/i);
  }, 120_000);
});
