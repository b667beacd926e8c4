import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

const PASSWORD = 'est-curl-password-0123';

/**
 * EST through the gateway of the split deployment to protocol-frontends and issuance, with curl
 * and openssl as the client (the RFC 7030 appendix style): cacerts, a first request without
 * credentials answered 401 and retried with them (curl --anyauth), simpleenroll read by
 * `openssl pkcs7 -print_certs`.
 */
describe('EST with curl and openssl', () => {
  let system: TestSystem;
  let gateway: string;
  let db: Client;
  const dir = mkdtempSync(join(tmpdir(), 'est-curl-'));
  const path = (name: string) => join(dir, name);

  function curl(args: string[]): { status: number; headers: string; body: string } {
    const result = spawnSync(
      'curl',
      [
        '-sS',
        '--cacert',
        path('ca.pem'),
        '-D',
        path('headers.txt'),
        '-o',
        path('body.txt'),
        '-w',
        '%{http_code}',
        ...args,
      ],
      { encoding: 'utf8' },
    );
    return {
      status: Number(result.stdout),
      headers: readFileSync(path('headers.txt'), 'utf8'),
      body: readFileSync(path('body.txt'), 'utf8'),
    };
  }
  const printCerts = (body: string): string[] => {
    writeFileSync(path('answer.b64'), body);
    execFileSync('openssl', ['base64', '-d', '-in', path('answer.b64'), '-out', path('answer.p7')]);
    const printed = execFileSync(
      'openssl',
      ['pkcs7', '-inform', 'DER', '-in', path('answer.p7'), '-print_certs', '-noout'],
      {
        encoding: 'utf8',
      },
    );
    return printed.match(/subject=.*/g) ?? [];
  };

  beforeAll(async () => {
    system = await startTestSystem('estcurl', ['auth', 'issuance', 'protocol-frontends', 'api-gateway']);
    gateway = system.services['api-gateway'].url;
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    writeFileSync(path('ca.pem'), system.ca);
    const created = await httpsRequest(`${gateway}/api/v1/admin/est/profiles`, {
      method: 'POST',
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        path_id: 'routers',
        auth_methods: ['basic'],
        basic_username: 'router',
        basic_password: PASSWORD,
      }),
    });
    expect(created.status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  it('RFC 7030 4.1: cacerts over the gateway is base64 certs-only PKCS#7 openssl reads', () => {
    const answer = curl([`${gateway}/.well-known/est/routers/cacerts`]);
    expect(answer.status).toBe(200);
    expect(answer.headers).toMatch(/content-type: application\/pkcs7-mime; smime-type=certs-only/i);
    expect(answer.headers).toMatch(/content-transfer-encoding: base64/i);
    expect(printCerts(answer.body).length).toBeGreaterThan(0);
  });

  it('RFC 7030 3.2.3: curl --anyauth is challenged first, retries with Basic, and enrolls into the inventory', async () => {
    execFileSync(
      'openssl',
      [
        'req',
        '-new',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        path('device.key'),
        '-out',
        path('device.csr'),
        '-subj',
        '/CN=device.example.test',
        '-addext',
        'subjectAltName=DNS:device.example.test',
      ],
      { stdio: 'ignore' },
    );
    const der = execFileSync('openssl', ['req', '-in', path('device.csr'), '-outform', 'DER']);
    writeFileSync(path('device.b64'), der.toString('base64'));
    const noCredentials = curl([
      '--data-binary',
      `@${path('device.b64')}`,
      '-H',
      'Content-Type: application/pkcs10',
      `${gateway}/.well-known/est/routers/simpleenroll`,
    ]);
    expect(noCredentials.status).toBe(401);
    expect(noCredentials.headers).toMatch(/www-authenticate: Basic realm="certlane EST routers"/i);
    const enrolled = curl([
      '--anyauth',
      '-u',
      `router:${PASSWORD}`,
      '--data-binary',
      `@${path('device.b64')}`,
      '-H',
      'Content-Type: application/pkcs10',
      `${gateway}/.well-known/est/routers/simpleenroll`,
    ]);
    expect([enrolled.status, enrolled.body.slice(0, 200)]).toEqual([200, expect.any(String)]);
    expect(printCerts(enrolled.body)).toEqual(['subject=CN = device.example.test']);
    const inventory = await db.query(
      `SELECT common_name, source FROM issuance.certificates WHERE common_name = 'device.example.test'`,
    );
    expect(inventory.rows).toEqual([{ common_name: 'device.example.test', source: 'EST' }]);
  });

  it("RFC 7030 4.5.2: csrattrs lists the certificate profile's required attributes openssl reads", async () => {
    const admin = (url: string, body: unknown) =>
      httpsRequest(`${gateway}${url}`, {
        method: 'POST',
        ca: system.ca,
        headers: {
          authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      });
    const certificateProfile = await admin('/api/v1/profiles', {
      id: 'est-attrs',
      name: 'EST attrs',
      required_csr_attributes: ['commonName', 'organizationName', 'noSuchName'],
    });
    expect(certificateProfile.status).toBe(201);
    const estProfile = await admin('/api/v1/admin/est/profiles', {
      path_id: 'attrs',
      auth_methods: ['basic'],
      basic_username: 'router',
      basic_password: PASSWORD,
      certificate_profile_id: 'est-attrs',
    });
    expect(estProfile.status).toBe(201);
    const answer = curl(['-u', `router:${PASSWORD}`, `${gateway}/.well-known/est/attrs/csrattrs`]);
    expect(answer.status).toBe(200);
    expect(answer.headers).toMatch(/content-type: application\/csrattrs/i);
    writeFileSync(path('attrs.b64'), answer.body);
    execFileSync('openssl', ['base64', '-d', '-in', path('attrs.b64'), '-out', path('attrs.der')]);
    const parsed = execFileSync('openssl', ['asn1parse', '-inform', 'DER', '-in', path('attrs.der')], {
      encoding: 'utf8',
    });
    expect(parsed.match(/:(commonName|organizationName)/g)).toEqual([':commonName', ':organizationName']);
  });

  it('answers 400, and does not hang, on a body labelled JSON', () => {
    const answer = curl([
      '-u',
      `router:${PASSWORD}`,
      '--max-time',
      '20',
      '--data-binary',
      '{"csr":"x"}',
      '-H',
      'Content-Type: application/json',
      `${gateway}/.well-known/est/routers/simpleenroll`,
    ]);
    expect(answer.status).toBe(400);
  });
});
