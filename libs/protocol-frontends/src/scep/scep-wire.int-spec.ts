import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { AuditRecord } from '@certlane/contracts';
import { runMigrations } from '@certlane/platform';
import {
  ScepProfileRow,
  ScepProfileSettingsRow,
  ScepProfileStore,
} from '@certlane/protocol-frontends-data-access';
import { hashChallengePassword } from '@certlane/protocol-frontends-domain';
import { createTestDatabase, serviceMigrationsDir, TestDatabase } from '@certlane/testing';
import { Client } from 'pg';
import { RaKeyBox } from './scep-ra';
import { ScepHttpResponse, ScepServer } from './scep-server';
import { readCertRep, ScepRequester } from './testing/scep-requester';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
const CHALLENGE = 'scep-wire-challenge-password';
const SECRET = 'scep-wire-config-encryption-key-0123456789';

const openssl = (args: string[]): string =>
  execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

/**
 * The SCEP server core (RFC 8894; ADR 0059) on real Postgres with messages built by the openssl
 * CLI (keys, CSRs, self-signed signer certificates, `openssl cms -encrypt` envelopes) and CertReps
 * read by `openssl cms -verify` / `-decrypt`. One negative test per MUST, named after its clause.
 */
describe('SCEP server (wire)', () => {
  let database: TestDatabase;
  let db: Client;
  let profile: ScepProfileRow;
  let legacyProfile: ScepProfileRow;
  const dir = mkdtempSync(join(tmpdir(), 'scep-wire-'));
  const path = (name: string) => join(dir, name);
  const audit: AuditRecord[] = [];
  const raKeys = new RaKeyBox(SECRET);
  let raPem: string;
  let caPem: string;
  let serial = 1000;

  const server = () =>
    new ScepServer({
      executor: db,
      raKeys,
      audit: async (record) => {
        audit.push(record);
      },
      issue: async ({ csrPem }) => {
        writeFileSync(path('issue.csr'), csrPem);
        openssl([
          'x509',
          '-req',
          '-in',
          path('issue.csr'),
          '-CA',
          path('ca.crt'),
          '-CAkey',
          path('ca.key'),
          '-set_serial',
          String(serial++),
          '-days',
          '1',
          '-out',
          path('issued.crt'),
        ]);
        return { certificatePem: readFileSync(path('issued.crt'), 'utf8') };
      },
      caCertificates: async () => [caPem],
    });

  const post = (body: Buffer, pathId = '') =>
    server().handle({
      method: 'POST',
      path: `/scep${pathId ? `/${pathId}` : ''}`,
      query: 'operation=PKIOperation',
      body,
    });

  async function createProfile(
    pathId: string,
    settings: Partial<ScepProfileSettingsRow>,
  ): Promise<ScepProfileRow> {
    const id = ScepProfileStore.newId();
    return (await new ScepProfileStore(db).create(id, pathId, {
      certificate_profile_id: null,
      issuer_id: null,
      ra_certificate_pem: raPem,
      ra_key_sealed: raKeys.seal(
        id,
        execFileSync('openssl', ['pkcs8', '-topk8', '-nocrypt', '-in', path('ra.key'), '-outform', 'DER']),
      ),
      ra_validity_days: 365,
      challenge_password_hash: hashChallengePassword(CHALLENGE),
      legacy_algorithms: false,
      approval_required: false,
      mtls_enabled: false,
      trust_bundle_path: null,
      trust_bundle_pem: null,
      mdm_enabled: false,
      mdm_audience: null,
      mdm_trust_path: null,
      mdm_trust_pem: null,
      mdm_trust_loaded_at: null,
      device_state_url: null,
      rate_limit_per_minute: 600,
      owner: null,
      team: null,
      ...settings,
    }))!;
  }

  const pkcsReq = (
    requester: ScepRequester,
    options: { challenge?: string; cipher?: string; recipient?: string } = {},
  ) =>
    requester.pkiMessage({
      messageType: '19',
      envelope: requester.envelope(
        requester.csr(options.challenge ?? CHALLENGE),
        options.recipient ?? raPem,
        options.cipher,
      ),
    });

  const certRep = (response: ScepHttpResponse) => {
    expect([response.status, response.headers['Content-Type']]).toEqual([200, 'application/x-pki-message']);
    return readCertRep(dir, response.body!);
  };

  beforeAll(async () => {
    database = await createTestDatabase('scepwire');
    await runMigrations({
      databaseUrl: database.url,
      schema: 'protocol_frontends',
      directory: serviceMigrationsDir('protocol-frontends'),
      demoSeed: false,
    });
    db = new Client({ connectionString: database.url, options: '-c search_path=protocol_frontends' });
    await db.connect();
    openssl([
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      path('ca.key'),
      '-out',
      path('ca.crt'),
      '-subj',
      '/CN=SCEP Wire CA',
      '-days',
      '2',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
    ]);
    caPem = readFileSync(path('ca.crt'), 'utf8');
    openssl([
      'req',
      '-new',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      path('ra.key'),
      '-out',
      path('ra.csr'),
      '-subj',
      '/CN=SCEP Wire RA',
    ]);
    openssl([
      'x509',
      '-req',
      '-in',
      path('ra.csr'),
      '-CA',
      path('ca.crt'),
      '-CAkey',
      path('ca.key'),
      '-set_serial',
      '7',
      '-days',
      '2',
      '-out',
      path('ra.crt'),
    ]);
    raPem = readFileSync(path('ra.crt'), 'utf8');
    profile = await createProfile('default', {});
    legacyProfile = await createProfile('legacy', { legacy_algorithms: true });
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await database?.drop();
  });

  it('RFC 8894 3.5.2: GetCACaps lists exactly what is implemented, DES3 only on a legacy profile', async () => {
    const caps = await server().handle({ method: 'GET', path: '/scep', query: 'operation=GetCACaps' });
    expect(caps.status).toBe(200);
    expect(caps.body!.toString().trim().split('\n')).toEqual([
      'POSTPKIOperation',
      'SHA-256',
      'SHA-512',
      'AES',
      'SCEPStandard',
      'Renewal',
    ]);
    const legacy = await server().handle({
      method: 'GET',
      path: '/scep/legacy/',
      query: 'operation=GetCACaps',
    });
    expect(legacy.body!.toString()).toContain('DES3');
  });

  it('RFC 8894 4.2.1.2: GetCACert answers the RA certificate then the CA as application/x-x509-ca-ra-cert', async () => {
    const answer = await server().handle({
      method: 'GET',
      path: '/scep',
      query: 'operation=GetCACert&message=ca',
    });
    expect([answer.status, answer.headers['Content-Type']]).toEqual([200, 'application/x-x509-ca-ra-cert']);
    writeFileSync(path('cacert.p7'), answer.body!);
    const printed = openssl(['pkcs7', '-inform', 'DER', '-in', path('cacert.p7'), '-print_certs', '-noout']);
    expect(printed.match(/subject=.*/g)).toEqual(['subject=CN = SCEP Wire RA', 'subject=CN = SCEP Wire CA']);
  });

  it('RFC 8894 4.1: an unknown operation is 400, an unknown profile 404', async () => {
    expect(
      (await server().handle({ method: 'GET', path: '/scep', query: 'operation=GetNextCACert' })).status,
    ).toBe(400);
    expect(
      (await server().handle({ method: 'GET', path: '/scep/nowhere', query: 'operation=GetCACaps' })).status,
    ).toBe(404);
  });

  it('RFC 8894 3.3.2: a PKCSReq over POST gets CertRep SUCCESS, recipientNonce echoing the senderNonce, the certificate enveloped to the requester', async () => {
    const requester = new ScepRequester(dir, 'device-post');
    const nonce = randomBytes(16);
    const message = requester.pkiMessage({
      messageType: '19',
      senderNonce: nonce,
      envelope: requester.envelope(requester.csr(CHALLENGE), raPem),
    });
    const rep = certRep(await post(message));
    expect(rep).toMatchObject({ messageType: '3', pkiStatus: '0', transactionId: requester.transactionId() });
    expect(rep.recipientNonce).toEqual(nonce);
    // The pkcsPKIEnvelope opens with the requester's key (openssl cms -decrypt) to a certs-only PKCS#7.
    writeFileSync(path('envelope.der'), rep.content);
    openssl([
      'cms',
      '-decrypt',
      '-inform',
      'DER',
      '-in',
      path('envelope.der'),
      '-inkey',
      requester.keyPath,
      '-recip',
      requester.certPath,
      '-binary',
      '-out',
      path('issued.p7'),
    ]);
    const printed = openssl(['pkcs7', '-inform', 'DER', '-in', path('issued.p7'), '-print_certs', '-noout']);
    expect(printed).toContain('subject=CN = device-post');
    expect(audit.at(-1)).toMatchObject({ action: 'scep_pkcsreq', outcome: 'success' });
  });

  it('RFC 8894 4.3: PKIOperation over GET carries the message base64 and URL-encoded', async () => {
    const requester = new ScepRequester(dir, 'device-get');
    const message = pkcsReq(requester).toString('base64');
    const rep = certRep(
      await server().handle({
        method: 'GET',
        path: '/scep',
        query: `operation=PKIOperation&message=${encodeURIComponent(message)}`,
      }),
    );
    expect(rep.pkiStatus).toBe('0');
  });

  it('RFC 8894 2.3: a PKCSReq without the right challenge password is FAILURE badRequest, and the password is never audited', async () => {
    const requester = new ScepRequester(dir, 'device-wrong');
    const rep = certRep(await post(pkcsReq(requester, { challenge: 'wrong-challenge-password-x' })));
    expect([rep.pkiStatus, rep.failInfo]).toEqual(['2', '2']);
    expect(rep.content.length).toBe(0);
    expect(audit.at(-1)).toMatchObject({ action: 'scep_pkcsreq', outcome: 'denied', event_category: 'auth' });
    expect(JSON.stringify(audit)).not.toContain('wrong-challenge-password-x');
    expect(JSON.stringify(audit)).not.toContain(CHALLENGE);
  });

  it('RFC 8894 3.2: a pkiMessage whose signature does not verify is FAILURE badMessageCheck', async () => {
    const requester = new ScepRequester(dir, 'device-tampered');
    const message = requester.pkiMessage({
      messageType: '19',
      envelope: requester.envelope(requester.csr(CHALLENGE), raPem),
      tamper: true,
    });
    const rep = certRep(await post(message));
    expect([rep.pkiStatus, rep.failInfo]).toEqual(['2', '1']);
  });

  it('RFC 8894 3.2.2: an envelope not addressed to the RA certificate is FAILURE badMessageCheck', async () => {
    const requester = new ScepRequester(dir, 'device-wrong-recipient');
    const other = new ScepRequester(dir, 'someone-else');
    const rep = certRep(await post(pkcsReq(requester, { recipient: readFileSync(other.certPath, 'utf8') })));
    expect([rep.pkiStatus, rep.failInfo]).toEqual(['2', '1']);
  });

  it('RFC 8894 3.5.2 (AES): 3DES content encryption is FAILURE badAlg unless the profile enables legacy algorithms', async () => {
    const requester = new ScepRequester(dir, 'device-des3');
    const refused = certRep(await post(pkcsReq(requester, { cipher: '-des3' })));
    expect([refused.pkiStatus, refused.failInfo]).toEqual(['2', '0']);
    const legacy = certRep(await post(pkcsReq(requester, { cipher: '-des3' }), 'legacy'));
    expect(legacy.pkiStatus).toBe('0');
  });

  it('RFC 8894 3.5.2 (SHA-256): a SHA-1 signed pkiMessage is FAILURE badAlg unless the profile enables legacy algorithms', async () => {
    const requester = new ScepRequester(dir, 'device-sha1');
    const message = (pathId: string) =>
      post(
        requester.pkiMessage({
          messageType: '19',
          digest: 'sha1',
          envelope: requester.envelope(requester.csr(CHALLENGE), raPem),
        }),
        pathId,
      );
    expect(certRep(await message('')).failInfo).toBe('0');
    expect(certRep(await message('legacy')).pkiStatus).toBe('0');
  });

  it('RFC 8894 3.2.1.2: an unknown messageType is FAILURE badRequest', async () => {
    const requester = new ScepRequester(dir, 'device-unknown-type');
    const message = requester.pkiMessage({
      messageType: '99',
      envelope: requester.envelope(requester.csr(CHALLENGE), raPem),
    });
    const rep = certRep(await post(message));
    expect([rep.pkiStatus, rep.failInfo]).toEqual(['2', '2']);
  });

  it('RFC 8894 3.3.1.2: a RenewalReq must be signed by a certificate of this CA (badCertId otherwise)', async () => {
    const requester = new ScepRequester(dir, 'device-renew');
    // Signed by its self-signed certificate: not one this CA issued.
    const selfSigned = requester.pkiMessage({
      messageType: '17',
      envelope: requester.envelope(requester.csr(), raPem),
    });
    const refused = certRep(await post(selfSigned));
    expect([refused.pkiStatus, refused.failInfo]).toEqual(['2', '4']);
    // Enrolled first, then renewing with the certificate it got.
    const enrolled = certRep(await post(pkcsReq(requester)));
    writeFileSync(path('renew-env.der'), enrolled.content);
    openssl([
      'cms',
      '-decrypt',
      '-inform',
      'DER',
      '-in',
      path('renew-env.der'),
      '-inkey',
      requester.keyPath,
      '-recip',
      requester.certPath,
      '-binary',
      '-out',
      path('renew.p7'),
    ]);
    const issuedPem = openssl(['pkcs7', '-inform', 'DER', '-in', path('renew.p7'), '-print_certs']);
    writeFileSync(path('renew-current.crt'), issuedPem);
    const renewal = requester.pkiMessage({
      messageType: '17',
      signerCertPath: path('renew-current.crt'),
      envelope: requester.envelope(requester.csr(), raPem),
    });
    const renewed = certRep(await post(renewal));
    expect(renewed.pkiStatus).toBe('0');
    expect(audit.at(-1)).toMatchObject({ action: 'scep_renewalreq', outcome: 'success' });
  });

  it('RFC 8894 3.2.1.1: a PKCSReq sent again with its transactionID gets the same certificate, not a second one', async () => {
    const requester = new ScepRequester(dir, 'device-resend');
    const message = pkcsReq(requester);
    const first = certRep(await post(message));
    const before = serial;
    const again = certRep(await post(message));
    expect([first.pkiStatus, again.pkiStatus, serial]).toEqual(['0', '0', before]);
  });

  it('spec 6.4: every outcome ticked its profile counter', async () => {
    const counters = (await new ScepProfileStore(db).counters()).get(profile.id)!;
    expect(counters.get('scep_pkcsreq')).toBeGreaterThanOrEqual(4);
    expect(counters.get('scep_renewalreq')).toBe(1);
    expect(counters.get('scep_auth_failed')).toBe(2);
    expect(counters.get('scep_failure')).toBeGreaterThanOrEqual(5);
    expect(legacyProfile.legacy_algorithms).toBe(true);
  });
});
