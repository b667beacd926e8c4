import { execFile, spawn, spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { createServer } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { AddressInfo } from 'node:net';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AcmeEabKeyCreated } from '@certlane/contracts';
import { NatsBus } from '@certlane/platform';
import {
  adminApiRequest,
  eventually,
  freePort,
  startTestSystem,
  testNatsUrl,
  TestSystem,
} from '@certlane/testing';
import { Client } from 'pg';
import { acmeCertificateOf, boundAccountOf, servedCertificate } from './testing/client-checks';

const run = promisify(execFile);
const MODULES = '/usr/lib/apache2/modules';

/**
 * Apache httpd's own ACME client, mod_md (Debian's apache2; .ci/run installs it for the target
 * tests), unmodified: it registers with external account binding, names an ACME profile in
 * newOrder (MDProfile, draft-ietf-acme-profiles), answers http-01 from its own server, activates the
 * certificate on a graceful restart and serves it, and follows renewal information (MDRenewViaARI,
 * RFC 9773) when an operator asks for an early renewal, naming what it replaces.
 */
describe('ACME server with Apache mod_md', () => {
  let system: TestSystem;
  let db: Client;
  let work: string;
  let httpPort: number;
  let httpsPort: number;
  let apache: ReturnType<typeof spawn> | undefined;
  let conf: string;
  let ocspOrigin: { url: string; close: () => Promise<void> };

  beforeAll(async () => {
    httpPort = await freePort();
    httpsPort = await freePort();
    system = await startTestSystem(
      'acmemd',
      ['api-gateway', 'issuance', 'protocol-frontends', 'revocation'],
      {
        SERVICE_ACME_HTTP01_PORT: String(httpPort),
      },
    );
    // The certificates name an http origin in front of the revocation service first (the
    // issuer's publication base, ADR 0038, as README's nginx recipe sets it up), so mod_md can
    // fetch OCSP responses to staple (MDStapling).
    ocspOrigin = await forwardOverHttp(system.services.revocation.url, system.ca);
    const bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'acme-md-test',
      requestTimeoutMs: 10_000,
      namespace: system.env.SERVICE_NATS_NAMESPACE,
    });
    try {
      await bus.request('issuance.v1.update-issuer', {
        id: 'iss-local',
        config: { publication_base_url: ocspOrigin.url },
      });
    } finally {
      await bus.close();
    }
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    const profile = await adminApiRequest(system, 'POST', '/api/v1/admin/acme/profiles', {
      id: 'web',
      description: 'web servers, EAB required',
      external_account_required: true,
    });
    expect(profile.status).toBe(201);
    const short = await adminApiRequest(system, 'POST', '/api/v1/admin/acme/profiles', {
      id: 'short',
      description: 'ten-day certificates',
      validity_days: 10,
    });
    expect(short.status).toBe(201);
    // Apache's children (www-data) read mod_md's store and the challenge files under it.
    work = mkdtempSync(join(tmpdir(), 'certlane-acme-md-'));
    chmodSync(work, 0o755);
  }, 120_000);

  afterAll(async () => {
    // SIGTERM stops Apache's children with it (a SIGKILL would leave them holding its output).
    if (apache && apache.exitCode === null) {
      const exited = new Promise((resolve) => apache!.once('exit', resolve));
      apache.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      apache.kill('SIGKILL');
    }
    await db?.end();
    await ocspOrigin?.close();
    await system?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  let output = '';
  // Apache's output and its error log, without mod_md's watchdog ticks.
  const errorLog = () =>
    (output + (existsSync(join(work, 'error.log')) ? readFileSync(join(work, 'error.log'), 'utf8') : ''))
      .split('\n')
      .filter((line) => !/AH10055|AH10107/.test(line))
      .join('\n');

  /** The certificate Apache serves for `name` on its TLS port, if any. */
  const served = (name: string) => servedCertificate(httpsPort, name);

  const graceful = () => run('apache2', ['-f', conf, '-k', 'graceful']);

  it('registers with EAB at a profile directory, names another profile in newOrder (MDProfile), answers http-01, and serves both certificates', async () => {
    const created = await adminApiRequest(system, 'POST', '/api/v1/admin/acme/eab-keys', {
      description: 'apache mod_md',
      profile_id: 'web',
    });
    expect(created.status).toBe(201);
    const key = created.json() as AcmeEabKeyCreated;
    const caFile = join(work, 'ca.pem');
    writeFileSync(caFile, system.ca);
    const acme = system.services['protocol-frontends'].url;
    conf = join(work, 'httpd.conf');
    writeFileSync(
      conf,
      `ServerRoot ${work}
ServerName localhost
DefaultRuntimeDir ${work}
PidFile ${work}/httpd.pid
ErrorLog ${work}/error.log
LogLevel warn md:debug
LoadModule mpm_event_module ${MODULES}/mod_mpm_event.so
LoadModule authz_core_module ${MODULES}/mod_authz_core.so
LoadModule socache_shmcb_module ${MODULES}/mod_socache_shmcb.so
LoadModule ssl_module ${MODULES}/mod_ssl.so
LoadModule md_module ${MODULES}/mod_md.so
User www-data
Group www-data
Listen 127.0.0.1:${httpPort}
Listen 127.0.0.1:${httpsPort}
SSLSessionCache none
MDPortMap 80:${httpPort} 443:${httpsPort}
MDCACertificateFile ${caFile}
MDContactEmail ops@example.com
MDCertificateAgreement accepted
MDStoreDir ${work}/md
MDCAChallenges http-01
MDRenewViaARI on
MDStapling on
MDCheckInterval 1s
MDRetryDelay 1s
<MDomain md-eab.localhost>
  MDCertificateAuthority ${acme}/acme/profile/web/directory
  MDExternalAccountBinding ${key.id} ${key.hmac_key}
</MDomain>
<MDomain md-short.localhost>
  MDCertificateAuthority ${acme}/acme/directory
  MDProfile short
</MDomain>
<MDomain md-dual.localhost>
  MDCertificateAuthority ${acme}/acme/directory
  MDPrivateKeys secp256r1 rsa2048
</MDomain>
<VirtualHost 127.0.0.1:${httpPort}>
  ServerName md-eab.localhost
  ServerAlias md-short.localhost md-dual.localhost
</VirtualHost>
<VirtualHost 127.0.0.1:${httpsPort}>
  ServerName md-eab.localhost
  SSLEngine on
</VirtualHost>
<VirtualHost 127.0.0.1:${httpsPort}>
  ServerName md-short.localhost
  SSLEngine on
</VirtualHost>
<VirtualHost 127.0.0.1:${httpsPort}>
  ServerName md-dual.localhost
  SSLEngine on
</VirtualHost>
`,
    );
    apache = spawn('apache2', ['-f', conf, '-DFOREGROUND'], { stdio: ['ignore', 'pipe', 'pipe'] });
    apache.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    apache.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const eab = await activated('md-eab.localhost');
    const short = await activated('md-short.localhost');

    const eabRecord = await acmeCertificateOf(db, eab.toString());
    expect(eabRecord).toMatchObject({ profile_id: 'web', revoked_at: null });
    expect(await boundAccountOf(db, key.id)).toBe(eabRecord!.account_id);
    // Asked at the default directory, ordered under the profile MDProfile named: its validity.
    expect(await acmeCertificateOf(db, short.toString())).toMatchObject({
      profile_id: 'short',
      revoked_at: null,
    });
    const days = (Date.parse(short.validTo) - Date.parse(short.validFrom)) / 86_400_000;
    expect(Math.round(days)).toBe(10);
    expect(await inventoryVersions(short)).toBe(1);

    // An ECDSA and an RSA certificate for the same name (MDPrivateKeys): two certificates, each
    // its own inventory entry, neither recorded as the other's renewal.
    const dual: X509Certificate[] = [];
    await eventually(
      () => {
        dual.splice(0, dual.length, ...stagedOrActive('md-dual.localhost'));
        return dual.length === 2;
      },
      'mod_md holding an ECDSA and an RSA certificate for md-dual.localhost',
      150_000,
    ).catch((error) => {
      throw new Error(`${error.message}\n${errorLog().slice(-6000)}`);
    });
    expect(dual.map((certificate) => certificate.publicKey.asymmetricKeyType).sort()).toEqual(['ec', 'rsa']);
    const holders = new Set<string>();
    for (const certificate of dual) {
      const { rows } = await db.query(
        'SELECT certificate_id, replaced_by_id FROM protocol_frontends.acme_certificates WHERE serial_hex = $1',
        [(await acmeCertificateOf(db, certificate.toString()))!.serial_hex],
      );
      expect(rows).toEqual([{ certificate_id: expect.any(String), replaced_by_id: null }]);
      holders.add(rows[0].certificate_id);
      expect(await inventoryVersions(certificate)).toBe(1);
    }
    expect(holders.size).toBe(2);
  }, 240_000);

  it('RFC 6066 8: mod_md staples the OCSP response it fetched from the revocation service (MDStapling): good', async () => {
    const certificate = await served('md-eab.localhost');
    writeFileSync(join(work, 'ca.pem'), system.ca);
    const handshake = () =>
      spawnSync(
        'openssl',
        ['s_client', '-connect', `127.0.0.1:${httpsPort}`, '-servername', 'md-eab.localhost', '-status'],
        { input: '', encoding: 'utf8', timeout: 30_000 },
      ).stdout;
    await eventually(
      () => handshake().includes('OCSP Response Status: successful'),
      'Apache stapling an OCSP response',
      60_000,
    ).catch((error) => {
      throw new Error(
        `${error.message}\n${errorLog()
          .split('\n')
          .filter((line) => /ocsp|stapl/i.test(line))
          .join('\n')
          .slice(-6000)}`,
      );
    });
    const stapled = handshake();
    expect(stapled).toContain('Cert Status: good');
    expect(stapled.toLowerCase()).toContain(`serial number: ${certificate!.serialNumber.toLowerCase()}`);
  }, 120_000);

  it('RFC 9773: renews when an operator moves the renewal window (MDRenewViaARI), naming the certificate it replaces', async () => {
    const before = await served('md-short.localhost');
    const record = await acmeCertificateOf(db, before!.toString());
    const { rows } = await db.query(
      'SELECT id FROM protocol_frontends.acme_certificates WHERE serial_hex = $1',
      [record!.serial_hex],
    );
    const early = await adminApiRequest(
      system,
      'POST',
      `/api/v1/admin/acme/certificates/${rows[0].id}/renew-early`,
      { spread_minutes: 1 },
    );
    expect(early.status).toBe(200);
    const renewed = await activated('md-short.localhost', before!.serialNumber);
    expect(errorLog()).toMatch(/CA advises renew via ARI now/);
    const renewal = await acmeCertificateOf(db, renewed.toString());
    const { rows: orders } = await db.query(
      'SELECT replaces FROM protocol_frontends.acme_orders WHERE id = $1',
      [renewal!.order_id],
    );
    const { rows: replaced } = await db.query(
      'SELECT renewal_id FROM protocol_frontends.acme_certificates WHERE id = $1',
      [rows[0].id],
    );
    expect(orders[0].replaces).toBe(replaced[0].renewal_id);
    // The renewal is the next version of the same inventory certificate.
    expect(await inventoryVersions(renewed)).toBe(2);
  }, 240_000);

  /**
   * Waits for mod_md to stage a certificate for `name` other than the one whose serial is given,
   * activates it with a graceful restart, and answers the certificate Apache then serves.
   */
  async function activated(name: string, replacing?: string): Promise<X509Certificate> {
    // Staged, or already moved to domains/ by a graceful restart made for another domain.
    const files = ['staging', 'domains'].map((dir) => join(work, 'md', dir, name, 'pubcert.pem'));
    let staged: X509Certificate | undefined;
    await eventually(
      () => {
        if (apache?.exitCode !== null) throw new Error(`apache2 exited: ${errorLog()}`);
        for (const file of files) {
          // mod_md may be writing the file: one that does not parse yet is not staged yet.
          const pem = existsSync(file) ? readFileSync(file, 'utf8') : '';
          if (!pem.includes('-----END CERTIFICATE-----')) continue;
          const certificate = new X509Certificate(pem);
          if (certificate.serialNumber !== replacing) staged = certificate;
        }
        return staged !== undefined;
      },
      `mod_md staging a certificate for ${name}`,
      150_000,
    ).catch((error) => {
      throw new Error(`${error.message}\n${errorLog().slice(-6000)}`);
    });
    await graceful();
    // Until the restart has taken, Apache may still serve mod_md's fallback certificate for the
    // name (self-signed, the same subjectAltName): wait for the staged one itself.
    let certificate: X509Certificate | undefined;
    await eventually(
      async () => (certificate = await served(name))?.serialNumber === staged!.serialNumber,
      `Apache serving the certificate mod_md obtained for ${name}`,
      30_000,
    ).catch((error) => {
      throw new Error(`${error.message}\n${errorLog().slice(-6000)}`);
    });
    return certificate!;
  }

  /** The certificates mod_md holds for `name` (one per key type), staged or active. */
  function stagedOrActive(name: string): X509Certificate[] {
    for (const dir of ['staging', 'domains']) {
      const path = join(work, 'md', dir, name);
      if (!existsSync(path)) continue;
      const files = readdirSync(path).filter((file) => /^pubcert.*\.pem$/.test(file));
      // mod_md may be writing a file: one that is not a whole certificate yet is not held yet.
      const pems = files
        .map((file) => readFileSync(join(path, file), 'utf8'))
        .filter((pem) => pem.includes('-----END CERTIFICATE-----'));
      if (pems.length > 0) return pems.map((pem) => new X509Certificate(pem));
    }
    return [];
  }

  /** How many versions the inventory certificate holding this certificate has. */
  async function inventoryVersions(certificate: X509Certificate): Promise<number> {
    const serial = BigInt(`0x${certificate.serialNumber}`);
    const { rows } = await db.query<{ certificate_id: string; serial_number: string }>(
      'SELECT certificate_id, serial_number FROM issuance.certificate_versions',
    );
    const holder = rows.find((row) => BigInt(`0x${row.serial_number.replace(/:/g, '')}`) === serial);
    return rows.filter((row) => row.certificate_id === holder?.certificate_id).length;
  }
});

/**
 * A plain-http origin passing every request to `target` (an https service trusting `ca`), as an
 * operator's reverse proxy in front of the revocation service does for http-only relying parties.
 */
async function forwardOverHttp(
  target: string,
  ca: string,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((incoming, answer) => {
    const outgoing = httpsRequest(
      `${target}${incoming.url}`,
      {
        method: incoming.method,
        headers: { ...incoming.headers, host: new URL(target).host },
        ca,
      },
      (response) => {
        answer.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(answer);
      },
    );
    outgoing.on('error', () => answer.writeHead(502).end());
    incoming.pipe(outgoing);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
