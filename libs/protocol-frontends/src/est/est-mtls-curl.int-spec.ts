import { execFileSync, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

/**
 * EST over mutual TLS with real clients (RFC 7030 3.3.2, 4.2.2, 3.5; ADR 0061): curl `--cert`
 * through the gateway of the split deployment (which passes on what the client presented) and on
 * protocol-frontends' own listener; CSRs and certificates by openssl. Channel binding needs the
 * connection's tls-exporter inside the CSR before it is sent, which no packaged client computes:
 * that client is Node's TLS socket with an `openssl req` CSR, speaking HTTP/1.1 itself.
 */
describe('EST over mutual TLS with curl and openssl', () => {
  let system: TestSystem;
  let gateway: string;
  let db: Client;
  const dir = mkdtempSync(join(tmpdir(), 'est-mtls-curl-'));
  const path = (name: string) => join(dir, name);
  const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });

  function curl(args: string[]): { status: number; body: string } {
    const result = spawnSync(
      'curl',
      ['-sS', '--cacert', path('server-ca.pem'), '-o', path('body.txt'), '-w', '%{http_code}', ...args],
      { encoding: 'utf8' },
    );
    return { status: Number(result.stdout), body: readFileSync(path('body.txt'), 'utf8') };
  }
  const enroll = (url: string, csrFile: string, identity?: string) =>
    curl([
      ...(identity ? ['--cert', path(`${identity}.chain.pem`), '--key', path(`${identity}.key`)] : []),
      '--data-binary',
      `@${csrFile}`,
      '-H',
      'Content-Type: application/pkcs10',
      url,
    ]);
  const printCerts = (body: string): string[] => {
    writeFileSync(path('answer.b64'), body);
    openssl(['base64', '-d', '-in', path('answer.b64'), '-out', path('answer.p7')]);
    const printed = execFileSync(
      'openssl',
      ['pkcs7', '-inform', 'DER', '-in', path('answer.p7'), '-print_certs', '-noout'],
      {
        encoding: 'utf8',
      },
    );
    return printed.match(/subject=.*/g) ?? [];
  };

  function ca(name: string, issuer?: string): void {
    if (!issuer) {
      openssl(
        ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2']
          .concat(['-keyout', path(`${name}.key`), '-out', path(`${name}.pem`), '-subj', `/CN=${name}`])
          .concat(['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=keyCertSign']),
      );
      return;
    }
    signed(name, issuer, `/CN=${name}`, 'basicConstraints=critical,CA:TRUE\nkeyUsage=keyCertSign\n');
  }
  function signed(name: string, issuer: string, subject: string, extensions: string): void {
    openssl(
      ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'].concat([
        '-keyout',
        path(`${name}.key`),
        '-out',
        path(`${name}.csr`),
        '-subj',
        subject,
      ]),
    );
    writeFileSync(path(`${name}.ext`), extensions);
    openssl(
      [
        'x509',
        '-req',
        '-in',
        path(`${name}.csr`),
        '-CA',
        path(`${issuer}.pem`),
        '-CAkey',
        path(`${issuer}.key`),
      ]
        .concat(['-set_serial', String(Date.now()), '-days', '2', '-out', path(`${name}.pem`)])
        .concat(['-extfile', path(`${name}.ext`)]),
    );
  }
  /** A device identity: key, certificate from `issuer` and the chain file curl presents. */
  function identity(name: string, issuer: string, cn: string, chain: string[] = []): void {
    signed(name, issuer, `/CN=${cn}`, `extendedKeyUsage=clientAuth\nsubjectAltName=DNS:${cn}\n`);
    writeFileSync(
      path(`${name}.chain.pem`),
      [name, ...chain].map((file) => readFileSync(path(`${file}.pem`), 'utf8')).join(''),
    );
  }
  /** A base64 DER CSR file; a challengePassword when given (all from a config: -subj drops it). */
  function csr(name: string, cn: string, challengePassword?: string): string {
    const config = ['[req]', 'prompt=no', 'distinguished_name=dn', 'attributes=attrs', '[dn]', `CN=${cn}`]
      .concat(['[attrs]', ...(challengePassword ? [`challengePassword=${challengePassword}`] : [])])
      .join('\n');
    writeFileSync(path(`${name}.cnf`), `${config}\n`);
    openssl(
      ['req', '-new', '-config', path(`${name}.cnf`), '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']
        .concat(['-nodes', '-keyout', path(`${name}.csrkey`), '-out', path(`${name}.req`)])
        .concat(['-addext', `subjectAltName=DNS:${cn}`]),
    );
    const der = execFileSync('openssl', ['req', '-in', path(`${name}.req`), '-outform', 'DER']);
    writeFileSync(path(`${name}.b64`), der.toString('base64'));
    return path(`${name}.b64`);
  }
  const admin = (method: string, url: string, body?: unknown) =>
    httpsRequest(`${gateway}${url}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        'content-type': 'application/json',
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  const counters = async (pathId: string): Promise<Record<string, number>> => {
    const list = JSON.parse((await admin('GET', '/api/v1/admin/est/profiles')).text) as {
      data: { path_id: string; counters: Record<string, number> }[];
    };
    return list.data.find((profile) => profile.path_id === pathId)!.counters;
  };

  beforeAll(async () => {
    system = await startTestSystem('estmtls', ['auth', 'issuance', 'protocol-frontends', 'api-gateway'], {
      SERVICE_TLS_REQUEST_CLIENT_CERT: 'true',
    });
    gateway = system.services['api-gateway'].url;
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    writeFileSync(path('server-ca.pem'), system.ca);
    ca('Fleet Root');
    ca('Fleet Issuing', 'Fleet Root');
    ca('Stranger Root');
    identity('dev1', 'Fleet Issuing', 'dev1.fleet.test', ['Fleet Issuing']);
    identity('dev2', 'Fleet Issuing', 'dev2.fleet.test', ['Fleet Issuing']);
    identity('stranger', 'Stranger Root', 'stranger.fleet.test');
    const trust = readFileSync(path('Fleet Root.pem'), 'utf8');
    for (const [pathId, binding] of [
      ['fleet', false],
      ['bound', true],
    ] as const) {
      const created = await admin('POST', '/api/v1/admin/est/profiles', {
        path_id: pathId,
        auth_methods: ['mtls'],
        trust_bundle_pem: trust,
        channel_binding_required: binding,
      });
      expect([created.status, created.text]).toEqual([201, expect.any(String)]);
    }
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  it('RFC 7030 3.3.2: curl --cert with a chain to the trust bundle enrolls through the gateway, into the inventory', async () => {
    const answer = enroll(
      `${gateway}/.well-known/est-mtls/fleet/simpleenroll`,
      csr('n1', 'n1.fleet.test'),
      'dev1',
    );
    expect([answer.status, answer.body.slice(0, 120)]).toEqual([200, expect.any(String)]);
    expect(printCerts(answer.body)).toEqual(['subject=CN = n1.fleet.test']);
    const inventory = await db.query(
      `SELECT source, tags->>'est_profile' AS profile FROM issuance.certificates WHERE common_name = 'n1.fleet.test'`,
    );
    expect(inventory.rows).toEqual([{ source: 'EST', profile: 'fleet' }]);
  });

  it("RFC 7030 3.3.2: curl --cert enrolls on protocol-frontends' own listener too (the quick start's)", () => {
    const direct = system.services['protocol-frontends'].url;
    const answer = enroll(
      `${direct}/.well-known/est-mtls/fleet/simpleenroll`,
      csr('n2', 'n2.fleet.test'),
      'dev1',
    );
    expect(answer.status).toBe(200);
    expect(printCerts(answer.body)).toEqual(['subject=CN = n2.fleet.test']);
  });

  it('RFC 7030 3.3.2: a client certificate from an untrusted CA, or none, is 403 and est_auth_failed_mtls', async () => {
    const url = `${gateway}/.well-known/est-mtls/fleet/simpleenroll`;
    const stranger = enroll(url, csr('n3', 'n3.fleet.test'), 'stranger');
    expect([stranger.status, stranger.body]).toEqual([403, expect.stringContaining('does not chain')]);
    const none = enroll(url, csr('n4', 'n4.fleet.test'));
    expect([none.status, none.body]).toEqual([403, expect.stringContaining('no client certificate')]);
    expect((await counters('fleet')).est_auth_failed_mtls).toBe(2);
  });

  it('RFC 7030 4.2.2: curl renews its own certificate with simplereenroll; another subject is refused', async () => {
    const url = `${gateway}/.well-known/est-mtls/fleet/simplereenroll`;
    const renewed = enroll(url, csr('r1', 'dev2.fleet.test'), 'dev2');
    expect(renewed.status).toBe(200);
    expect(printCerts(renewed.body)).toEqual(['subject=CN = dev2.fleet.test']);
    const other = enroll(url, csr('r2', 'dev1.fleet.test'), 'dev2');
    expect([other.status, other.body]).toEqual([400, expect.stringContaining('is not the subject')]);
    expect(await counters('fleet')).toMatchObject({
      est_simple_reenroll_success: 1,
      est_simple_reenroll_failed: 1,
    });
  });

  it("RFC 7030 4.2.2: a reenroll with a certificate Certlane issued is that certificate's next version in the inventory", async () => {
    // A profile trusting Certlane's own CA, as a fleet renewing what it enrolled does.
    const cas = await db.query<{ certificate_pem: string }>(
      `SELECT certificate_pem FROM issuance.ca_certificates WHERE issuer_id = 'iss-local' AND certificate_pem IS NOT NULL`,
    );
    const created = await admin('POST', '/api/v1/admin/est/profiles', {
      path_id: 'own',
      auth_methods: ['mtls'],
      trust_bundle_pem: [
        readFileSync(path('Fleet Root.pem'), 'utf8'),
        ...cas.rows.map((r) => r.certificate_pem),
      ].join(''),
    });
    expect(created.status).toBe(201);
    const first = enroll(
      `${gateway}/.well-known/est-mtls/own/simpleenroll`,
      csr('own1', 'own1.fleet.test'),
      'dev1',
    );
    expect(first.status).toBe(200);
    // The device now presents the certificate it got, with Certlane's CAs as its chain.
    printCerts(first.body);
    const leaf = execFileSync(
      'openssl',
      ['pkcs7', '-inform', 'DER', '-in', path('answer.p7'), '-print_certs'],
      {
        encoding: 'utf8',
      },
    );
    writeFileSync(path('own1.chain.pem'), leaf + cas.rows.map((r) => r.certificate_pem).join(''));
    writeFileSync(path('own1.key'), readFileSync(path('own1.csrkey')));
    const renewed = enroll(
      `${gateway}/.well-known/est-mtls/own/simplereenroll`,
      csr('own1-renewal', 'own1.fleet.test'),
      'own1',
    );
    expect(renewed.status).toBe(200);
    printCerts(renewed.body);
    openssl([
      'pkcs7',
      '-inform',
      'DER',
      '-in',
      path('answer.p7'),
      '-print_certs',
      '-out',
      path('renewed.pem'),
    ]);
    const renewedSerial = execFileSync('openssl', ['x509', '-in', path('renewed.pem'), '-noout', '-serial'], {
      encoding: 'utf8',
    });
    const { rows } = await db.query(
      `SELECT c.source, c.status, v.version, v.serial_number,
              (SELECT count(*)::int FROM issuance.certificate_versions w WHERE w.certificate_id = c.id) AS versions
         FROM issuance.certificates c JOIN issuance.certificate_versions v ON v.id = c.current_version_id
        WHERE c.common_name = 'own1.fleet.test'`,
    );
    expect(rows).toEqual([
      {
        source: 'EST',
        status: 'Active',
        version: 2,
        serial_number: renewedSerial
          .trim()
          .replace(/^serial=/, '')
          .toLowerCase()
          .replace(/^0+(?=.)/, ''),
        versions: 2,
      },
    ]);

    // RFC 7030 3.3.2 on the standard path: the same certificate, presented to /.well-known/est/,
    // authenticates its reenroll there too (what RFC clients use).
    writeFileSync(
      path('own2.chain.pem'),
      readFileSync(path('renewed.pem'), 'utf8') + cas.rows.map((r) => r.certificate_pem).join(''),
    );
    writeFileSync(path('own2.key'), readFileSync(path('own1-renewal.csrkey')));
    const standard = enroll(
      `${gateway}/.well-known/est/own/simplereenroll`,
      csr('own1-third', 'own1.fleet.test'),
      'own2',
    );
    expect([standard.status, standard.body.slice(0, 80)]).toEqual([200, expect.any(String)]);
    const versions = await db.query(
      `SELECT v.version FROM issuance.certificates c JOIN issuance.certificate_versions v ON v.id = c.current_version_id
        WHERE c.common_name = 'own1.fleet.test'`,
    );
    expect(versions.rows).toEqual([{ version: 3 }]);
  });

  /** POSTs a CSR made for the tls-exporter of its own connection (or of `foreign`) over that connection. */
  async function boundEnroll(foreign?: string): Promise<{ status: number; body: string }> {
    const url = new URL(`${gateway}/.well-known/est-mtls/bound/simpleenroll`);
    const socket = connect({
      host: url.hostname,
      port: Number(url.port),
      ca: system.ca,
      cert: readFileSync(path('dev1.chain.pem')),
      key: readFileSync(path('dev1.key')),
      minVersion: 'TLSv1.3',
    });
    await once(socket, 'secureConnect');
    // RFC 9266: no context (the server passes an empty one, the same value in TLS 1.3).
    const exportWithoutContext = socket.exportKeyingMaterial as (length: number, label: string) => Buffer;
    const exporter = exportWithoutContext.call(socket, 32, 'EXPORTER-Channel-Binding').toString('base64');
    const body = readFileSync(csr('cb', 'cb.fleet.test', foreign ?? exporter), 'utf8');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.write(
      `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/pkcs10\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    await once(socket, 'end');
    const [head, ...rest] = received.split('\r\n\r\n');
    return { status: Number(head.split(' ')[1]), body: rest.join('\r\n\r\n') };
  }

  it('RFC 7030 3.5 / RFC 9266: a CSR carrying the tls-exporter of its connection enrolls on a binding profile', async () => {
    const answer = await boundEnroll();
    expect([answer.status, answer.body.slice(0, 200)]).toEqual([200, expect.any(String)]);
    expect((await counters('bound')).est_simple_enroll_success).toBe(1);
  });

  it('RFC 7030 3.5: a CSR carrying the binding of another connection is 403 and est_auth_failed_channel_binding', async () => {
    const answer = await boundEnroll(Buffer.alloc(32, 9).toString('base64'));
    expect([answer.status, answer.body]).toEqual([403, expect.stringContaining('not the tls-exporter')]);
    expect((await counters('bound')).est_auth_failed_channel_binding).toBe(1);
  });
});
