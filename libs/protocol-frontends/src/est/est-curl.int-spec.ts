import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPrivateKey, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { CaCertificateDto, IssuerDto } from '@certlane/contracts';
import {
  adminApiRequest,
  httpsRequest,
  metricValue,
  scrapeMetrics,
  signSubCaWithExternalRoot,
  startTestSystem,
  TestSystem,
} from '@certlane/testing';
import { Client } from 'pg';
import {
  keyIdentifierOf,
  OID_ASYMMETRIC_DECRYPT_KEY_ID,
  OID_DECRYPT_KEY_ID,
  OID_SIGNED_DATA,
} from './est-server-keygen';
import { multipartMixed } from './testing/multipart';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

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
    /** A certificate profile, an EST profile on it, and what openssl reads of that one's csrattrs. */
    const csrattrsOf = async (
      rules: { id: string } & Record<string, unknown>,
      est: Record<string, unknown>,
    ) => {
      expect((await admin('/api/v1/profiles', rules)).status).toBe(201);
      const created = await admin('/api/v1/admin/est/profiles', {
        auth_methods: ['basic'],
        basic_username: 'router',
        basic_password: PASSWORD,
        certificate_profile_id: rules.id,
        ...est,
      });
      expect(created.status).toBe(201);
      const answer = curl(['-u', `router:${PASSWORD}`, `${gateway}/.well-known/est/${est.path_id}/csrattrs`]);
      expect(answer.status).toBe(200);
      expect(answer.headers).toMatch(/content-type: application\/csrattrs/i);
      writeFileSync(path(`${rules.id}.b64`), answer.body);
      execFileSync('openssl', [
        'base64',
        '-d',
        '-in',
        path(`${rules.id}.b64`),
        '-out',
        path(`${rules.id}.der`),
      ]);
      return execFileSync('openssl', ['asn1parse', '-inform', 'DER', '-in', path(`${rules.id}.der`)], {
        encoding: 'utf8',
      });
    };
    const parsed = await csrattrsOf(
      {
        id: 'est-attrs',
        name: 'EST attrs',
        required_csr_attributes: ['commonName', 'organizationName', 'noSuchName'],
      },
      { path_id: 'attrs' },
    );
    expect(parsed.match(/:(commonName|organizationName)/g)).toEqual([':commonName', ':organizationName']);

    // "MUST include the challengePassword OID" when identity and proof of possession must be
    // linked (channel binding, 3.5), and the key types a certificate profile allows.
    const demands = await csrattrsOf(
      { id: 'est-attrs-keys', name: 'EST attrs keys', allowed_key_algorithms: ['ECDSA-P384'] },
      { path_id: 'attrs-bound', channel_binding_required: true },
    );
    expect(demands.match(/:(challengePassword|id-ecPublicKey|secp384r1)/g)).toEqual([
      ':challengePassword',
      ':id-ecPublicKey',
      ':secp384r1',
    ]);
  });

  it("RFC 7633: a certificate profile's must_staple is honoured for EST issuance (TLS feature status_request)", async () => {
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
    expect(
      (await admin('/api/v1/profiles', { id: 'est-staple', name: 'EST staple', must_staple: true })).status,
    ).toBe(201);
    const estProfile = await admin('/api/v1/admin/est/profiles', {
      path_id: 'staple',
      auth_methods: ['basic'],
      basic_username: 'router',
      basic_password: PASSWORD,
      certificate_profile_id: 'est-staple',
    });
    expect(estProfile.status).toBe(201);
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
        '-subj',
        '/CN=staple.example.test',
      ]
        .concat(['-addext', 'subjectAltName=DNS:staple.example.test', '-keyout', path('staple.key')])
        .concat(['-outform', 'DER', '-out', path('staple.der')]),
      { stdio: 'ignore' },
    );
    writeFileSync(path('staple.b64'), readFileSync(path('staple.der')).toString('base64'));
    const enrolled = curl(
      [
        '-u',
        `router:${PASSWORD}`,
        '--data-binary',
        `@${path('staple.b64')}`,
        '-H',
        'Content-Type: application/pkcs10',
      ].concat([`${gateway}/.well-known/est/staple/simpleenroll`]),
    );
    expect([enrolled.status, enrolled.body.slice(0, 100)]).toEqual([200, expect.any(String)]);
    printCerts(enrolled.body);
    const text = execFileSync(
      'openssl',
      ['pkcs7', '-inform', 'DER', '-in', path('answer.p7'), '-print_certs', '-text'],
      {
        encoding: 'utf8',
      },
    );
    expect(text).toMatch(/TLS Feature:[\s\S]*status_request/);
  });

  /**
   * RFC 7030 4.4.2: the decrypted key part (`signedFile`, a SignedData) verified by openssl against
   * the CA of the EST server's TLS certificate; the public key of the key package it signs.
   */
  const verifiedKeyPackagePublicKey = (signedFile: string, prefix: string): string => {
    // openssl verifies a ContentInfo around the SignedData.
    const contentInfo = new pkijs.ContentInfo({
      contentType: OID_SIGNED_DATA,
      content: asn1js.fromBER(readFileSync(path(signedFile))).result,
    });
    writeFileSync(path(`${prefix}-signed.p7`), Buffer.from(contentInfo.toSchema().toBER(false)));
    execFileSync(
      'openssl',
      [
        'cms',
        '-verify',
        '-inform',
        'DER',
        '-in',
        path(`${prefix}-signed.p7`),
        '-CAfile',
        path('ca.pem'),
      ].concat(['-purpose', 'any', '-binary', '-out', path(`${prefix}-package.der`)]),
      { stdio: 'ignore' },
    );
    const keyPackage = asn1js.fromBER(readFileSync(path(`${prefix}-package.der`))).result as asn1js.Sequence;
    writeFileSync(path(`${prefix}-generated.der`), Buffer.from(keyPackage.valueBlock.value[0].toBER(false)));
    return execFileSync(
      'openssl',
      ['pkey', '-inform', 'DER', '-in', path(`${prefix}-generated.der`), '-pubout'],
      {
        encoding: 'utf8',
      },
    );
  };

  /** The public key of the certificate in the last certs-only answer printCerts read (answer.p7). */
  const answerCertificatePublicKey = (prefix: string): string => {
    const certPem = execFileSync(
      'openssl',
      ['pkcs7', '-inform', 'DER', '-in', path('answer.p7'), '-print_certs'],
      {
        encoding: 'utf8',
      },
    );
    writeFileSync(path(`${prefix}-issued.pem`), certPem);
    return execFileSync('openssl', ['x509', '-in', path(`${prefix}-issued.pem`), '-noout', '-pubkey'], {
      encoding: 'utf8',
    });
  };

  describe('serverkeygen (RFC 7030 4.4)', () => {
    const keygenUrl = () => `${gateway}/.well-known/est/keygen/serverkeygen`;
    const newCsr = (name: string, keyArgs: string[], cn: string) => {
      execFileSync(
        'openssl',
        [
          'req',
          '-new',
          ...keyArgs,
          '-nodes',
          '-keyout',
          path(`${name}.key`),
          '-out',
          path(`${name}.csr`),
        ].concat(['-subj', `/CN=${cn}`, '-addext', `subjectAltName=DNS:${cn}`]),
        { stdio: 'ignore' },
      );
      const der = execFileSync('openssl', ['req', '-in', path(`${name}.csr`), '-outform', 'DER']);
      writeFileSync(path(`${name}.b64`), der.toString('base64'));
      return path(`${name}.b64`);
    };
    const post = (url: string, file: string) =>
      curl([
        '-u',
        `router:${PASSWORD}`,
        '--data-binary',
        `@${file}`,
        '-H',
        'Content-Type: application/pkcs10',
        url,
      ]);

    beforeAll(async () => {
      const created = await httpsRequest(`${gateway}/api/v1/admin/est/profiles`, {
        method: 'POST',
        ca: system.ca,
        headers: {
          authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          path_id: 'keygen',
          auth_methods: ['basic'],
          basic_username: 'router',
          basic_password: PASSWORD,
          serverkeygen_enabled: true,
        }),
      });
      expect(created.status).toBe(201);
    });

    /** An RSA CSR naming its own key in AsymmetricDecryptKeyIdentifier (RFC 7030 4.4.1.2): no openssl req option writes one. */
    const keyIdCsr = async (name: string, cn: string) => {
      const algorithm = {
        name: 'RSASSA-PKCS1-v1_5',
        hash: 'SHA-256',
        publicExponent: new Uint8Array([1, 0, 1]),
        modulusLength: 2048,
      };
      const keys = (await webcrypto.subtle.generateKey(algorithm, true, [
        'sign',
        'verify',
      ])) as webcrypto.CryptoKeyPair;
      const spki = Buffer.from(await webcrypto.subtle.exportKey('spki', keys.publicKey));
      const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
      writeFileSync(
        path(`${name}.key`),
        createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({
          format: 'pem',
          type: 'pkcs8',
        }),
      );
      const request = await x509.Pkcs10CertificateRequestGenerator.create({
        name: `CN=${cn}`,
        keys,
        signingAlgorithm: algorithm,
        extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: cn }])],
        attributes: [
          new x509.Attribute(OID_ASYMMETRIC_DECRYPT_KEY_ID, [
            new asn1js.OctetString({ valueHex: keyIdentifierOf(spki) }).toBER(false),
          ]),
        ],
      });
      writeFileSync(path(`${name}.b64`), Buffer.from(request.rawData).toString('base64'));
      return path(`${name}.b64`);
    };

    it('answers multipart/mixed whose key part openssl cms -decrypt opens with the named key and openssl cms -verify checks, matching the certificate', async () => {
      const csr = await keyIdCsr('kg', 'keygen.example.test');
      const first = post(keygenUrl(), csr);
      expect([first.status, first.body.slice(0, 200)]).toEqual([200, expect.any(String)]);
      const { boundary, parts } = multipartMixed(first.headers, first.body);
      expect(boundary).toMatch(/^est-[0-9a-f]+$/);
      expect(parts.map((part) => part.type)).toEqual([
        'application/pkcs7-mime; smime-type=server-generated-key',
        'application/pkcs7-mime; smime-type=certs-only',
      ]);
      writeFileSync(path('key.b64'), parts[0].content);
      execFileSync('openssl', ['base64', '-d', '-in', path('key.b64'), '-out', path('key.p7m')]);
      const printed = execFileSync(
        'openssl',
        ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', path('key.p7m')],
        {
          encoding: 'utf8',
        },
      );
      expect(printed).toMatch(/contentType: pkcs7-signedData/);
      expect(printed).toMatch(/aes-256-cbc/);
      expect(printed).not.toMatch(/des-ede3/i);
      execFileSync('openssl', [
        'cms',
        '-decrypt',
        '-inform',
        'DER',
        '-in',
        path('key.p7m'),
        '-inkey',
        path('kg.key'),
        '-binary',
        '-out',
        path('signed.der'),
      ]);
      const keyPub = verifiedKeyPackagePublicKey('signed.der', 'keygen');
      expect(printCerts(parts[1].content)).toEqual(['subject=CN = keygen.example.test']);
      const issuedPub = answerCertificatePublicKey('keygen');
      expect(issuedPub).toBe(keyPub);
      const clientPub = execFileSync('openssl', ['pkey', '-in', path('kg.key'), '-pubout'], {
        encoding: 'utf8',
      });
      expect(issuedPub).not.toBe(clientPub);

      const second = post(keygenUrl(), csr);
      expect(second.status).toBe(200);
      expect(multipartMixed(second.headers, second.body).boundary).not.toBe(boundary);

      const counters = await db.query(
        `SELECT c.outcome, c.count FROM protocol_frontends.est_profile_counters c
           JOIN protocol_frontends.est_profiles p ON p.id = c.profile_id
          WHERE p.path_id = 'keygen' AND c.outcome = 'est_server_keygen_success'`,
      );
      expect(counters.rows.map((row) => Number(row.count))).toEqual([2]);
    });

    it('RFC 7030 4.4.1.1: with a DecryptKeyIdentifier the key part opens with openssl cms -decrypt -secretkey and verifies, matching the certificate', async () => {
      const admin = (method: string, url: string, body?: unknown) =>
        httpsRequest(`${gateway}${url}`, {
          method,
          ca: system.ca,
          headers: {
            authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
            'content-type': 'application/json',
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      // A profile of its own, so the keygen profile's counters stay as its other tests expect.
      const profile = await admin('POST', '/api/v1/admin/est/profiles', {
        path_id: 'keygen-kek',
        auth_methods: ['basic'],
        basic_username: 'router',
        basic_password: PASSWORD,
        serverkeygen_enabled: true,
      });
      expect(profile.status).toBe(201);
      const profileId = (profile.json() as { id: string }).id;
      const kekUrl = `${gateway}/.well-known/est/keygen-kek/serverkeygen`;
      const created = await admin('POST', '/api/v1/admin/est/key-encryption-keys', { profile_id: profileId });
      expect(created.status).toBe(201);
      const kek = created.json() as { id: string; secret_key: string };
      const listed = await admin('GET', `/api/v1/admin/est/key-encryption-keys?profile_id=${profileId}`);
      expect((listed.json() as { data: { id: string }[] }).data.map((key) => key.id)).toContain(kek.id);
      expect(listed.text).not.toContain(kek.secret_key);

      const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
        'sign',
        'verify',
      ])) as webcrypto.CryptoKeyPair;
      const kekCsr = async (name: string, keyIdHex: string) => {
        const request = await x509.Pkcs10CertificateRequestGenerator.create({
          name: 'CN=kek.example.test',
          keys,
          signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
          extensions: [
            new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'kek.example.test' }]),
          ],
          attributes: [
            new x509.Attribute(OID_DECRYPT_KEY_ID, [
              new asn1js.OctetString({ valueHex: Buffer.from(keyIdHex, 'hex') }).toBER(false),
            ]),
          ],
        });
        writeFileSync(path(`${name}.b64`), Buffer.from(request.rawData).toString('base64'));
        return path(`${name}.b64`);
      };
      const answer = post(kekUrl, await kekCsr('kek', kek.id));
      expect([answer.status, answer.body.slice(0, 200)]).toEqual([200, expect.any(String)]);
      const { parts } = multipartMixed(answer.headers, answer.body);
      expect(parts[0].type).toBe('application/pkcs7-mime; smime-type=server-generated-key');
      writeFileSync(path('kek-key.b64'), parts[0].content);
      execFileSync('openssl', ['base64', '-d', '-in', path('kek-key.b64'), '-out', path('kek-key.p7m')]);
      execFileSync('openssl', [
        'cms',
        '-decrypt',
        '-inform',
        'DER',
        '-in',
        path('kek-key.p7m'),
        '-secretkey',
        kek.secret_key,
        '-secretkeyid',
        kek.id,
        '-binary',
        '-out',
        path('kek-signed.der'),
      ]);
      const keyPub = verifiedKeyPackagePublicKey('kek-signed.der', 'kek');
      expect(printCerts(parts[1].content)).toEqual(['subject=CN = kek.example.test']);
      const issuedPub = answerCertificatePublicKey('kek');
      expect(issuedPub).toBe(keyPub);

      // RFC 7030 4.4.1.1: once revoked, the key id ends the request in an error.
      // Spec 4.9: revoked by a POST; the DELETE it once was is 405 and revokes nothing.
      expect((await admin('DELETE', `/api/v1/admin/est/key-encryption-keys/${kek.id}`)).status).toBe(405);
      const stillActive = post(kekUrl, await kekCsr('kek-still-active', kek.id));
      expect(stillActive.status).toBe(200);
      expect((await admin('POST', `/api/v1/admin/est/key-encryption-keys/${kek.id}/revoke`)).status).toBe(
        204,
      );
      expect((await admin('POST', `/api/v1/admin/est/key-encryption-keys/${kek.id}/revoke`)).status).toBe(
        404,
      );
      const refused = post(kekUrl, await kekCsr('kek-revoked', kek.id));
      expect([refused.status, refused.body]).toEqual([400, expect.stringMatching(/is revoked/)]);
      const unknown = post(kekUrl, await kekCsr('kek-unknown', 'ffeeddccbbaa99887766554433221100'));
      expect([unknown.status, unknown.body]).toEqual([400, expect.stringMatching(/no key-encryption key/)]);
    });

    it('RFC 7030 4.4: serverkeygen on a profile that disables it is 404', () => {
      const csr = newCsr('kg404', ['-newkey', 'rsa:2048'], 'off.example.test');
      expect(post(`${gateway}/.well-known/est/routers/serverkeygen`, csr).status).toBe(404);
    });

    it('RFC 7030 4.4.1: a CSR asking for no encryption, on a profile that sends keys only encrypted, is refused and audited', async () => {
      const csr = newCsr('kgec', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'], 'ec.example.test');
      expect(post(keygenUrl(), csr).status).toBe(400);
      const counters = await db.query(
        `SELECT c.count FROM protocol_frontends.est_profile_counters c
           JOIN protocol_frontends.est_profiles p ON p.id = c.profile_id
          WHERE p.path_id = 'keygen' AND c.outcome = 'est_server_keygen_failed'`,
      );
      expect(counters.rows.map((row) => Number(row.count))).toEqual([1]);
    });

    it("RFC 7030 4.4.1: the server ignores the CSR's signature: one that does not verify still gets its key", async () => {
      const csr = await keyIdCsr('kgbad', 'bad.example.test');
      const der = Buffer.from(readFileSync(csr, 'utf8'), 'base64');
      der[der.length - 1] ^= 0xff;
      writeFileSync(csr, der.toString('base64'));
      const answer = post(keygenUrl(), csr);
      expect(answer.status).toBe(200);
      expect(multipartMixed(answer.headers, answer.body).parts.map((part) => part.type)).toEqual([
        'application/pkcs7-mime; smime-type=server-generated-key',
        'application/pkcs7-mime; smime-type=certs-only',
      ]);
    });
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
  it("spec 6.4: protocol-frontends' /metrics counts each profile's outcomes as its stored counters do", async () => {
    const stored = await db.query(
      `SELECT profile_id::text AS profile, outcome, count FROM protocol_frontends.est_profile_counters WHERE count > 0`,
    );
    expect(stored.rows.length).toBeGreaterThan(3);
    const text = await scrapeMetrics(system.services['protocol-frontends'].url, system.ca);
    for (const row of stored.rows)
      expect([
        row.outcome,
        metricValue(
          text,
          'certlane_est_outcomes_total',
          `profile="${row.profile}"`,
          `outcome="${row.outcome}"`,
        ),
      ]).toEqual([row.outcome, Number(row.count)]);
  });

  it("RFC 7030 4.1.3: cacerts holds the profile's issuer's CAs up to the current root, an external root above a sub-CA included, and no other issuer's", async () => {
    // The routers profile names no issuer: issuance issues it with the default one.
    const other = await adminApiRequest(system, 'POST', '/api/v1/issuers', {
      name: 'Other team',
      type: 'local_ca',
    });
    expect(other.status).toBe(201);
    const otherCas = await adminApiRequest(
      system,
      'GET',
      `/api/v1/intermediate-cas?issuer_id=${(other.json() as IssuerDto).id}`,
    );
    const otherRoot = (otherCas.json() as { data: CaCertificateDto[] }).data[0];
    expect(otherRoot.status).toBe('active');
    const pending = await adminApiRequest(system, 'POST', '/api/v1/intermediate-cas', {
      issuer_id: 'iss-local',
      common_name: 'EST Sub CA',
      external: true,
    });
    expect(pending.status).toBe(201);
    const sub = pending.json() as CaCertificateDto;
    const signed = signSubCaWithExternalRoot(sub.csr_pem!);
    const installed = await adminApiRequest(
      system,
      'POST',
      `/api/v1/intermediate-cas/${sub.id}/certificate`,
      {
        certificate_pem: signed.certificatePem,
        chain_pem: signed.rootPem,
        issuing: true,
      },
    );
    expect(installed.status).toBe(200);
    expect(installed.json()).toMatchObject({
      status: 'active',
      issuing: true,
      external_chain_pem: expect.stringContaining('BEGIN CERTIFICATE'),
    });

    const answer = curl([`${gateway}/.well-known/est/routers/cacerts`]);
    expect(answer.status).toBe(200);
    const subjects = printCerts(answer.body);
    expect(subjects).toEqual(
      expect.arrayContaining(['subject=CN = EST Sub CA', 'subject=O = External, CN = External Root']),
    );
    expect(subjects.join('\n')).not.toContain(otherRoot.subject.replace(/^CN=/, ''));
  });
});
