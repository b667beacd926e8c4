import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { X509Certificate } from 'node:crypto';
import {
  adminApiRequest,
  BindServer,
  eventually,
  freePort,
  ServiceProcess,
  startBind,
  startServiceProcess,
  startTestSystem,
  TestSystem,
} from '@certlane/testing';
import { parseCertificates } from '@certlane/pki';
import { Client } from 'pg';
import { csrFor, exchange, Http01Responder, TestAcmeClient } from './testing/acme-test-client';
import { OrdinaryAlpnResponder } from './testing/alpn-responder';

const run = promisify(execFile);
const TERMS = 'https://ca.test/terms/v1.pdf';

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
  let tlsAlpn01Port: number;
  let work: string;
  let caFile: string;
  let bind: BindServer;

  beforeAll(async () => {
    http01Port = await freePort();
    tlsAlpn01Port = await freePort();
    bind = await startBind('acme.test', await freePort());
    system = await startTestSystem('acmeclients', ['api-gateway', 'issuance', 'protocol-frontends'], {
      SERVICE_ACME_HTTP01_PORT: String(http01Port),
      SERVICE_ACME_TLSALPN01_PORT: String(tlsAlpn01Port),
      SERVICE_ACME_DNS_RESOLVERS: bind.address,
      // Every client here must agree to the terms (lego --accept-tos, certbot --agree-tos).
      SERVICE_ACME_TERMS_OF_SERVICE_URL: TERMS,
      SERVICE_ACME_WEBSITE_URL: 'https://ca.test/',
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
    await bind?.stop();
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

  it('certbot registers, obtains a certificate with standalone http-01, renews and revokes it', async () => {
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

    // Renewal: a new order with the same names (its authorizations reused), a new serial;
    // certbot sleeps up to 8 minutes before a renewal it runs without a terminal unless told not to.
    await run(
      'certbot',
      [
        'renew',
        ...common,
        '--force-renewal',
        '--no-random-sleep-on-renew',
        '--http-01-port',
        String(http01Port),
      ],
      {
        env,
        timeout: 90_000,
      },
    );
    const renewed = readFileSync(join(live, 'cert.pem'), 'utf8');
    expect(new X509Certificate(renewed).serialNumber).not.toBe(new X509Certificate(pem).serialNumber);
    expect(sans(renewed)).toBe(sans(pem));
    // The renewal (same names, same account) is the next version of the same inventory
    // certificate, not a second certificate (issue 19 point 8, ADR 0068).
    const db = new Client({ connectionString: system.database.url });
    await db.connect();
    try {
      const serial = (p: string) => new X509Certificate(p).serialNumber.toLowerCase().replace(/^0+/, '');
      const { rows } = await db.query(
        `SELECT DISTINCT certificate_id FROM issuance.certificate_versions
         WHERE ltrim(lower(serial_number), '0') = ANY($1)`,
        [[serial(pem), serial(renewed)]],
      );
      expect(rows).toHaveLength(1);
      const versions = await db.query(
        'SELECT count(*)::int AS n FROM issuance.certificate_versions WHERE certificate_id = $1',
        [rows[0].certificate_id],
      );
      expect(versions.rows[0].n).toBe(2);
    } finally {
      await db.end();
    }

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

  it('lego obtains a wildcard certificate with dns-01, its TXT records written to a real DNS server (RFC 2136)', async () => {
    const path = join(work, 'lego-dns');
    await run(
      'lego',
      [
        '--server',
        directory,
        '--path',
        path,
        '--email',
        'ops@example.com',
        '--accept-tos',
        '--domains',
        '*.dns-test.acme.test',
        '--dns',
        'rfc2136',
        '--dns.resolvers',
        bind.address,
        '--dns.disable-cp',
        'run',
      ],
      {
        env: { ...process.env, LEGO_CA_CERTIFICATES: caFile, RFC2136_NAMESERVER: bind.address },
        timeout: 90_000,
      },
    );
    const pem = readFileSync(join(path, 'certificates', '_.dns-test.acme.test.crt'), 'utf8');
    expect(sans(pem)).toBe('DNS:*.dns-test.acme.test');
  }, 120_000);

  it('certbot obtains a wildcard and its base name with dns-01 through manual hooks writing to BIND (nsupdate), with --must-staple', async () => {
    const dirs = ['config', 'work', 'logs'].map((d) => join(work, `certbot-dns-${d}`));
    // certbot's manual hooks get CERTBOT_DOMAIN and CERTBOT_VALIDATION; `update add` keeps the
    // wildcard's and the base name's TXT values side by side at the same name.
    const hook = (verb: 'add' | 'delete') => {
      const file = join(work, `certbot-dns-${verb}.sh`);
      writeFileSync(
        file,
        [
          '#!/bin/sh',
          'nsupdate <<EOF',
          `server 127.0.0.1 ${bind.port}`,
          'zone acme.test',
          `update ${verb} _acme-challenge.$CERTBOT_DOMAIN. ${verb === 'add' ? '1 ' : ''}TXT "$CERTBOT_VALIDATION"`,
          'send',
          'EOF',
          '',
        ].join('\n'),
        { mode: 0o755 },
      );
      return file;
    };
    await run(
      'certbot',
      [
        'certonly',
        '--non-interactive',
        '--server',
        directory,
        '--config-dir',
        dirs[0],
        '--work-dir',
        dirs[1],
        '--logs-dir',
        dirs[2],
        '--agree-tos',
        '-m',
        'ops@example.com',
        '--manual',
        '--preferred-challenges',
        'dns',
        '--manual-auth-hook',
        hook('add'),
        '--manual-cleanup-hook',
        hook('delete'),
        '--must-staple',
        '-d',
        '*.certbot-dns.acme.test',
        '-d',
        'certbot-dns.acme.test',
      ],
      { env: { ...process.env, REQUESTS_CA_BUNDLE: caFile }, timeout: 90_000 },
    );
    const live = join(
      dirs[0],
      'live',
      readdirSync(join(dirs[0], 'live')).find((n) => n.startsWith('certbot-dns'))!,
    );
    const pem = readFileSync(join(live, 'cert.pem'), 'utf8');
    expect(sans(pem)?.split(', ').sort()).toEqual([
      'DNS:*.certbot-dns.acme.test',
      'DNS:certbot-dns.acme.test',
    ]);
    // RFC 7633: the TLS feature certbot asked for in its CSR.
    expect(parseCertificates(pem)[0].decoded.mustStaple).toBe(true);
  }, 120_000);

  it('RFC 8555 7.1.1: every directory lists the terms of service and the website, through the gateway too', async () => {
    for (const url of [directory, gatewayDirectory]) {
      const meta = (await exchange('GET', url, system.ca)).json.meta;
      expect(meta).toMatchObject({ termsOfService: TERMS, website: 'https://ca.test/' });
    }
  });

  it('RFC 8555 7.3, 7.3.3: a newAccount that does not agree to the terms is userActionRequired linking them; agreeing creates the account', async () => {
    const c = await TestAcmeClient.create(gatewayDirectory, system.ca);
    const newAccount = (await c.directory()).newAccount;
    for (const payload of [{ contact: ['mailto:ops@example.com'] }, { termsOfServiceAgreed: false }]) {
      const refused = await c.post(newAccount, payload, { useJwk: true });
      expect([refused.status, refused.json.type]).toEqual([
        403,
        'urn:ietf:params:acme:error:userActionRequired',
      ]);
      expect(refused.headers.link).toContain(`<${TERMS}>;rel="terms-of-service"`);
    }
    expect((await c.register()).status).toBe(201);
    // An account that exists is found without agreeing again (RFC 8555 7.3.1: the fields are ignored).
    expect((await c.post(newAccount, { onlyReturnExisting: true }, { useJwk: true })).status).toBe(200);
  });

  it('RFC 8555 7.3.3: after the terms change, a replica asking re-agreement refuses newOrder and finalize with userActionRequired until the account agrees', async () => {
    const TERMS_V2 = 'https://ca.test/terms/v2.pdf';
    let renewed: ServiceProcess | undefined;
    try {
      const c = await TestAcmeClient.create(directory, system.ca);
      expect((await c.register()).status).toBe(201);
      const accountId = new URL(c.kid!).pathname.split('/').pop()!;
      const pending = await c.post((await c.directory()).newOrder, {
        identifiers: [{ type: 'dns', value: 'terms-before.localhost' }],
      });
      expect(pending.status).toBe(201);
      renewed = await startServiceProcess(
        'protocol-frontends',
        {
          ...system.env,
          SERVICE_ACME_TERMS_OF_SERVICE_URL: TERMS_V2,
          SERVICE_ACME_TERMS_OF_SERVICE_REAGREEMENT: 'true',
        },
        { ca: system.ca },
      );
      const there = c.at(`${renewed.url}/acme/directory`);
      const dir = await there.directory();
      expect((dir.meta as unknown as { termsOfService: string }).termsOfService).toBe(TERMS_V2);
      const expectRefused = (answer: {
        status: number;
        json: Record<string, unknown>;
        headers: Record<string, unknown>;
      }) => {
        expect([answer.status, answer.json.type, answer.json.instance]).toEqual([
          403,
          'urn:ietf:params:acme:error:userActionRequired',
          TERMS_V2,
        ]);
        expect(answer.headers.link).toContain(`<${TERMS_V2}>;rel="terms-of-service"`);
      };
      const order = { identifiers: [{ type: 'dns', value: 'terms-after.localhost' }] };
      expectRefused(await there.post(dir.newOrder, order));
      // An order made before is not finalized either (refused before its state is even looked at).
      const finalizeUrl = new URL(new URL(pending.json.finalize as string).pathname, renewed.url).href;
      expectRefused(await there.post(finalizeUrl, { csr: 'AA' }));
      // The account still reads, says it has not agreed to these terms, and updates its contact.
      expect((await there.post(there.kid!, '')).json.termsOfServiceAgreed).toBe(false);
      const contact = await there.post(there.kid!, { contact: ['mailto:new@example.com'] });
      expect([contact.status, contact.json.termsOfServiceAgreed]).toEqual([200, false]);
      expectRefused(await there.post(dir.newOrder, order));
      // Posting back termsOfServiceAgreed false changes nothing; true agrees to the current terms.
      expect((await there.post(there.kid!, { termsOfServiceAgreed: false })).json.termsOfServiceAgreed).toBe(
        false,
      );
      const agreed = await there.post(there.kid!, { termsOfServiceAgreed: true });
      expect([agreed.status, agreed.json.termsOfServiceAgreed]).toEqual([200, true]);
      expect((await there.post(dir.newOrder, order)).status).toBe(201);
      const operatorView = (
        await adminApiRequest(system, 'GET', `/api/v1/admin/acme/accounts/${accountId}`)
      ).json() as {
        terms_of_service_agreed: boolean;
        terms_of_service_url: string;
      };
      expect(operatorView).toMatchObject({ terms_of_service_agreed: true, terms_of_service_url: TERMS_V2 });
      const db = new Client({ connectionString: system.database.url });
      await db.connect();
      try {
        const { rows } = await db.query(
          `SELECT envelope->'data'->'details' AS details FROM protocol_frontends.outbox
           WHERE envelope->'data'->>'action' = 'acme.account_updated' AND envelope->'data'->>'resource_id' = $1
           ORDER BY seq`,
          [accountId],
        );
        // The contact update, then the agreement (the false one recorded nothing).
        expect(rows.map((r: { details: unknown }) => r.details)).toEqual([
          { contact: ['mailto:new@example.com'] },
          { terms_of_service_agreed: TERMS_V2 },
        ]);
      } finally {
        await db.end();
      }
    } finally {
      await renewed?.stop();
    }
  });

  it('RFC 8555 7.3.3: certbot, its account made under the old terms, is told to agree to the new ones, and orders from a new account that agreed', async () => {
    const TERMS_V3 = 'https://ca.test/terms/v3.pdf';
    const dirs = ['config', 'work', 'logs'].map((d) => join(work, `certbot-terms-${d}`));
    const env = { ...process.env, REQUESTS_CA_BUNDLE: caFile };
    const certbot = (server: string, args: string[]) =>
      run(
        'certbot',
        [...args, '--non-interactive', '--server', server].concat([
          '--config-dir',
          dirs[0],
          '--work-dir',
          dirs[1],
          '--logs-dir',
          dirs[2],
        ]),
        { env, timeout: 90_000 },
      );
    await certbot(directory, ['register', '--agree-tos', '-m', 'ops@example.com']);
    const renewed = await startServiceProcess(
      'protocol-frontends',
      {
        ...system.env,
        SERVICE_ACME_TERMS_OF_SERVICE_URL: TERMS_V3,
        SERVICE_ACME_TERMS_OF_SERVICE_REAGREEMENT: 'true',
      },
      { ca: system.ca },
    );
    try {
      // certbot keeps accounts per server URL: the same account, now used at the replica.
      const accounts = join(dirs[0], 'accounts');
      const host = (url: string) => new URL(url).host;
      const moved = join(accounts, host(renewed.url));
      cpSync(join(accounts, host(directory)), moved, { recursive: true });
      // ...whose URL is on the replica, as it would be on the one server whose settings changed.
      for (const regr of readdirSync(moved, { recursive: true, encoding: 'utf8' }).filter((f) =>
        f.endsWith('regr.json'),
      ))
        writeFileSync(
          join(moved, regr),
          readFileSync(join(moved, regr), 'utf8').replaceAll(host(directory), host(renewed.url)),
        );
      const renewedDirectory = `${renewed.url}/acme/directory`;
      const obtain = () =>
        certbot(renewedDirectory, [
          'certonly',
          '--standalone',
          '--http-01-port',
          String(http01Port),
          '--http-01-address',
          '127.0.0.1',
          '-d',
          'certbot-terms.localhost',
        ]);
      const refused = await obtain().then(
        () => 'obtained',
        () => readFileSync(join(dirs[2], 'letsencrypt.log'), 'utf8'),
      );
      // certbot 2.1 read the problem document (its log says so), then fails to show it: re-raising
      // it trips josepy's immutable objects on Python 3.11 ("AttributeError: can't set attribute").
      expect(refused).toContain(
        `acme.messages.Error: urn:ietf:params:acme:error:userActionRequired :: the terms of service changed: read ${TERMS_V3}`,
      );
      // certbot cannot agree again (update_account sends only the contacts): its user deactivates the
      // account and registers anew, agreeing to the new terms.
      await certbot(renewedDirectory, ['unregister']);
      await certbot(renewedDirectory, ['register', '--agree-tos', '-m', 'ops@example.com']);
      await obtain();
      const live = join(dirs[0], 'live', 'certbot-terms.localhost', 'cert.pem');
      expect(sans(readFileSync(live, 'utf8'))).toBe('DNS:certbot-terms.localhost');
    } finally {
      await renewed.stop();
    }
  }, 180_000);

  it('certbot, told nothing of the terms in a non-interactive run, does not agree to them on its own', async () => {
    const dirs = ['config', 'work', 'logs'].map((d) => join(work, `certbot-noterms-${d}`));
    const refused = await run(
      'certbot',
      ['register', '--non-interactive', '--server', directory, '-m', 'ops@example.com'].concat([
        '--config-dir',
        dirs[0],
        '--work-dir',
        dirs[1],
        '--logs-dir',
        dirs[2],
      ]),
      { env: { ...process.env, REQUESTS_CA_BUNDLE: caFile }, timeout: 60_000 },
    ).then(
      () => null,
      (error: { stderr: string }) => error.stderr,
    );
    expect(refused).toMatch(/terms of service/i);
  });

  it('RFC 8555 6.7: through the gateway too, a body that is not JSON is a malformed problem document', async () => {
    const newAccount = gatewayDirectory.replace('directory', 'new-account');
    const answer = await exchange('POST', newAccount, system.ca, 'not json');
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toContain('application/problem+json');
    expect(answer.json.type).toBe('urn:ietf:params:acme:error:malformed');
  });

  it('RFC 8555 7.4.2: through the gateway, a certificate asked for as application/pkix-cert comes as its DER bytes', async () => {
    const responder = await Http01Responder.start(http01Port);
    try {
      const c = await TestAcmeClient.create(gatewayDirectory, system.ca);
      await c.register();
      const name = 'der-through-gateway.localhost';
      const created = await c.post((await c.directory()).newOrder, {
        identifiers: [{ type: 'dns', value: name }],
      });
      expect(created.status).toBe(201);
      const authzUrl = created.json.authorizations[0];
      const challenge = (await c.post(authzUrl, '')).json.challenges.find(
        (x: { type: string }) => x.type === 'http-01',
      );
      responder.answers.set(challenge.token, await c.keyAuthorization(challenge.token));
      await c.post(challenge.url, {});
      const orderUrl = created.headers.location as string;
      await eventually(
        async () => (await c.post(orderUrl, '')).json.status === 'ready',
        'the order is ready',
      );
      const finalized = await c.post(created.json.finalize, { csr: csrFor({ dns: [name] }) });
      await eventually(
        async () => (await c.post(orderUrl, '')).json.status === 'valid',
        'the order is valid',
      );
      const certificateUrl = (await c.post(orderUrl, '')).json.certificate as string;
      expect(certificateUrl).toBe(finalized.json.certificate);
      const pem = await c.post(certificateUrl, '');
      const der = await c.post(certificateUrl, '', {}, { accept: 'application/pkix-cert' });
      expect([der.status, der.headers['content-type']]).toEqual([200, 'application/pkix-cert']);
      expect(der.bytes.equals(new X509Certificate(pem.text).raw)).toBe(true);
    } finally {
      await responder.stop();
    }
  });

  it('RFC 8555 8.4: without the TXT record a dns-01 challenge, its authorization and order are invalid', async () => {
    const c = await TestAcmeClient.create(directory, system.ca);
    await c.register();
    const order = await c.post((await c.directory()).newOrder, {
      identifiers: [{ type: 'dns', value: '*.missing.acme.test' }],
    });
    const authzUrl = order.json.authorizations[0];
    const authz = (await c.post(authzUrl, '')).json;
    // RFC 8555 7.1.3: a wildcard's authorization offers dns-01 only, for the base domain.
    expect(authz.wildcard).toBe(true);
    expect(authz.identifier).toEqual({ type: 'dns', value: 'missing.acme.test' });
    expect(authz.challenges.map((ch: { type: string }) => ch.type)).toEqual(['dns-01']);
    await c.post(authz.challenges[0].url, {});
    let status = 'pending';
    for (let i = 0; i < 100 && status === 'pending'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await c.post(authzUrl, '')).json.status;
    }
    expect(status).toBe('invalid');
    const challenge = (await c.post(authzUrl, '')).json.challenges[0];
    expect(challenge.error.type).toBe('urn:ietf:params:acme:error:incorrectResponse');
    expect((await c.post(order.headers.location as string, '')).json.status).toBe('invalid');
  }, 60_000);

  it('lego obtains a certificate with tls-alpn-01 (RFC 8737), its own acme-tls/1 responder answering', async () => {
    const path = join(work, 'lego-tls');
    await run(
      'lego',
      [
        '--server',
        directory,
        '--path',
        path,
        '--email',
        'ops@example.com',
        '--accept-tos',
        '--domains',
        'tls-alpn.localhost',
        '--tls',
        '--tls.port',
        `127.0.0.1:${tlsAlpn01Port}`,
        'run',
      ],
      { env: { ...process.env, LEGO_CA_CERTIFICATES: caFile }, timeout: 90_000 },
    );
    const pem = readFileSync(join(path, 'certificates', 'tls-alpn.localhost.crt'), 'utf8');
    expect(sans(pem)).toBe('DNS:tls-alpn.localhost');
  }, 120_000);

  it('RFC 8737 3: a certificate without the acmeIdentifier extension fails tls-alpn-01 as unauthorized', async () => {
    // A responder that negotiates acme-tls/1 but shows an ordinary certificate for the name.
    const responder = await OrdinaryAlpnResponder.start(tlsAlpn01Port, 'no-ext.localhost');
    try {
      const c = await TestAcmeClient.create(directory, system.ca);
      await c.register();
      const order = await c.post((await c.directory()).newOrder, {
        identifiers: [{ type: 'dns', value: 'no-ext.localhost' }],
      });
      const authzUrl = order.json.authorizations[0];
      const authz = (await c.post(authzUrl, '')).json;
      expect(authz.challenges.map((ch: { type: string }) => ch.type).sort()).toEqual([
        'dns-01',
        'http-01',
        'tls-alpn-01',
      ]);
      const challenge = authz.challenges.find((ch: { type: string }) => ch.type === 'tls-alpn-01');
      await c.post(challenge.url, {});
      let status = 'pending';
      for (let i = 0; i < 100 && status === 'pending'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = (await c.post(authzUrl, '')).json.status;
      }
      expect(status).toBe('invalid');
      const failed = (await c.post(authzUrl, '')).json.challenges.find(
        (ch: { type: string }) => ch.type === 'tls-alpn-01',
      );
      expect(failed.error.type).toBe('urn:ietf:params:acme:error:unauthorized');
      expect(failed.error.detail).toMatch(/acmeIdentifier/);
    } finally {
      await responder.stop();
    }
  }, 60_000);

  it('RFC 8555 7.4.2: certbot --preferred-chain takes the alternate chain through a cross-certificate of the issuing CA', async () => {
    const api = async (method: string, path: string, body?: unknown) => {
      const answer = await adminApiRequest(system, method, path, body);
      expect(answer.status).toBeLessThan(300);
      return answer.json() as Record<string, string>;
    };
    // A CA migration (ADR 0070): a second root cross-certifies the default issuer's issuing CA.
    const issuingCaId = (await api('GET', '/api/v1/issuers/iss-local')).issuing_ca_id;
    const root2 = await api('POST', '/api/v1/intermediate-cas', {
      issuer_id: 'iss-local',
      common_name: 'Certlane Cross Root',
    });
    await api('POST', `/api/v1/intermediate-cas/${issuingCaId}/cross-certificates`, { parent_id: root2.id });
    writeFileSync(join(work, 'root2.pem'), root2.certificate_pem);

    const dirs = ['config', 'work', 'logs'].map((d) => join(work, `certbot-chain-${d}`));
    await run(
      'certbot',
      [
        'certonly',
        '--non-interactive',
        '--server',
        directory,
        '--config-dir',
        dirs[0],
        '--work-dir',
        dirs[1],
        '--logs-dir',
        dirs[2],
        '--standalone',
        '--agree-tos',
        '-m',
        'ops@example.com',
        '--http-01-port',
        String(http01Port),
        '--http-01-address',
        '127.0.0.1',
        '--preferred-chain',
        'Certlane Cross Root',
        '-d',
        'chain-test.localhost',
      ],
      { env: { ...process.env, REQUESTS_CA_BUNDLE: caFile }, timeout: 90_000 },
    );
    const live = join(dirs[0], 'live', 'chain-test.localhost');
    const chain = parseCertificates(readFileSync(join(live, 'chain.pem'), 'utf8'));
    // The chain certbot chose ends at the second root, and verifies against it alone.
    expect(new X509Certificate(chain[chain.length - 1].der).subject).toBe('CN=Certlane Cross Root');
    const { stdout } = await run('openssl', [
      'verify',
      '-CAfile',
      join(work, 'root2.pem'),
      '-untrusted',
      join(live, 'chain.pem'),
      join(live, 'cert.pem'),
    ]);
    expect(stdout).toContain(': OK');
  }, 120_000);
});
