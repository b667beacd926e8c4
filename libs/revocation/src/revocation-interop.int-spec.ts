import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRaw } from 'node:https';
import { tmpdir } from 'node:os';
import { connect as tlsConnect } from 'node:tls';
import { join } from 'node:path';
import { IssuedCertificateDto, RevocationList } from '@certlane/contracts';
import { NatsBus } from '@certlane/platform';
import { createCsr, encodeOcspGetPath, parseCrl, SoftwareKeyProvider } from '@certlane/pki';
import {
  eventually,
  httpsRequest,
  startServiceProcess,
  startTestSystem,
  testNatsUrl,
  TestSystem,
} from '@certlane/testing';
import { Client } from 'pg';

interface RawResult {
  status: number;
  body: Buffer;
  headers: Record<string, string | string[] | undefined>;
}

function raw(
  url: string,
  ca: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer } = {},
): Promise<RawResult> {
  return new Promise((resolve, reject) => {
    const req = httpsRaw(
      url,
      { method: options.method ?? 'GET', ca, agent: false, headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }),
        );
      },
    );
    req.once('error', reject);
    req.end(options.body);
  });
}

const provider = new SoftwareKeyProvider();

/**
 * The revocation service with the real issuance side (local CA) over real NATS and Postgres: the
 * CRL and OCSP answers change within a second of a revocation, and OpenSSL reads and verifies
 * them (`openssl crl -CAfile`, `openssl ocsp -url` for POST, the RFC 5019 GET form through
 * `openssl ocsp -respin`); the gateway routes of spec 4.4.
 */
