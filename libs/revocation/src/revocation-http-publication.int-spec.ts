import { spawnSync } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IssuedCertificateDto } from '@certlane/contracts';
import {
  freePort,
  ServerProcess,
  ServerSite,
  startServer,
  writeApacheSite,
  writeNginxSite,
} from '@certlane/connectors/testing';
import { NatsBus } from '@certlane/platform';
import { createCsr, encodeOcspGetPath, SoftwareKeyProvider } from '@certlane/pki';
import { eventually, startTestSystem, testNatsUrl, TestSystem } from '@certlane/testing';

function httpGet(url: string): Promise<{ status: number; body: Buffer; type?: string }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks),
          type: res.headers['content-type'],
        }),
      );
    })
      .once('error', reject)
      .end();
  });
}

/**
 * nginx serving the publication directory over plain http, as an operator would run it: files for
 * CRLs and RFC 5019 OCSP GETs, and OCSP POSTs (which no file can answer) passed to the https
 * responder (`upstream`, trusted through `upstreamCa`).
 */
function writeNginxConfig(
  dir: string,
  root: string,
  port: number,
  upstream: { url: string; ca: string },
): string {
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    proxy_ssl_protocols TLSv1.3;
    proxy_ssl_verify on;
    proxy_ssl_trusted_certificate ${upstream.ca};
    proxy_ssl_name localhost;
    location /crl/ { types { } default_type application/pkix-crl; }
    location /ocsp/ {
      types { } default_type application/ocsp-response;
      if ($request_method = POST) { proxy_pass ${upstream.url}; }
    }
  }
}
`,
  );
  return conf;
}

const provider = new SoftwareKeyProvider();

/**
 * Plain-http relying parties (ADR 0038): with SERVICE_REVOCATION_PUBLISH_DIR and the issuer's
 * publication_base_url, issued certificates carry the http URLs first, and a real nginx serving
 * the directory answers `openssl verify -crl_download -crl_check` and RFC 5019 OCSP GETs, before
 * and after a revocation.
 */
describe('revocation files published for a static http server', () => {
  let system: TestSystem;
  let bus: NatsBus;
  let dir: string;
  let www: string;
  let nginx: ServerProcess;
  let httpBase: string;
  let leaf: IssuedCertificateDto;
  let leafKeyPem: string;

  const openssl = (args: string[]) => {
    const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    return { status: result.status, output: `${result.stdout}\n${result.stderr}`, stdout: result.stdout };
  };
  const verifyByDownload = () =>
    openssl([
      'verify',
      '-crl_download',
      '-crl_check',
      '-CAfile',
      'root.pem',
      '-untrusted',
      'issuing.pem',
      'leaf.pem',
    ]);

  /** The certificate's first OCSP URL with the RFC 5019 GET path, fetched from nginx. */
  async function ocspOverHttp(name: string) {
    openssl(['ocsp', '-issuer', 'issuing.pem', '-cert', 'leaf.pem', '-no_nonce', '-reqout', `${name}.req`]);
    const uri = openssl(['x509', '-in', 'leaf.pem', '-noout', '-ocsp_uri']).stdout.trim().split('\n')[0];
    const response = await httpGet(`${uri}/${encodeOcspGetPath(readFileSync(join(dir, `${name}.req`)))}`);
    if (response.status !== 200) return { status: response.status, output: '' };
    writeFileSync(join(dir, `${name}.resp`), response.body);
    const checked = openssl([
      'ocsp',
      '-respin',
      `${name}.resp`,
      '-issuer',
      'issuing.pem',
      '-cert',
      'leaf.pem',
      '-CAfile',
      'chain.pem',
    ]);
    return { status: response.status, type: response.type, output: checked.output };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-publication-'));
    // nginx's workers run as another user (nobody when started by root): they read the files.
    chmodSync(dir, 0o755);
    www = join(dir, 'www');
    mkdirSync(www);
    system = await startTestSystem('revpublish', ['auth', 'issuance', 'revocation'], {
      SERVICE_REVOCATION_PUBLISH_DIR: www,
    });
    writeFileSync(join(dir, 'service-ca.pem'), system.ca);
    const port = await freePort();
    httpBase = `http://127.0.0.1:${port}`;
    nginx = startServer('/usr/sbin/nginx', [
      '-p',
      `${dir}/`,
      '-c',
      writeNginxConfig(dir, www, port, {
        url: system.services.revocation.url,
        ca: join(dir, 'service-ca.pem'),
      }),
      '-e',
      `${dir}/error.log`,
    ]);
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'revocation-publication-test',
      requestTimeoutMs: 10_000,
      namespace: system.env.SERVICE_NATS_NAMESPACE,
    });
    await bus.request('issuance.v1.update-issuer', {
      id: 'iss-local',
      config: { publication_base_url: `${httpBase}/` },
    });
    const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    leafKeyPem = createPrivateKey({ key: signer.exportPkcs8(), format: 'der', type: 'pkcs8' })
      .export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const csr = await createCsr({ subject: [['CN', 'plain.example.com']], signer });
    // About one serial in 64 has a GET path ending in '/', which no file can answer (ADR 0038).
    do {
      leaf = await bus.request('issuance.v1.issue-certificate', { csr_pem: csr.pem });
      writeFileSync(join(dir, 'leaf.pem'), leaf.certificate_pem);
      writeFileSync(join(dir, 'issuing.pem'), leaf.chain_pem.split(/(?<=-----END CERTIFICATE-----\n?)/)[0]);
      openssl(['ocsp', '-issuer', 'issuing.pem', '-cert', 'leaf.pem', '-no_nonce', '-reqout', 'probe.req']);
    } while (readFileSync(join(dir, 'probe.req')).toString('base64').endsWith('/'));
    const [issuing, ...parents] = leaf.chain_pem.match(
      /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g,
    )!;
    writeFileSync(join(dir, 'issuing.pem'), issuing);
    writeFileSync(join(dir, 'root.pem'), parents[parents.length - 1]);
    writeFileSync(join(dir, 'chain.pem'), leaf.chain_pem);
  }, 90_000);

  afterAll(async () => {
    await nginx?.stop();
    await bus?.close();
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('embeds the http publication URLs first, then the https service (RFC 5280 4.2.1.13)', () => {
    const text = openssl(['x509', '-in', 'leaf.pem', '-noout', '-text']).stdout;
    const caId = leaf.ca_id;
    const cdp = [...text.matchAll(/URI:(\S+)/g)].map((m) => m[1]).filter((u) => u.includes('/crl/'));
    expect(cdp).toEqual([
      `${httpBase}/crl/iss-local/${caId}.crl`,
      `https://localhost:8443/crl/iss-local/${caId}.crl`,
    ]);
    expect(openssl(['x509', '-in', 'leaf.pem', '-noout', '-ocsp_uri']).stdout.trim().split('\n')).toEqual([
      `${httpBase}/ocsp/iss-local`,
      `https://localhost:8443/ocsp/iss-local`,
    ]);
  });

  it('serves the CA’s CRL over http at once: openssl verify -crl_download -crl_check accepts the certificate', async () => {
    await eventually(() => verifyByDownload().status === 0, 'the CRL downloadable from nginx');
    expect(verifyByDownload().output).toContain('leaf.pem: OK');
  });

  it('serves the certificate’s pre-signed good response to an RFC 5019 GET over http', async () => {
    await eventually(async () => (await ocspOverHttp('good')).status === 200, 'the OCSP file in nginx');
    const good = await ocspOverHttp('good');
    expect(good.type).toBe('application/ocsp-response');
    expect(good.output).toContain('Response verify OK');
    expect(good.output).toMatch(/leaf\.pem: good/);
  });

  /**
   * What a TLS client is stapled by the server at `port`: openssl s_client -status, until the
   * server has fetched a response (servers fetch on their first handshakes, in the background).
   */
  async function stapledStatus(port: number): Promise<string> {
    const handshake = () =>
      spawnSync('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-status', '-CAfile', 'root.pem'], {
        cwd: dir,
        input: '',
        encoding: 'utf8',
        timeout: 30_000,
      }).stdout;
    await eventually(
      () => handshake().includes('OCSP Response Status: successful'),
      'a stapled OCSP response',
    );
    return handshake();
  }

  /** A TLS site of a real server serving the leaf, started, stopped after `check`. */
  async function withSite(
    name: string,
    write: (siteDir: string, port: number) => ServerSite,
    check: (port: number) => Promise<void>,
  ) {
    const siteDir = join(dir, name);
    const port = await freePort();
    const site = write(siteDir, port);
    const [issuing] = leaf.chain_pem.match(
      /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g,
    )!;
    writeFileSync(
      site.certPath,
      site.certPath.endsWith('fullchain.pem') ? leaf.certificate_pem + issuing : leaf.certificate_pem,
    );
    writeFileSync(join(siteDir, 'certs', 'chain.pem'), issuing);
    writeFileSync(site.keyPath, leafKeyPem);
    const server = site.start();
    try {
      await check(port);
    } finally {
      await server.stop();
    }
  }

  it('nginx staples the published response, which it verifies (ssl_stapling_verify): the RFC 5019 GET answered by a file', async () => {
    await withSite(
      'nginx-site',
      (siteDir, port) => writeNginxSite(siteDir, port, { staplingTrust: join(dir, 'chain.pem') }),
      async (port) => {
        const status = await stapledStatus(port);
        expect(status).toContain('Cert Status: good');
        expect(status).toContain(`Serial Number: ${leaf.serial_hex.toUpperCase()}`);
      },
    );
  });

  it("Apache httpd's mod_ssl staples through the same http origin: its OCSP POST is passed to the https responder", async () => {
    await withSite(
      'apache-site',
      (siteDir, port) => writeApacheSite(siteDir, port, 'localhost', { stapling: true }),
      async (port) => {
        const status = await stapledStatus(port);
        expect(status).toContain('Cert Status: good');
        expect(status).toContain(`Serial Number: ${leaf.serial_hex.toUpperCase()}`);
      },
    );
  });

  it('replaces both files after a revocation', async () => {
    await bus.request('issuance.v1.revoke-certificate', {
      issuer_id: 'iss-local',
      serial_hex: leaf.serial_hex,
      reason: 'keyCompromise',
    });
    await eventually(
      () => verifyByDownload().output.includes('certificate revoked'),
      'the downloaded CRL revoking the certificate',
    );
    await eventually(
      async () => /leaf\.pem: revoked/.test((await ocspOverHttp('revoked')).output),
      'the published OCSP response saying revoked',
    );
    expect(verifyByDownload().status).not.toBe(0);
    const files = spawnSync('find', [www, '-name', '.*.tmp'], { encoding: 'utf8' }).stdout.trim();
    expect(files).toBe('');
  });
});
