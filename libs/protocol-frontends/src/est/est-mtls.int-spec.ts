import { execFileSync } from 'node:child_process';
import { createPrivateKey, webcrypto, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import { AuditRecord } from '@certlane/contracts';
import { runMigrations } from '@certlane/platform';
import {
  EstProfileRow,
  EstProfileSettingsRow,
  EstProfileStore,
} from '@certlane/protocol-frontends-data-access';
import { hashEstPassword } from '@certlane/protocol-frontends-domain';
import { createServiceSchemaDatabase, ServiceSchemaDatabase } from '@certlane/testing';
import { Client } from 'pg';
import { ClientCertificateStatus } from '../client-certificate-status';
import { EstHttpRequest, EstServer, EstServerDeps } from './est-server';
import { OID_ASYMMETRIC_DECRYPT_KEY_ID } from './est-server-keygen';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

/**
 * The EST server's mutual-TLS paths, reenroll and channel binding (RFC 7030 3.3.2, 4.2.2, 3.5;
 * ADR 0061) on real Postgres: client certificates and CSRs made by openssl, presented to the
 * server the way the listener hands them on (base64 DER, leaf first, with the tls-exporter).
 */
describe('EST server (mutual TLS, reenroll, channel binding)', () => {
  let database: ServiceSchemaDatabase;
  let db: Client;
  let mtlsProfile: EstProfileRow;
  let boundProfile: EstProfileRow;
  let caCert: x509.X509Certificate;
  let caKeys: webcrypto.CryptoKeyPair;
  const audit: AuditRecord[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'est-mtls-'));
  const path = (name: string) => join(dir, name);
  const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  let serial = 0x200;

  let server: EstServer;
  const newServer = (extra: Partial<EstServerDeps> = {}) =>
    new EstServer({
      ...extra,
      executor: db,
      audit: async (records, tick) => {
        await new EstProfileStore(db).tick(tick.profileId, tick.outcome);
        audit.push(...records);
      },
      issue: async ({ csrPem }) => {
        const request = new x509.Pkcs10CertificateRequest(csrPem);
        const cert = await x509.X509CertificateGenerator.create({
          serialNumber: (serial++).toString(16),
          subject: request.subject,
          issuer: caCert.subject,
          notBefore: new Date(Date.now() - 60_000),
          notAfter: new Date(Date.now() + 86_400_000),
          signingAlgorithm: ALG,
          publicKey: request.publicKey,
          signingKey: caKeys.privateKey,
          extensions: request.extensions,
        });
        return { certificatePem: cert.toString('pem') };
      },
      caCertificates: async () => [caCert.toString('pem')],
      certificateProfile: extra.certificateProfile ?? (async () => null),
    });

  /** A device key and certificate issued by `issuer` (a CA made by `ca`), subject and SAN given. */
  function device(name: string, issuer: string, subject: string, san: string): string[] {
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
    writeFileSync(path(`${name}.ext`), `extendedKeyUsage=clientAuth\nsubjectAltName=${san}\n`);
    openssl(
      ['x509', '-req', '-in', path(`${name}.csr`), '-CA', path(`${issuer}.pem`)]
        .concat(['-CAkey', path(`${issuer}.key`), '-set_serial', String(serial++), '-days', '2'])
        .concat(['-out', path(`${name}.pem`), '-extfile', path(`${name}.ext`)]),
    );
    return [new X509Certificate(readFileSync(path(`${name}.pem`))).raw.toString('base64')];
  }
  function ca(name: string): void {
    openssl(
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2']
        .concat(['-keyout', path(`${name}.key`), '-out', path(`${name}.pem`), '-subj', `/CN=${name}`])
        .concat(['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=keyCertSign']),
    );
  }
  /** A CSR (PEM) with a new key, a one-attribute subject (`/CN=...`), a SAN and a challengePassword as given. */
  function csr(name: string, subject: string, san?: string, challengePassword?: string): string {
    const config = [
      '[req]',
      // openssl drops the request attributes when the subject comes from -subj: all from the file.
      'prompt=no',
      'distinguished_name=dn',
      'attributes=attrs',
      '[dn]',
      subject.slice(1),
      '[attrs]',
      ...(challengePassword ? [`challengePassword=${challengePassword}`] : []),
    ].join('\n');
    writeFileSync(path(`${name}.cnf`), config + '\n');
    openssl(
      ['req', '-new', '-config', path(`${name}.cnf`), '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']
        .concat(['-nodes', '-keyout', path(`${name}.csrkey`), '-out', path(`${name}.req`)])
        .concat(san ? ['-addext', `subjectAltName=${san}`] : []),
    );
    return readFileSync(path(`${name}.req`), 'utf8');
  }
  const counter = async (profile: EstProfileRow, outcome: string) =>
    (await new EstProfileStore(db).counters()).get(profile.id)?.get(outcome) ?? 0;
  const post = (request: Omit<EstHttpRequest, 'method'>) => server.handle({ method: 'POST', ...request });

  beforeAll(async () => {
    database = await createServiceSchemaDatabase('estmtls', 'protocol-frontends', runMigrations);
    db = database.pg;
    server = newServer();
    caKeys = (await webcrypto.subtle.generateKey(ALG, false, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    caCert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: '01',
      name: 'CN=EST Issuing CA',
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + 86_400_000),
      signingAlgorithm: ALG,
      keys: caKeys as unknown as Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[0]['keys'],
      extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
    });
    ca('Device Trust');
    ca('Stranger CA');
    const settings: EstProfileSettingsRow = {
      certificate_profile_id: null,
      issuer_id: null,
      auth_methods: ['mtls'],
      basic_username: null,
      basic_password_hash: null,
      trust_bundle_path: null,
      trust_bundle_pem: readFileSync(path('Device Trust.pem'), 'utf8'),
      trust_loaded_at: null,
      serverkeygen_enabled: false,
      serverkeygen_unencrypted_allowed: false,
      client_revocation_unknown: 'soft-fail',
      channel_binding_required: false,
      rate_limit_per_minute: 100,
      owner: null,
      team: null,
    };
    const store = new EstProfileStore(db);
    mtlsProfile = (await store.create('devices', settings))!;
    boundProfile = (await store.create('bound', { ...settings, channel_binding_required: true }))!;
    await store.create('basiconly', {
      ...settings,
      auth_methods: ['basic'],
      basic_username: 'u',
      basic_password_hash: 'scrypt$1$1$1$x$y',
      trust_bundle_pem: null,
    });
  }, 60_000);

  afterAll(() => database?.drop());

  it('RFC 7030 3.3.2: a client certificate from the trust bundle enrolls over /.well-known/est-mtls/', async () => {
    const presented = device('dev1', 'Device Trust', '/CN=dev1.example', 'DNS:dev1.example');
    const response = await post({
      path: '/.well-known/est-mtls/devices/simpleenroll',
      body: csr('new1', '/CN=new1.example'),
      client_certificates: presented,
    });
    expect(response.status).toBe(200);
    const fingerprint = new X509Certificate(Buffer.from(presented[0], 'base64')).fingerprint256;
    expect(audit.at(-1)).toMatchObject({
      action: 'est_simple_enroll_success',
      actor_id: `mtls:${fingerprint.replace(/:/g, '').toLowerCase()}`,
    });
    expect(await counter(mtlsProfile, 'est_simple_enroll_success')).toBe(1);
  });

  it('RFC 7030 3.3.2: a client certificate from an untrusted CA is 403 and est_auth_failed_mtls', async () => {
    const response = await post({
      path: '/.well-known/est-mtls/devices/simpleenroll',
      body: csr('new2', '/CN=new2.example'),
      client_certificates: device('stranger', 'Stranger CA', '/CN=stranger', 'DNS:stranger.example'),
    });
    expect([response.status, response.body]).toEqual([403, expect.stringContaining('does not chain')]);
    expect(audit.at(-1)).toMatchObject({ action: 'est_auth_failed_mtls', outcome: 'denied' });
    expect(await counter(mtlsProfile, 'est_auth_failed_mtls')).toBe(1);
  });

  it('RFC 7030 3.3.2: no client certificate on the mutual-TLS path is 403 and est_auth_failed_mtls', async () => {
    const response = await post({
      path: '/.well-known/est-mtls/devices/simpleenroll',
      body: csr('new3', '/CN=new3.example'),
    });
    expect([response.status, response.body]).toEqual([403, expect.stringContaining('no client certificate')]);
    expect(await counter(mtlsProfile, 'est_auth_failed_mtls')).toBe(2);
  });

  it('the mutual-TLS path of a Basic-only profile does not exist; cacerts needs no certificate', async () => {
    expect((await post({ path: '/.well-known/est-mtls/basiconly/simpleenroll', body: 'x' })).status).toBe(
      404,
    );
    expect(
      (await server.handle({ method: 'GET', path: '/.well-known/est-mtls/devices/cacerts' })).status,
    ).toBe(200);
  });

  it('RFC 7030 3.3.2: a verified client chain is kept only for its trust revision: a trust change refuses the next request', async () => {
    const store = new EstProfileStore(db);
    const rotating = (await store.create('rotating', {
      certificate_profile_id: null,
      issuer_id: null,
      auth_methods: ['mtls'],
      basic_username: null,
      basic_password_hash: null,
      trust_bundle_path: null,
      trust_bundle_pem: readFileSync(path('Device Trust.pem'), 'utf8'),
      trust_loaded_at: null,
      serverkeygen_enabled: false,
      serverkeygen_unencrypted_allowed: false,
      client_revocation_unknown: 'soft-fail',
      channel_binding_required: false,
      rate_limit_per_minute: 100,
      owner: null,
      team: null,
    }))!;
    const presented = device('rot1', 'Device Trust', '/CN=rot1.example', 'DNS:rot1.example');
    const enroll = async (name: string) =>
      post({
        path: '/.well-known/est-mtls/rotating/simpleenroll',
        body: csr(name, `/CN=${name}.example`),
        client_certificates: presented,
      });
    expect((await enroll('rot-a')).status).toBe(200);
    expect((await enroll('rot-b')).status).toBe(200);
    // What a reload-trust does when the bundle file changed.
    await store.setTrust(rotating.id, readFileSync(path('Stranger CA.pem'), 'utf8'));
    const refused = await enroll('rot-c');
    expect([refused.status, refused.body]).toEqual([403, expect.stringContaining('does not chain')]);
  });

  it("RFC 7030 3.3.2: a verified client chain is not kept past the client certificate's expiry", async () => {
    const presented = device('exp1', 'Device Trust', '/CN=exp1.example', 'DNS:exp1.example');
    // After the certificate is made: its notBefore is openssl's current second.
    let clock = new Date();
    const timed = newServer({ now: () => clock });
    const enroll = (name: string) =>
      timed.handle({
        method: 'POST',
        path: '/.well-known/est-mtls/devices/simpleenroll',
        body: csr(name, `/CN=${name}.example`),
        client_certificates: presented,
      });
    expect((await enroll('exp-a')).status).toBe(200);
    clock = new Date(Date.now() + 3 * 86_400_000);
    const refused = await enroll('exp-b');
    expect([refused.status, refused.body]).toEqual([403, expect.stringContaining('expired')]);
  });

  it('RFC 7030 4.2.2: simplereenroll with the subject and SANs of the presented certificate renews it', async () => {
    const presented = device('renew', 'Device Trust', '/CN=renew.example', 'DNS:renew.example,IP:192.0.2.7');
    const response = await post({
      path: '/.well-known/est-mtls/devices/simplereenroll',
      body: csr('renew-req', '/CN=renew.example', 'IP:192.0.2.7,DNS:renew.example'),
      client_certificates: presented,
    });
    expect([response.status, response.body?.slice(0, 100)]).toEqual([200, expect.any(String)]);
    expect(await counter(mtlsProfile, 'est_simple_reenroll_success')).toBe(1);
  });

  it('RFC 7030 3.2.3: a verified client certificate sent with Basic credentials too (curl --cert -u) still authenticates, so simplereenroll renews it', async () => {
    const presented = device('both', 'Device Trust', '/CN=both.example', 'DNS:both.example');
    const response = await post({
      path: '/.well-known/est/devices/simplereenroll',
      body: csr('both-req', '/CN=both.example', 'DNS:both.example'),
      client_certificates: presented,
      authorization: `Basic ${Buffer.from('someone:anything').toString('base64')}`,
    });
    expect([response.status, response.body?.slice(0, 100)]).toEqual([200, expect.any(String)]);
    const fingerprint = new X509Certificate(Buffer.from(presented[0], 'base64')).fingerprint256;
    expect(audit.at(-1)).toMatchObject({
      action: 'est_simple_reenroll_success',
      actor_id: `mtls:${fingerprint.replace(/:/g, '').toLowerCase()}`,
    });
    // One from an untrusted CA does not: Basic decides, and this profile takes none.
    const stranger = device('both-stranger', 'Stranger CA', '/CN=both.example', 'DNS:both.example');
    const refused = await post({
      path: '/.well-known/est/devices/simplereenroll',
      body: csr('both-stranger-req', '/CN=both.example', 'DNS:both.example'),
      client_certificates: stranger,
      authorization: `Basic ${Buffer.from('someone:anything').toString('base64')}`,
    });
    expect(refused.status).not.toBe(200);
  });

  it('RFC 7030 4.2.3: simplereenroll under requires_approval is checked (4.2.2 names) first, then held: 202 (est_enrollment_pending), its own reference key per operation', async () => {
    const asked: Parameters<NonNullable<EstServerDeps['approval']>>[0][] = [];
    const held = newServer({
      certificateProfile: async () => ({
        allowed_key_algorithms: [],
        allowed_ekus: [],
        required_csr_attributes: [],
        requires_approval: true,
      }),
      approval: async (input) => {
        asked.push(input);
        return { approvalId: 'ap-renew', state: 'pending', certificatePem: null, reason: null };
      },
    });
    const presented = device(
      'held-renew',
      'Device Trust',
      '/CN=held-renew.example',
      'DNS:held-renew.example',
    );
    const renamed = await held.handle({
      method: 'POST',
      path: '/.well-known/est-mtls/devices/simplereenroll',
      body: csr('held-renew-other', '/CN=other.example', 'DNS:held-renew.example'),
      client_certificates: presented,
    });
    expect(renamed.status).toBe(400);
    expect(asked).toEqual([]);
    const body = csr('held-renew-req', '/CN=held-renew.example', 'DNS:held-renew.example');
    const reenroll = await held.handle({
      method: 'POST',
      path: '/.well-known/est-mtls/devices/simplereenroll',
      body,
      client_certificates: presented,
    });
    expect([reenroll.status, reenroll.headers['Retry-After']]).toEqual([202, '60']);
    expect(audit.at(-1)).toMatchObject({
      action: 'est_enrollment_pending',
      outcome: 'success',
      actor_id: expect.stringMatching(/^mtls:[0-9a-f]{64}$/),
      details: { operation: 'simplereenroll', approval_id: 'ap-renew', retry_after_seconds: 60 },
    });
    const enroll = await held.handle({
      method: 'POST',
      path: '/.well-known/est-mtls/devices/simpleenroll',
      body,
      client_certificates: presented,
    });
    expect(enroll.status).toBe(202);
    expect(asked.map((a) => a.reference.operation)).toEqual(['simplereenroll', 'simpleenroll']);
    expect(asked[0].principal).toMatch(/^mtls:[0-9a-f]{64}$/);
    expect(asked[0].referenceKey).not.toBe(asked[1].referenceKey);
  });

  it.each([
    ['another subject', '/CN=someone-else.example', 'DNS:renew2.example', 'CSR subject'],
    [
      'another SubjectAltName',
      '/CN=renew2.example',
      'DNS:renew2.example,DNS:extra.example',
      'SubjectAltName',
    ],
  ])(
    'RFC 7030 4.2.2: simplereenroll with %s is refused and est_simple_reenroll_failed',
    async (_, subject, san, why) => {
      const before = await counter(mtlsProfile, 'est_simple_reenroll_failed');
      const response = await post({
        path: '/.well-known/est-mtls/devices/simplereenroll',
        body: csr('renew2-req', subject, san),
        client_certificates: device('renew2', 'Device Trust', '/CN=renew2.example', 'DNS:renew2.example'),
      });
      expect([response.status, response.body]).toEqual([400, expect.stringContaining(why)]);
      expect(await counter(mtlsProfile, 'est_simple_reenroll_failed')).toBe(before + 1);
    },
  );

  describe('channel binding (RFC 7030 3.5, RFC 9266 tls-exporter)', () => {
    const exporter = Buffer.alloc(32, 0x5a).toString('base64');
    let presented: string[];
    beforeAll(() => {
      presented = device('bound', 'Device Trust', '/CN=bound.example', 'DNS:bound.example');
    });

    it('enrolls a CSR whose challengePassword is the tls-exporter of the connection', async () => {
      const response = await post({
        path: '/.well-known/est-mtls/bound/simpleenroll',
        body: csr('cb-ok', '/CN=cb.example', undefined, exporter),
        client_certificates: presented,
        tls_exporter: exporter,
      });
      expect(response.status).toBe(200);
    });

    it.each([
      ['no challengePassword', undefined, 'no challengePassword'],
      ['the binding of another connection', Buffer.alloc(32, 1).toString('base64'), 'not the tls-exporter'],
    ])('RFC 7030 3.5: a CSR with %s is 403 and est_auth_failed_channel_binding', async (_, password, why) => {
      const before = await counter(boundProfile, 'est_auth_failed_channel_binding');
      const response = await post({
        path: '/.well-known/est-mtls/bound/simpleenroll',
        body: csr('cb-bad', '/CN=cb.example', undefined, password),
        client_certificates: presented,
        tls_exporter: exporter,
      });
      expect([response.status, response.body]).toEqual([403, expect.stringContaining(why)]);
      expect(audit.at(-1)).toMatchObject({ action: 'est_auth_failed_channel_binding', outcome: 'denied' });
      expect(await counter(boundProfile, 'est_auth_failed_channel_binding')).toBe(before + 1);
    });
  });

  describe('client certificate revocation status unknown (no CRL distribution point, not a Certlane CA)', () => {
    let checked: EstServer;
    let lookups = 0;
    beforeAll(async () => {
      const status = new ClientCertificateStatus({
        localCas: async () => {
          lookups++;
          return [];
        },
        localOcsp: async () => Buffer.alloc(0),
        fetchCrl: async () => Buffer.alloc(0),
      });
      checked = newServer({
        clientRevocation: (fingerprint, leaf, issuers) => status.check(fingerprint, leaf, issuers),
      });
      const store = new EstProfileStore(db);
      await store.create('hardfail', {
        ...(await store.byPathId('devices'))!,
        client_revocation_unknown: 'hard-fail',
      });
    });

    it('soft-fail (the default) accepts the client certificate', async () => {
      const response = await checked.handle({
        method: 'POST',
        path: '/.well-known/est-mtls/devices/simpleenroll',
        body: csr('soft', '/CN=soft.example'),
        client_certificates: device('soft', 'Device Trust', '/CN=soft.example', 'DNS:soft.example'),
      });
      expect(response.status).toBe(200);
    });

    it('hard-fail refuses it: 403 and est_auth_failed_mtls; the verdict is looked up once for repeated requests', async () => {
      const presented = device('hard', 'Device Trust', '/CN=hard.example', 'DNS:hard.example');
      const before = lookups;
      for (let i = 0; i < 2; i++) {
        const response = await checked.handle({
          method: 'POST',
          path: '/.well-known/est-mtls/hardfail/simpleenroll',
          body: csr(`hard${i}`, '/CN=hard.example'),
          client_certificates: presented,
        });
        expect([response.status, response.body]).toEqual([
          403,
          expect.stringContaining('revocation status is unknown'),
        ]);
        expect(audit.at(-1)).toMatchObject({ action: 'est_auth_failed_mtls', outcome: 'denied' });
      }
      expect(lookups - before).toBeLessThanOrEqual(1);
    });
  });

  it('RFC 7030 4.4.1.2: serverkeygen over mutual TLS encrypts to the client certificate key the CSR names (openssl cms -decrypt with it)', async () => {
    // An RSA device certificate (openssl x509 writes its subject key identifier).
    openssl(
      ['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=rsadev.example'].concat([
        '-keyout',
        path('rsadev.key'),
        '-out',
        path('rsadev.csr'),
      ]),
    );
    writeFileSync(
      path('rsadev.ext'),
      'extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n',
    );
    openssl(
      [
        'x509',
        '-req',
        '-in',
        path('rsadev.csr'),
        '-CA',
        path('Device Trust.pem'),
        '-CAkey',
        path('Device Trust.key'),
      ].concat([
        '-set_serial',
        String(serial++),
        '-days',
        '2',
        '-out',
        path('rsadev.pem'),
        '-extfile',
        path('rsadev.ext'),
      ]),
    );
    const deviceCert = new x509.X509Certificate(readFileSync(path('rsadev.pem'), 'utf8'));
    const ski = Buffer.from(deviceCert.getExtension(x509.SubjectKeyIdentifierExtension)!.keyId, 'hex');
    openssl(
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'].concat(
        ['-subj', '/CN=est.example', '-keyout', path('signer.key'), '-out', path('signer.pem')],
      ),
    );
    const keygen = newServer({
      keygenSigner: async () => ({
        certificateDer: new Uint8Array(new X509Certificate(readFileSync(path('signer.pem'))).raw),
        key: createPrivateKey(readFileSync(path('signer.key'))),
      }),
    });
    const store = new EstProfileStore(db);
    await store.create('mtlskeygen', { ...(await store.byPathId('devices'))!, serverkeygen_enabled: true });
    // The CSR's own key is EC: only the certificate key can receive the private key.
    const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
    const keys = (await webcrypto.subtle.generateKey(algorithm, true, [
      'sign',
      'verify',
    ])) as webcrypto.CryptoKeyPair;
    const request = await x509.Pkcs10CertificateRequestGenerator.create({
      name: 'CN=generated.example',
      keys,
      signingAlgorithm: algorithm,
      attributes: [
        new x509.Attribute(OID_ASYMMETRIC_DECRYPT_KEY_ID, [
          new asn1js.OctetString({ valueHex: ski }).toBER(false),
        ]),
      ],
    });
    const response = await keygen.handle({
      method: 'POST',
      path: '/.well-known/est-mtls/mtlskeygen/serverkeygen',
      body: request.toString('pem'),
      client_certificates: [deviceCert.toString('base64')],
    });
    expect([response.status, response.status === 200 ? '' : response.body]).toEqual([200, '']);
    const boundary = /boundary=(.+)$/.exec(response.headers['Content-Type'])![1];
    const keyPart = response.body!.split(`--${boundary}`)[1].split('\r\n\r\n')[1];
    writeFileSync(path('mk.p7m'), Buffer.from(keyPart, 'base64'));
    openssl(
      [
        'cms',
        '-decrypt',
        '-inform',
        'DER',
        '-in',
        path('mk.p7m'),
        '-inkey',
        path('rsadev.key'),
        '-binary',
      ].concat(['-out', path('mk.sd')]),
    );
    expect(readFileSync(path('mk.sd')).length).toBeGreaterThan(100);
    // Over Basic there is no certificate key: the same identifier names no key the server holds.
    const basic = await keygen.handle({
      method: 'POST',
      path: '/.well-known/est-mtls/mtlskeygen/serverkeygen',
      body: request.toString('pem'),
      client_certificates: device('ecdev', 'Device Trust', '/CN=ecdev.example', 'DNS:ecdev.example'),
    });
    expect([basic.status, basic.body]).toEqual([400, expect.stringContaining('no key this server holds')]);
  });
  describe('review finding 4: on /.well-known/est/ of a profile taking Basic and certificates, a certificate that does not authenticate leaves the request to Basic (RFC 7030 3.2.3)', () => {
    const PASSWORD = 'either-password-0123';
    const basicAuth = (password = PASSWORD) => `Basic ${Buffer.from(`fleet:${password}`).toString('base64')}`;
    /** Fingerprints (SHA-256 hex) the revocation check answers revoked; every other certificate is good. */
    const revoked = new Set<string>();
    let either: EstServer;
    let eitherProfile: EstProfileRow;
    const fingerprintOf = (presented: string[]) =>
      new X509Certificate(Buffer.from(presented[0], 'base64')).fingerprint256.replace(/:/g, '').toLowerCase();

    beforeAll(async () => {
      const store = new EstProfileStore(db);
      eitherProfile = (await store.create('either', {
        ...(await store.byPathId('devices'))!,
        auth_methods: ['basic', 'mtls'],
        basic_username: 'fleet',
        basic_password_hash: hashEstPassword(PASSWORD),
      }))!;
      either = newServer({
        clientRevocation: async (fingerprint) =>
          revoked.has(fingerprint) ? { status: 'revoked' } : { status: 'good' },
      });
    });
    const ask = (request: Omit<EstHttpRequest, 'method'>) => either.handle({ method: 'POST', ...request });

    it('an untrusted certificate without credentials gets the 401 Basic challenge, not a 403 it cannot answer', async () => {
      const response = await ask({
        path: '/.well-known/est/either/simpleenroll',
        body: csr('either-u1', '/CN=either-u1.example'),
        client_certificates: device(
          'either-stranger',
          'Stranger CA',
          '/CN=either-u1.example',
          'DNS:u1.example',
        ),
      });
      expect([response.status, response.headers['WWW-Authenticate']]).toEqual([
        401,
        'Basic realm="certlane EST either", charset="UTF-8"',
      ]);
    });

    it('an untrusted certificate with valid Basic credentials enrolls, as Basic', async () => {
      const response = await ask({
        path: '/.well-known/est/either/simpleenroll',
        body: csr('either-u2', '/CN=either-u2.example'),
        client_certificates: device(
          'either-stranger2',
          'Stranger CA',
          '/CN=either-u2.example',
          'DNS:u2.example',
        ),
        authorization: basicAuth(),
      });
      expect([response.status, response.status === 200 ? '' : response.body]).toEqual([200, '']);
      expect(audit.at(-1)).toMatchObject({ action: 'est_simple_enroll_success', actor_id: 'basic:fleet' });
      // Wrong credentials stay a 401.
      const wrong = await ask({
        path: '/.well-known/est/either/simpleenroll',
        body: csr('either-u3', '/CN=either-u3.example'),
        client_certificates: device(
          'either-stranger3',
          'Stranger CA',
          '/CN=either-u3.example',
          'DNS:u3.example',
        ),
        authorization: basicAuth('not-the-password'),
      });
      expect(wrong.status).toBe(401);
    });

    it('a revoked certificate: the Basic challenge without credentials, enrollment with valid Basic ones; simplereenroll still refused (403, naming the revocation)', async () => {
      const presented = device(
        'either-revoked',
        'Device Trust',
        '/CN=either-r.example',
        'DNS:either-r.example',
      );
      revoked.add(fingerprintOf(presented));
      const challenged = await ask({
        path: '/.well-known/est/either/simpleenroll',
        body: csr('either-r1', '/CN=either-r1.example'),
        client_certificates: presented,
      });
      expect(challenged.status).toBe(401);
      const enrolled = await ask({
        path: '/.well-known/est/either/simpleenroll',
        body: csr('either-r2', '/CN=either-r2.example'),
        client_certificates: presented,
        authorization: basicAuth(),
      });
      expect([enrolled.status, enrolled.status === 200 ? '' : enrolled.body]).toEqual([200, '']);
      expect(audit.at(-1)).toMatchObject({ actor_id: 'basic:fleet' });
      const renewal = await ask({
        path: '/.well-known/est/either/simplereenroll',
        body: csr('either-r3', '/CN=either-r.example', 'DNS:either-r.example'),
        client_certificates: presented,
        authorization: basicAuth(),
      });
      expect([renewal.status, renewal.body]).toEqual([403, expect.stringContaining('revoked')]);
      // A good certificate of the bundle still authenticates on this path, Basic or not.
      const good = device('either-good', 'Device Trust', '/CN=either-g.example', 'DNS:either-g.example');
      const renewed = await ask({
        path: '/.well-known/est/either/simplereenroll',
        body: csr('either-g1', '/CN=either-g.example', 'DNS:either-g.example'),
        client_certificates: good,
      });
      expect([renewed.status, renewed.status === 200 ? '' : renewed.body]).toEqual([200, '']);
      expect(audit.at(-1)).toMatchObject({ actor_id: `mtls:${fingerprintOf(good)}` });
    });

    it('/.well-known/est-mtls/ is unchanged: an untrusted or revoked certificate is 403 and est_auth_failed_mtls', async () => {
      const before = await counter(eitherProfile, 'est_auth_failed_mtls');
      const untrusted = await ask({
        path: '/.well-known/est-mtls/either/simpleenroll',
        body: csr('either-m1', '/CN=either-m1.example'),
        client_certificates: device('either-stranger4', 'Stranger CA', '/CN=m1.example', 'DNS:m1.example'),
        authorization: basicAuth(),
      });
      expect([untrusted.status, untrusted.body]).toEqual([403, expect.stringContaining('does not chain')]);
      const presented = device('either-revoked2', 'Device Trust', '/CN=m2.example', 'DNS:m2.example');
      revoked.add(fingerprintOf(presented));
      const refused = await ask({
        path: '/.well-known/est-mtls/either/simpleenroll',
        body: csr('either-m2', '/CN=either-m2.example'),
        client_certificates: presented,
      });
      expect([refused.status, refused.body]).toEqual([403, expect.stringContaining('revoked')]);
      expect(await counter(eitherProfile, 'est_auth_failed_mtls')).toBe(before + 2);
    });
  });
});