describe('revocation service with the local CA: CRL and OCSP', () => {
  let system: TestSystem;
  let bus: NatsBus;
  let db: Client;
  let dir: string;
  let admin: string;
  let good: IssuedCertificateDto;
  let revoked: IssuedCertificateDto;
  const revocationUrl = () => system.services.revocation.url;

  const openssl = (args: string[]) => {
    const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    return { status: result.status, output: `${result.stdout}\n${result.stderr}`, stdout: result.stdout };
  };
  const api = (path: string) =>
    raw(`${system.services['api-gateway'].url}${path}`, system.ca, {
      headers: { authorization: `Bearer ${admin}` },
    });

  async function issue(name: string): Promise<IssuedCertificateDto> {
    const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const csr = await createCsr({
      subject: [['CN', name]],
      signer,
      subjectAltNames: [{ type: 'dns', value: name }],
    });
    return bus.request('issuance.v1.issue-certificate', { csr_pem: csr.pem });
  }

  /** `openssl ocsp` POSTing to the running service; returns what it printed about the serial. */
  function ocspPost(serial: string) {
    return openssl([
      'ocsp',
      '-issuer',
      'issuing.pem',
      '-serial',
      `0x${serial}`,
      '-url',
      `${revocationUrl()}/ocsp/iss-local`,
      '-CAfile',
      'chain.pem',
    ]);
  }

  /** `openssl ocsp` reading the response in `file` about `serial` and checking it against the chain. */
  function ocspCheck(file: string, serial: string) {
    return openssl([
      'ocsp',
      '-respin',
      file,
      '-issuer',
      'issuing.pem',
      '-serial',
      `0x${serial}`,
      '-CAfile',
      'chain.pem',
    ]);
  }

  /** An OCSP request without nonce about `serial`, made by openssl into `<name>.req`. */
  function ocspRequest(serial: string, name: string): Buffer {
    openssl([
      'ocsp',
      '-issuer',
      'issuing.pem',
      '-serial',
      `0x${serial}`,
      '-no_nonce',
      '-reqout',
      `${name}.req`,
    ]);
    return readFileSync(join(dir, `${name}.req`));
  }

  /** The RFC 5019 GET form: the request made by openssl, sent as GET, the response checked by openssl. */
  async function ocspGet(serial: string, name: string) {
    const request = ocspRequest(serial, name);
    const response = await raw(`${revocationUrl()}/ocsp/iss-local/${encodeOcspGetPath(request)}`, system.ca);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/ocsp-response');
    writeFileSync(join(dir, `${name}.resp`), response.body);
    const checked = ocspCheck(`${name}.resp`, serial);
    return { ...checked, headers: response.headers };
  }

  async function crlText(name: string) {
    const response = await raw(`${revocationUrl()}/crl/iss-local.crl`, system.ca);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/pkix-crl');
    writeFileSync(join(dir, name), response.body);
    return {
      ...openssl(['crl', '-inform', 'DER', '-in', name, '-noout', '-text', '-CAfile', 'chain.pem']),
      der: response.body,
    };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-revocation-'));
    system = await startTestSystem('revinterop', ['auth', 'issuance', 'revocation', 'api-gateway']);
    admin = system.env.SERVICE_AUTH_SECRET!;
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'revocation-interop-test',
      requestTimeoutMs: 10_000,
      namespace: system.env.SERVICE_NATS_NAMESPACE,
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    good = await issue('good.example.com');
    revoked = await issue('revoked.example.com');
    const [issuing, ...parents] = good.chain_pem.match(
      /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g,
    )!;
    writeFileSync(join(dir, 'issuing.pem'), issuing);
    writeFileSync(join(dir, 'root.pem'), parents[parents.length - 1]);
    writeFileSync(join(dir, 'chain.pem'), good.chain_pem);
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await bus?.close();
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('publishes a CRL signed by the issuing CA that openssl verifies, numbered from 1, valid 24 hours', async () => {
    const crl = await crlText('first.crl');
    expect(crl.output).toContain('verify OK');
    expect(crl.status).toBe(0);
    expect(crl.stdout).toMatch(/CRL Number:\s+1\b/);
    expect(crl.stdout).toContain('No Revoked Certificates');
    const parsed = parseCrl(crl.der);
    expect(parsed.nextUpdate!.getTime() - parsed.thisUpdate.getTime()).toBe(24 * 3600_000);
  });

  it('answers good over POST and GET, and unknown for a serial the local CA cannot have issued', async () => {
    const post = ocspPost(good.serial_hex);
    expect(post.output).toContain('Response verify OK');
    expect(post.output).toMatch(new RegExp(`0x${good.serial_hex}: good`));

    const get = await ocspGet(good.serial_hex, 'good-get');
    expect(get.output).toContain('Response verify OK');
    expect(get.output).toMatch(new RegExp(`0x${good.serial_hex}: good`));
    expect(get.headers['cache-control']).toMatch(/^max-age=\d+, public/);

    const unknown = ocspPost('1234');
    expect(unknown.output).toContain('Response verify OK');
    expect(unknown.output).toMatch(/0x1234: unknown/);
  });

  it('RFC 9112 3.2.2: answers a GET whose request target is in absolute form as the origin form', async () => {
    const target = `${revocationUrl()}/ocsp/iss-local/${encodeOcspGetPath(ocspRequest(good.serial_hex, 'abs'))}`;
    const { hostname, port, host } = new URL(target);
    const reply = await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const socket = tlsConnect(
        { host: hostname, port: Number(port), ca: system.ca, servername: 'localhost' },
        () => socket.write(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
      );
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('end', () => resolve(Buffer.concat(chunks)));
      socket.on('error', reject);
    });
    const split = reply.indexOf('\r\n\r\n');
    const head = reply.subarray(0, split).toString();
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head).toMatch(/content-type: application\/ocsp-response/i);
    expect(head).toMatch(/content-length: \d+/i);
    writeFileSync(join(dir, 'abs.resp'), reply.subarray(split + 4));
    const checked = ocspCheck('abs.resp', good.serial_hex);
    expect(checked.output).toContain('Response verify OK');
    expect(checked.output).toMatch(new RegExp(`0x${good.serial_hex}: good`));
  });

  it('shows a revocation in the CRL and in OCSP (POST and GET) within a second of its commit', async () => {
    // Cache the good answers first: the revocation must replace them at once.
    expect((await ocspGet(revoked.serial_hex, 'before')).output).toMatch(/: good/);
    const before = Number(/CRL Number:\s+(\d+)/.exec((await crlText('before.crl')).stdout)![1]);

    await bus.request('issuance.v1.revoke-certificate', {
      issuer_id: 'iss-local',
      serial_hex: revoked.serial_hex,
      reason: 'keyCompromise',
    });
    const committed = Date.now();
    let crl = await crlText('after.crl');
    await eventually(
      async () => {
        crl = await crlText('after.crl');
        return crl.stdout.toUpperCase().includes(revoked.serial_hex.toUpperCase());
      },
      'the revoked serial in the CRL',
      1000,
    );
    await eventually(
      async () => /: revoked/.test((await ocspGet(revoked.serial_hex, 'after')).output),
      'OCSP GET answering revoked',
      Math.max(1, 1000 - (Date.now() - committed)),
    );

    expect(crl.output).toContain('verify OK');
    expect(Number(/CRL Number:\s+(\d+)/.exec(crl.stdout)![1])).toBeGreaterThan(before);
    expect(crl.stdout).toMatch(
      new RegExp(
        `Serial Number: ${revoked.serial_hex.toUpperCase()}[\\s\\S]*?CRL Reason Code:\\s+Key Compromise`,
      ),
    );
    const post = ocspPost(revoked.serial_hex);
    expect(post.output).toContain('Response verify OK');
    expect(post.output).toMatch(new RegExp(`0x${revoked.serial_hex}: revoked`));
    expect(post.output).toMatch(/Reason: keyCompromise/);
    expect(post.output).toMatch(/Revocation Time: \w+ +\d+ [\d:]+ \d{4} GMT/);
    expect(ocspPost(good.serial_hex).output).toMatch(/: good/);
  });

  it('serves spec 4.4 through the gateway: JSON list, DER CRL, DER OCSP, 400, 404 and 501', async () => {
    const list = await httpsRequest(`${system.services['api-gateway'].url}/api/v1/crl`, {
      ca: system.ca,
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(list.status).toBe(200);
    const body = list.json() as RevocationList;
    expect(body.total).toBe(1);
    expect(body.version).toBeGreaterThanOrEqual(2);
    expect(body.entries).toEqual([
      {
        issuer_id: 'iss-local',
        serial_number: revoked.serial_hex,
        revocation_date: expect.any(String),
        revocation_reason: 'keyCompromise',
      },
    ]);

    const crl = await api('/api/v1/crl/iss-local');
    expect(crl.status).toBe(200);
    expect(crl.headers['content-type']).toBe('application/pkix-crl');
    expect(parseCrl(crl.body).entries.map((e) => e.serialNumber)).toEqual([revoked.serial_hex]);

    const ocsp = await api(`/api/v1/ocsp/iss-local/${revoked.serial_hex.toUpperCase()}`);
    expect(ocsp.status).toBe(200);
    expect(ocsp.headers['content-type']).toBe('application/ocsp-response');
    writeFileSync(join(dir, 'gateway.resp'), ocsp.body);
    const checked = openssl(['ocsp', '-respin', 'gateway.resp', '-resp_text', '-CAfile', 'chain.pem']);
    expect(checked.output).toContain('Response verify OK');
    expect(checked.output).toMatch(/Cert Status: revoked/);

    expect((await api('/api/v1/ocsp/iss-local/not-hex')).status).toBe(400);
    // Hex the route's pattern lets through that is no serial (zero, 21 octets): 400, not 500.
    for (const serial of ['0', '00', 'f'.repeat(40)]) {
      const refused = await api(`/api/v1/ocsp/iss-local/${serial}`);
      expect([serial, refused.status]).toEqual([serial, 400]);
      expect(JSON.parse(refused.body.toString()).code).toBe('validation_failed');
    }
    expect((await api('/api/v1/crl/iss-nope')).status).toBe(404);
    expect((await api('/api/v1/ocsp/iss-nope/4a11')).status).toBe(404);
    const vault = await httpsRequest(`${system.services['api-gateway'].url}/api/v1/issuers`, {
      method: 'POST',
      ca: system.ca,
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Vault',
        type: 'vault_pki',
        config: {
          address: 'https://vault.example.com',
          mount: 'pki',
          role: 'web',
          token: 's.0123456789abcdef',
        },
      }),
    });
    expect(vault.status).toBe(201);
    expect((await api('/api/v1/crl/iss-vault')).status).toBe(501);
    expect((await api('/api/v1/ocsp/iss-vault/4a11')).status).toBe(501);
    expect((await raw(`${revocationUrl()}/crl/iss-nope.crl`, system.ca)).status).toBe(404);
  });

  it('answers the relying-party paths on the gateway as on its own listener (ADR 0038)', async () => {
    const gateway = system.services['api-gateway'].url;
    for (const path of ['/crl/iss-local.crl', `/crl/iss-local/${good.ca_id}.crl`]) {
      const [direct, forwarded] = await Promise.all([
        raw(`${revocationUrl()}${path}`, system.ca),
        raw(`${gateway}${path}`, system.ca),
      ]);
      expect(forwarded.status).toBe(200);
      expect(forwarded.body.equals(direct.body)).toBe(true);
      for (const header of ['content-type', 'etag', 'last-modified', 'expires'])
        expect([path, header, forwarded.headers[header]]).toEqual([path, header, direct.headers[header]]);
    }
    expect((await raw(`${gateway}/crl/iss-local/nope.crl`, system.ca)).status).toBe(404);
    expect((await raw(`${gateway}/crl/iss-nope.crl`, system.ca)).status).toBe(404);

    const request = ocspRequest(good.serial_hex, 'gw');
    const get = await raw(`${gateway}/ocsp/iss-local/${encodeOcspGetPath(request)}`, system.ca);
    expect(get.status).toBe(200);
    expect(get.headers['content-type']).toBe('application/ocsp-response');
    expect(get.headers['cache-control']).toMatch(/^max-age=\d+, public, no-transform, must-revalidate$/);
    const post = await raw(`${gateway}/ocsp/iss-local`, system.ca, {
      method: 'POST',
      headers: { 'content-type': 'application/ocsp-request' },
      body: request,
    });
    expect(post.status).toBe(200);
    expect(post.headers['cache-control']).toBe('no-cache');
    expect(post.body.equals(get.body)).toBe(true);
    writeFileSync(join(dir, 'gw.resp'), post.body);
    const checked = ocspCheck('gw.resp', good.serial_hex);
    expect(checked.output).toContain('Response verify OK');
    expect(checked.output).toMatch(/: good/);

    const wrongType = await raw(`${gateway}/ocsp/iss-local`, system.ca, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: request,
    });
    expect(wrongType.status).toBe(415);
    const tooLarge = await raw(`${gateway}/ocsp/iss-local`, system.ca, {
      method: 'POST',
      headers: { 'content-type': 'application/ocsp-request' },
      body: Buffer.alloc(16 * 1024 + 1),
    });
    expect(tooLarge.status).toBe(413);
    // RFC 6960 2.3: a request that does not parse is answered malformedRequest (HTTP 200).
    const malformed = await raw(`${gateway}/ocsp/iss-local/bm90LW9jc3A%3D`, system.ca);
    expect(malformed.status).toBe(200);
    expect(malformed.body.equals(Buffer.from('30030a0101', 'hex'))).toBe(true);
  });

  it('keeps the revocation, the CRL number and the responder key across a restart', async () => {
    const responderBefore = await db.query(
      'SELECT sealed_private_key, certificate_pem FROM revocation.ocsp_responders',
    );
    expect(responderBefore.rowCount).toBe(1);
    expect(responderBefore.rows[0].sealed_private_key).not.toMatch(/PRIVATE KEY/);
    const numberBefore = Number(
      (await db.query('SELECT crl_number FROM revocation.crl_state')).rows[0].crl_number,
    );

    await system.services.revocation.stop();
    // RFC 6960 2.3: while no revocation service answers, the gateway's OCSP path says tryLater
    // (HTTP 200, an OCSP response that clients retry), not a JSON 503 they cannot read.
    const unanswered = openssl([
      'ocsp',
      '-issuer',
      'issuing.pem',
      '-serial',
      `0x${good.serial_hex}`,
      '-url',
      `${system.services['api-gateway'].url}/ocsp/iss-local`,
      '-CAfile',
      'chain.pem',
    ]);
    expect(unanswered.output).toMatch(/Responder Error: trylater \(3\)/);
    system.services.revocation = await startServiceProcess('revocation', system.env, { ca: system.ca });

    const post = ocspPost(revoked.serial_hex);
    expect(post.output).toContain('Response verify OK');
    expect(post.output).toMatch(/: revoked/);
    const get = await ocspGet(good.serial_hex, 'restart');
    expect(get.output).toMatch(/: good/);
    const crl = await crlText('restart.crl');
    expect(crl.stdout.toUpperCase()).toContain(revoked.serial_hex.toUpperCase());
    expect(Number(/CRL Number:\s+(\d+)/.exec(crl.stdout)![1])).toBeGreaterThanOrEqual(numberBefore);
    const responderAfter = await db.query('SELECT certificate_pem FROM revocation.ocsp_responders');
    expect(responderAfter.rows[0].certificate_pem).toBe(responderBefore.rows[0].certificate_pem);
    expect((await db.query('SELECT count(*)::int AS n FROM revocation.revocations')).rows[0].n).toBe(1);
  }, 60_000);
});
