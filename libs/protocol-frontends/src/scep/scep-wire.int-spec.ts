import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createHash,
  createPrivateKey,
  KeyObject,
  randomBytes,
  sign,
  webcrypto,
  X509Certificate,
} from 'node:crypto';
import * as asn1js from 'asn1js';
import * as x509 from '@peculiar/x509';
import { AuditRecord } from '@certlane/contracts';
import { runMigrations, verifyClientCertificate } from '@certlane/platform';
import {
  ScepProfileRow,
  ScepProfileSettingsRow,
  ScepProfileStore,
  ScepRetentionStore,
  ScepTransactionStore,
} from '@certlane/protocol-frontends-data-access';
import { hashChallengePassword } from '@certlane/protocol-frontends-domain';
import { createServiceSchemaDatabase, ServiceSchemaDatabase } from '@certlane/testing';
import { Client } from 'pg';
import { ClientCertificateStatus } from '../client-certificate-status';
import { sequence } from './der';
import { RaKeyBox } from './scep-ra';
import {
  CertificateProfileIssuance,
  ScepCertificateProfile,
  ScepHttpResponse,
  ScepServer,
  ScepServerDeps,
} from './scep-server';
import { csrWithDnsNames } from '../testing/csr-with-dns-names';
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
  let database: ServiceSchemaDatabase;
  let db: Client;
  let profile: ScepProfileRow;
  let managed: ScepProfileRow;
  let replicaB: Client;
  let mdmKey: KeyObject;
  let mdmCert: X509Certificate;
  const AUDIENCE = 'https://scep.example.test/scep/managed';
  let legacyProfile: ScepProfileRow;
  const dir = mkdtempSync(join(tmpdir(), 'scep-wire-'));
  const path = (name: string) => join(dir, name);
  const audit: AuditRecord[] = [];
  const raKeys = new RaKeyBox(SECRET);
  let raPem: string;
  let caPem: string;
  let serial = 1000;
  let crlDer: Buffer;

  // Certificates of no Certlane CA, without CRL distribution points or OCSP addresses: unknown.
  const revocation = new ClientCertificateStatus({
    localCas: async () => [],
    localOcsp: async () => Buffer.alloc(0),
    fetchCrl: async () => Buffer.alloc(0),
  });
  /** Certificate profiles by id, and how each issue was asked for (spec 2.9). */
  const certificateProfiles = new Map<string, ScepCertificateProfile>();
  const issuances: CertificateProfileIssuance[] = [];
  /** What each issue said it renews (the certificate a renewal is signed by). */
  const renewed: (string | undefined)[] = [];
  const server = (executor: Client = db, now?: () => Date, extra: Partial<ScepServerDeps> = {}) =>
    new ScepServer({
      executor,
      certificateProfile: async (profile) => certificateProfiles.get(profile.certificate_profile_id!) ?? null,
      ...(now ? { now } : {}),
      clientRevocation: (fingerprint, leaf, issuers) => revocation.check(fingerprint, leaf, issuers),
      deviceState: async (_profile, claims) => claims.sub !== 'noncompliant',
      crl: async () => crlDer,
      // The platform's mutual-TLS check, as ScepService wires it (ADR 0061).
      verifyClientCertificate,
      raKeys,
      record: async (outcome) => {
        if (outcome.issued) await new ScepTransactionStore(executor).recordIssued(outcome.issued);
        await new ScepProfileStore(executor).tickMany(outcome.ticks);
        if (outcome.audit) audit.push(outcome.audit);
      },
      issue: async ({ csrPem, issuance, renewsCertificatePem }) => {
        issuances.push(issuance);
        renewed.push(renewsCertificatePem);
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
      ...extra,
    });

  const post = (body: Buffer, pathId = '', executor: Client = db, now?: () => Date) =>
    server(executor, now).handle({
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
      client_revocation_unknown: 'soft-fail',
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
    database = await createServiceSchemaDatabase('scepwire', 'protocol-frontends', runMigrations);
    db = database.pg;
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
    replicaB = await database.connect();
    openssl([
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      path('mdm.key'),
      '-out',
      path('mdm.crt'),
      '-subj',
      '/CN=Test MDM',
      '-days',
      '2',
    ]);
    mdmKey = createPrivateKey(readFileSync(path('mdm.key')));
    mdmCert = new X509Certificate(readFileSync(path('mdm.crt')));
    const caKey = createPrivateKey(readFileSync(path('ca.key')));
    const crl = await x509.X509CrlGenerator.create({
      issuer: new x509.X509Certificate(caPem).subject,
      thisUpdate: new Date(),
      nextUpdate: new Date(Date.now() + 86_400_000),
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
      signingKey: await webcrypto.subtle.importKey(
        'pkcs8',
        caKey.export({ format: 'der', type: 'pkcs8' }),
        { name: 'ECDSA', namedCurve: 'P-256' },
        false,
        ['sign'],
      ),
      entries: [{ serialNumber: '0abc', revocationDate: new Date() }],
    });
    crlDer = Buffer.from(crl.rawData);
    for (const [pathId, policy] of [
      ['mtls', 'soft-fail'],
      ['mtls-hard', 'hard-fail'],
    ] as const)
      await createProfile(pathId, {
        challenge_password_hash: null,
        mtls_enabled: true,
        trust_bundle_pem: caPem,
        client_revocation_unknown: policy,
      });
    managed = await createProfile('managed', {
      challenge_password_hash: null,
      mdm_enabled: true,
      mdm_audience: AUDIENCE,
      mdm_trust_pem: readFileSync(path('mdm.crt'), 'utf8'),
      device_state_url: 'https://device-state.example.test/check',
      rate_limit_per_minute: 3,
    });
  }, 60_000);

  afterAll(() => database?.drop());

  it('RFC 8894 3.5.2: GetCACaps lists exactly what is implemented, DES3 only on a legacy profile', async () => {
    const caps = await server().handle({ method: 'GET', path: '/scep', query: 'operation=GetCACaps' });
    expect(caps.status).toBe(200);
    expect(caps.body!.toString().trim().split('\n')).toEqual([
      'POSTPKIOperation',
      'SHA-256',
      'SHA-384',
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
    expect(legacy.body!.toString()).not.toContain('SCEPStandard');
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

  it("spec 2.9: the SCEP profile's certificate profile: its CSR policy refuses, its validity, must-staple and EKUs issue", async () => {
    const rules = { allowed_ekus: [], required_csr_attributes: [], validity_days: 30, must_staple: true };
    certificateProfiles.set('cp-ec-only', { ...rules, allowed_key_algorithms: ['ECDSA-P256'] });
    certificateProfiles.set('cp-rsa', {
      ...rules,
      allowed_key_algorithms: ['RSA-2048'],
      allowed_ekus: ['clientAuth'],
    });
    await createProfile('ec-only', { certificate_profile_id: 'cp-ec-only' });
    await createProfile('rsa', { certificate_profile_id: 'cp-rsa' });
    const refused = certRep(await post(pkcsReq(new ScepRequester(dir, 'device-cp-ec')), 'ec-only'));
    expect(refused).toMatchObject({ pkiStatus: '2', failInfo: '2' });
    expect(audit.at(-1)?.details).toMatchObject({ reason: expect.stringMatching(/RSA-2048 is not allowed/) });
    const before = issuances.length;
    const issued = certRep(await post(pkcsReq(new ScepRequester(dir, 'device-cp-rsa')), 'rsa'));
    expect(issued.pkiStatus).toBe('0');
    expect(issuances.slice(before)).toEqual([
      { validityDays: 30, mustStaple: true, extendedKeyUsage: ['clientAuth'] },
    ]);
  });

  it('RFC 2985 5.4.2: a CSR with two extensionRequest attributes (the checks would read one, the issuer the other) is FAILURE badRequest, nothing issued', async () => {
    const requester = new ScepRequester(dir, 'device-two-requests');
    const csr = await csrWithDnsNames(
      requester.keyPath,
      'device-two-requests',
      [['device-two-requests.example'], ['*.corp.example']],
      CHALLENGE,
    );
    const before = issuances.length;
    const refused = certRep(
      await post(requester.pkiMessage({ messageType: '19', envelope: requester.envelope(csr, raPem) })),
    );
    expect([refused.pkiStatus, refused.failInfo]).toEqual(['2', '2']);
    expect(audit.at(-1)?.details).toMatchObject({
      reason: expect.stringMatching(
        /^the CSR is ambiguous: the request carries attribute 1\.2\.840\.113549\.1\.9\.14 more than once/,
      ),
    });
    expect(issuances.length).toBe(before);
  });

  it('without a certificate profile, the enrollment SAN rules still hold: a wildcard or over 100 names is FAILURE badRequest, nothing issued', async () => {
    const requester = new ScepRequester(dir, 'device-wildcard');
    const before = issuances.length;
    const many = Array.from({ length: 101 }, (_, i) => `h${i}.example`);
    for (const [names, reason] of [
      [['*.corp.example'], 'wildcard SAN *.corp.example is not issued over EST or SCEP'],
      [many, 'at most 100 SANs (got 101)'],
    ] as const) {
      const csr = await csrWithDnsNames(requester.keyPath, 'device-wildcard', [[...names]], CHALLENGE);
      const refused = certRep(
        await post(requester.pkiMessage({ messageType: '19', envelope: requester.envelope(csr, raPem) })),
      );
      expect([refused.pkiStatus, refused.failInfo]).toEqual(['2', '2']);
      expect(audit.at(-1)?.details).toMatchObject({ reason: expect.stringContaining(reason) });
    }
    expect(issuances.length).toBe(before);
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
    // Answered in the cipher the device showed it has, and readable with its key.
    expect(replyCipher(legacy.content, 'des3-reply')).toBe('des-ede3-cbc');
    expect(openedCertificate(legacy.content, requester, 'des3-reply')).toContain('subject=CN = device-des3');
  });

  it('RFC 8894 3.5.2: the answer is encrypted with the content cipher of the request (AES-128 here; "AES" promises only AES-128)', async () => {
    const requester = new ScepRequester(dir, 'device-aes128');
    const rep = certRep(await post(pkcsReq(requester, { cipher: '-aes128' })));
    expect(rep.pkiStatus).toBe('0');
    expect(replyCipher(rep.content, 'aes128-reply')).toBe('aes-128-cbc');
    expect(openedCertificate(rep.content, requester, 'aes128-reply')).toContain('subject=CN = device-aes128');
  });

  /** The content cipher of an answer's EnvelopedData, as openssl names it. */
  const replyCipher = (envelope: Buffer, name: string): string => {
    writeFileSync(path(`${name}-cipher.der`), envelope);
    const printed = openssl([
      'cms',
      '-inform',
      'DER',
      '-in',
      path(`${name}-cipher.der`),
      '-cmsout',
      '-print',
    ]).toString();
    return /contentEncryptionAlgorithm:\s*\n?\s*algorithm: (\S+)/.exec(printed)?.[1] ?? printed;
  };

  it('GetCACaps SHA-384: a SHA-384 signed pkiMessage is answered SUCCESS', async () => {
    const requester = new ScepRequester(dir, 'device-sha384');
    const rep = certRep(
      await post(
        requester.pkiMessage({
          messageType: '19',
          digest: 'sha384',
          envelope: requester.envelope(requester.csr(CHALLENGE), raPem),
        }),
      ),
    );
    expect(rep.pkiStatus).toBe('0');
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

  /** The certificate a SUCCESS CertRep carries, decrypted by its requester, written as `file` (PEM). */
  function issuedCertificate(rep: { content: Buffer }, requester: ScepRequester, file: string): string {
    writeFileSync(path(`${file}.env.der`), rep.content);
    openssl([
      'cms',
      '-decrypt',
      '-inform',
      'DER',
      '-in',
      path(`${file}.env.der`),
      '-inkey',
      requester.keyPath,
      '-recip',
      requester.certPath,
      '-binary',
      '-out',
      path(`${file}.p7`),
    ]);
    const pem = openssl(['pkcs7', '-inform', 'DER', '-in', path(`${file}.p7`), '-print_certs']);
    writeFileSync(path(file), pem);
    return pem;
  }

  it('draft-nourse-scep renewal: a PKCSReq without a challenge password signed by a certificate of this CA renews it; signed by a self-signed one it is refused', async () => {
    const requester = new ScepRequester(dir, 'device-nourse');
    const enrolled = certRep(await post(pkcsReq(requester)));
    expect(enrolled.pkiStatus).toBe('0');
    const issuedPem = issuedCertificate(enrolled, requester, 'nourse-current.crt');
    /** A PKCSReq without a challenge password, signed by `signer` (default: its self-signed certificate). */
    const challengeless = async (transactionId: string, signer?: string, otherName?: string) =>
      certRep(
        await post(
          requester.pkiMessage({
            messageType: '19',
            transactionId,
            ...(signer ? { signerCertPath: path(signer) } : {}),
            envelope: requester.envelope(requester.csr(undefined, otherName), raPem),
          }),
        ),
      );
    // sscep's renewal: messageType PKCSReq, no challenge, signed by the certificate it holds.
    expect((await challengeless('nourse-renewal-1', 'nourse-current.crt')).pkiStatus).toBe('0');
    expect(renewed.at(-1)).toBe(new X509Certificate(issuedPem).toString());
    // The same signed by the requester's self-signed certificate: no authority.
    const unauthorised = await challengeless('nourse-renewal-2');
    expect([unauthorised.pkiStatus, unauthorised.failInfo]).toEqual(['2', '2']);
    expect(audit.at(-1)?.details).toMatchObject({ reason: 'no challenge password' });
    // A challenge-less PKCSReq is a renewal only of the names the signer holds.
    const widened = await challengeless('nourse-renewal-3', 'nourse-current.crt', 'admin.corp.example');
    expect([widened.pkiStatus, widened.failInfo]).toEqual(['2', '2']);
    expect(audit.at(-1)?.details).toMatchObject({
      reason: expect.stringMatching(/^no challenge password, and no renewal: .*is not the subject/),
    });
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
    const issuedPem = issuedCertificate(enrolled, requester, 'renew-current.crt');
    const renewal = requester.pkiMessage({
      messageType: '17',
      signerCertPath: path('renew-current.crt'),
      envelope: requester.envelope(requester.csr(), raPem),
    });
    const renewed = certRep(await post(renewal));
    expect(renewed.pkiStatus).toBe('0');
    expect(audit.at(-1)).toMatchObject({ action: 'scep_renewalreq', outcome: 'success' });
    // It reused the PKCSReq's transactionID (derived from the key, as scepclient does): sent
    // again, it is a resend of the renewal and gets the same certificate, not a third one.
    const issuedSoFar = serial;
    expect(certRep(await post(renewal)).pkiStatus).toBe('0');
    expect(serial).toBe(issuedSoFar);
    // RFC 8894 3.3.4: the renewal took the transaction over, and GetCert still finds the first certificate.
    const firstAsked = certRep(
      await post(
        requester.pkiMessage({
          messageType: '21',
          envelope: requester.envelope(issuerAndSerial(issuedPem), raPem),
        }),
      ),
    );
    expect([firstAsked.pkiStatus, firstAsked.failInfo]).toEqual(['0', undefined]);

    // Holding a certificate renews that certificate: a CSR for other names is FAILURE badRequest.
    const otherNames = requester.pkiMessage({
      messageType: '17',
      signerCertPath: path('renew-current.crt'),
      envelope: requester.envelope(requester.csr(undefined, 'admin.corp.example'), raPem),
    });
    const widened = certRep(await post(otherNames));
    expect([widened.pkiStatus, widened.failInfo]).toEqual(['2', '2']);
    expect(audit.at(-1)?.details).toMatchObject({ reason: expect.stringContaining('is not the subject') });
    // The certificate being renewed is checked for revocation as a client certificate is: its
    // status is unknown here (no CRL or OCSP address), so a hard-fail profile refuses it.
    await createProfile('renew-hard', { client_revocation_unknown: 'hard-fail' });
    const unknownStatus = certRep(await post(renewal, 'renew-hard'));
    expect([unknownStatus.pkiStatus, unknownStatus.failInfo]).toEqual(['2', '4']);
    expect(audit.at(-1)?.details).toMatchObject({
      reason: expect.stringContaining('revocation status is unknown'),
    });
  });

  it('RFC 8894 3.2.1.1: a PKCSReq sent again with its transactionID gets the same certificate, not a second one', async () => {
    const requester = new ScepRequester(dir, 'device-resend');
    const message = pkcsReq(requester);
    const first = certRep(await post(message));
    const before = serial;
    const again = certRep(await post(message));
    expect([first.pkiStatus, again.pkiStatus, serial]).toEqual(['0', '0', before]);
    // RFC 8894 3.3.3: the requester is its key; a self-signed certificate re-made between runs
    // (as sscep does) still names the same requester, and gets the same certificate.
    requester.remakeCertificate();
    const remade = certRep(await post(pkcsReq(requester)));
    expect([remade.pkiStatus, serial]).toEqual(['0', before]);
  });

  it('RFC 8894 3.2: a pkiMessage whose eContentType is not data is refused', async () => {
    const requester = new ScepRequester(dir, 'device-econtent');
    const message = requester.pkiMessage({
      messageType: '19',
      envelope: requester.envelope(requester.csr(CHALLENGE), raPem),
      eContentType: '1.2.840.113549.1.7.2',
    });
    expect((await post(message)).status).toBe(400);
  });

  /** An MDM challenge as docs/scep.md describes it, signed with the test MDM's key (ES256). */
  function mdmChallenge(claims: Record<string, unknown> = {}, key: KeyObject = mdmKey): string {
    const now = Math.floor(Date.now() / 1000);
    const header = Buffer.from(
      JSON.stringify({
        alg: 'ES256',
        typ: 'certlane-scep-challenge+jwt',
        'x5t#S256': createHash('sha256').update(mdmCert.raw).digest('base64url'),
      }),
    ).toString('base64url');
    const payload = Buffer.from(
      JSON.stringify({
        ver: 1,
        iss: 'test-mdm',
        aud: AUDIENCE,
        nbf: now - 5,
        exp: now + 300,
        jti: randomBytes(8).toString('hex'),
        sub: 'device-42',
        ...claims,
      }),
    ).toString('base64url');
    const signature = sign('sha256', Buffer.from(`${header}.${payload}`), { key, dsaEncoding: 'ieee-p1363' });
    return `${header}.${payload}.${signature.toString('base64url')}`;
  }

  const mdmRequest = (name: string, challenge: string) => {
    const requester = new ScepRequester(dir, name);
    return requester.pkiMessage({
      messageType: '19',
      envelope: requester.envelope(requester.csr(challenge), raPem),
    });
  };

  const mdmCounters = async () => {
    const all = (await new ScepProfileStore(db).counters()).get(managed.id) ?? new Map<string, number>();
    return Object.fromEntries([...all].filter(([name]) => name.startsWith('mdm_')));
  };

  it('issue 21 (MDM): a valid MDM-signed challenge enrolls (scep_pkcsreq_mdm); each refusal is FAILURE badRequest and ticks its status', async () => {
    const ok = certRep(await post(mdmRequest('mdm-valid', mdmChallenge({ cn: 'mdm-valid' })), 'managed'));
    expect(ok.pkiStatus).toBe('0');
    expect(audit.at(-1)).toMatchObject({ action: 'scep_pkcsreq_mdm', outcome: 'success' });
    const refused = async (name: string, challenge: string) => {
      const rep = certRep(await post(mdmRequest(name, challenge), 'managed'));
      return [rep.pkiStatus, rep.failInfo];
    };
    const now = Math.floor(Date.now() / 1000);
    expect(await refused('mdm-expired', mdmChallenge({ nbf: now - 900, exp: now - 600 }))).toEqual([
      '2',
      '2',
    ]);
    expect(await refused('mdm-early', mdmChallenge({ nbf: now + 600, exp: now + 900 }))).toEqual(['2', '2']);
    expect(await refused('mdm-audience', mdmChallenge({ aud: 'https://elsewhere.example.test' }))).toEqual([
      '2',
      '2',
    ]);
    expect(await refused('mdm-claims', mdmChallenge({ cn: 'somebody-else' }))).toEqual(['2', '2']);
    const stranger = createPrivateKey(
      execFileSync('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256']),
    );
    expect(await refused('mdm-forged', mdmChallenge({}, stranger))).toEqual(['2', '2']);
    expect(await refused('mdm-version', mdmChallenge({ ver: 7 }))).toEqual(['2', '2']);
    expect(await refused('mdm-garbage', 'aaaa.bbbb.cccc')).toEqual(['2', '2']);
    expect(await refused('mdm-state', mdmChallenge({ sub: 'noncompliant' }))).toEqual(['2', '2']);
    expect(audit.at(-1)).toMatchObject({
      action: 'scep_pkcsreq_mdm',
      outcome: 'denied',
      details: { mdm_status: 'device_state_failed' },
    });
    expect(await mdmCounters()).toEqual({
      mdm_success: 1,
      mdm_expired: 1,
      mdm_not_yet_valid: 1,
      mdm_wrong_audience: 1,
      mdm_claim_mismatch: 1,
      mdm_signature_invalid: 1,
      mdm_unknown_version: 1,
      mdm_malformed: 1,
      mdm_device_state_failed: 1,
    });
  });

  it('issue 21 (MDM): a challenge replayed on another replica is refused (replay), and a device over its rate is rate_limited', async () => {
    const challenge = mdmChallenge({ sub: 'device-replay' });
    const device = new ScepRequester(dir, 'mdm-first');
    const first = device.pkiMessage({
      messageType: '19',
      envelope: device.envelope(device.csr(challenge), raPem),
    });
    const issued = certRep(await post(first, 'managed', db));
    expect(issued.pkiStatus).toBe('0');
    // RFC 8894 3.2.1.1: the same request sent again (its answer was lost) gets the same answer, on
    // either replica: its spent challenge is not a replay.
    const resent = certRep(await post(first, 'managed', replicaB));
    expect([resent.pkiStatus, resent.transactionId]).toEqual(['0', issued.transactionId]);
    expect(openedCertificate(resent.content, device, 'mdm-resent')).toBe(
      openedCertificate(issued.content, device, 'mdm-first'),
    );
    const replayed = certRep(await post(mdmRequest('mdm-replayed', challenge), 'managed', replicaB));
    expect([replayed.pkiStatus, replayed.failInfo]).toEqual(['2', '2']);
    expect(audit.at(-1)).toMatchObject({ details: { mdm_status: 'replay' } });
    // rate_limit_per_minute 3 per device (sub), counted across replicas, all in one minute.
    const minute = new Date();
    const statuses: (string | undefined)[] = [];
    for (const [i, executor] of [db, replicaB, db, replicaB].entries())
      statuses.push(
        certRep(
          await post(
            mdmRequest(`mdm-rate-${i}`, mdmChallenge({ sub: 'device-busy' })),
            'managed',
            executor,
            () => minute,
          ),
        ).pkiStatus,
      );
    expect(statuses).toEqual(['0', '0', '0', '2']);
    expect(await mdmCounters()).toMatchObject({ mdm_replay: 1, mdm_rate_limited: 1 });
  });

  it('issue 21 (MDM, review finding 6): the cn and dns claims name every name: with dns, a SAN of another type is claim_mismatch (dns: [] allows no SAN); with cn, a second CN is', async () => {
    const pinned = await createProfile('managed-names', {
      challenge_password_hash: null,
      mdm_enabled: true,
      mdm_audience: AUDIENCE,
      mdm_trust_pem: readFileSync(path('mdm.crt'), 'utf8'),
      rate_limit_per_minute: 100,
    });
    /** A PKCSReq whose CSR has the subject lines (openssl's `1.CN=` form for a second CN) and SAN given. */
    const named = (name: string, subject: string[], san: string | undefined, challenge: string) => {
      const requester = new ScepRequester(dir, name);
      const config = path(`${name}-names.cnf`);
      writeFileSync(
        config,
        [
          '[req]',
          'distinguished_name=dn',
          'attributes=attrs',
          'prompt=no',
          ...(san ? ['req_extensions=ext'] : []),
          '[dn]',
          ...subject,
          '[attrs]',
          `challengePassword=${challenge}`,
          ...(san ? ['[ext]', `subjectAltName=${san}`] : []),
        ].join('\n') + '\n',
      );
      const csrDer = execFileSync('openssl', [
        'req',
        '-new',
        '-key',
        requester.keyPath,
        '-config',
        config,
        '-outform',
        'DER',
      ]);
      return requester.pkiMessage({ messageType: '19', envelope: requester.envelope(csrDer, raPem) });
    };
    const answer = async (message: Buffer) => {
      const rep = certRep(await post(message, 'managed-names'));
      return [rep.pkiStatus, rep.failInfo, (audit.at(-1)?.details as Record<string, unknown>)?.mdm_status];
    };
    const claims = (sub: string, cn: string, dns?: string[]) =>
      mdmChallenge({ sub, cn, ...(dns ? { dns } : {}) });
    expect(
      await answer(
        named(
          'mdm-names-ok',
          ['CN=mdm-names-ok'],
          'DNS:ok.example.test',
          claims('names-1', 'mdm-names-ok', ['ok.example.test']),
        ),
      ),
    ).toEqual(['0', undefined, 'success']);
    const refused = ['2', '2', 'claim_mismatch'];
    expect(
      await answer(
        named(
          'mdm-names-ip',
          ['CN=mdm-names-ip'],
          'DNS:ip.example.test,IP:10.0.0.9',
          claims('names-2', 'mdm-names-ip', ['ip.example.test']),
        ),
      ),
    ).toEqual(refused);
    expect(
      await answer(
        named(
          'mdm-names-mail',
          ['CN=mdm-names-mail'],
          'DNS:mail.example.test,email:ceo@corp.example',
          claims('names-3', 'mdm-names-mail', ['mail.example.test']),
        ),
      ),
    ).toEqual(refused);
    expect(
      await answer(
        named(
          'mdm-names-none',
          ['CN=mdm-names-none'],
          'IP:10.0.0.10',
          claims('names-4', 'mdm-names-none', []),
        ),
      ),
    ).toEqual(refused);
    expect(
      await answer(
        named(
          'mdm-names-cn',
          ['1.CN=mdm-names-cn', '2.CN=vpn.corp.example'],
          undefined,
          claims('names-5', 'mdm-names-cn'),
        ),
      ),
    ).toEqual(refused);
    // Without a dns claim the SANs are the CSR policy's to judge, as documented.
    expect(
      await answer(
        named(
          'mdm-names-free',
          ['CN=mdm-names-free'],
          'DNS:free.example.test,IP:10.0.0.11',
          claims('names-6', 'mdm-names-free'),
        ),
      ),
    ).toEqual(['0', undefined, 'success']);
    const counters = (await new ScepProfileStore(db).counters()).get(pinned.id);
    expect([counters?.get('mdm_success'), counters?.get('mdm_claim_mismatch')]).toEqual([2, 4]);
  });

  it('RFC 8894 3.2.1.1 (review finding 7): two requests racing under one transactionID on an approval profile: one is PENDING, the other FAILURE badRequest with its approval withdrawn', async () => {
    const held = await createProfile('held-race', { approval_required: true });
    const opened: string[] = [];
    const withdrawn: { approvalId: string; principal: string; reason: string }[] = [];
    let bothAsked!: () => void;
    const asked = new Promise<void>((resolve) => (bothAsked = resolve));
    const approvals: ScepServerDeps['approvals'] = {
      // Each request reads no transaction, then both open their approval before either records it.
      request: async () => {
        const approvalId = `race-approval-${opened.length + 1}`;
        opened.push(approvalId);
        if (opened.length === 2) bothAsked();
        await asked;
        return { approvalId };
      },
      outcome: async (approvalId) => ({
        approval_id: approvalId,
        state: 'pending',
        certificate_pem: null,
        chain_pem: null,
        alternate_chains_pem: [],
        issuer_id: null,
        serial_hex: null,
        certificate_id: null,
        reason: null,
      }),
      withdraw: async (approvalId, principal, reason) => {
        withdrawn.push({ approvalId, principal, reason });
      },
    };
    const racing = server(db, undefined, { approvals });
    const transactionId = `race-${randomBytes(6).toString('hex')}`;
    const messages = ['race-a', 'race-b'].map((name) => {
      const requester = new ScepRequester(dir, name);
      return requester.pkiMessage({
        messageType: '19',
        transactionId,
        envelope: requester.envelope(requester.csr(CHALLENGE), raPem),
      });
    });
    const answers = await Promise.all(
      messages.map((body) =>
        racing.handle({ method: 'POST', path: '/scep/held-race', query: 'operation=PKIOperation', body }),
      ),
    );
    const reps = answers.map(certRep);
    expect(reps.map((rep) => rep.pkiStatus).sort()).toEqual(['2', '3']);
    expect(reps.find((rep) => rep.pkiStatus === '2')?.failInfo).toBe('2');
    const row = await new ScepTransactionStore(db).get(held.id, transactionId);
    expect(row).toMatchObject({ status: 'pending' });
    expect(opened).toHaveLength(2);
    expect(withdrawn).toEqual([
      {
        approvalId: opened.find((id) => id !== row!.approval_id),
        principal: expect.stringMatching(/^scep:[0-9a-f]{32}$/),
        reason: expect.stringContaining('transactionID'),
      },
    ]);
    expect(withdrawn[0].principal).not.toBe(row!.principal);
    // The loser's resend is refused as well; the winner's is a poll of its approval.
    const [loser, winner] = reps[0].pkiStatus === '2' ? messages : [...messages].reverse();
    const resent = certRep(
      await racing.handle({
        method: 'POST',
        path: '/scep/held-race',
        query: 'operation=PKIOperation',
        body: loser,
      }),
    );
    expect([resent.pkiStatus, resent.failInfo]).toEqual(['2', '2']);
    const polled = certRep(
      await racing.handle({
        method: 'POST',
        path: '/scep/held-race',
        query: 'operation=PKIOperation',
        body: winner,
      }),
    );
    expect(polled.pkiStatus).toBe('3');
  });

  /** The DER of a certificate's issuer and subject Names (IssuerAndSubject, RFC 8894 3.3.3). */
  const issuerAndSubject = (certPath: string): Buffer => {
    const der = execFileSync('openssl', ['x509', '-in', certPath, '-outform', 'DER']);
    const tbs = ((asn1js.fromBER(der).result as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence)
      .valueBlock.value;
    const at = tbs[0].idBlock.tagClass === 3 ? 1 : 0;
    return sequence(
      Buffer.from(tbs[at + 2].valueBeforeDecodeView),
      Buffer.from(tbs[at + 4].valueBeforeDecodeView),
    );
  };

  it('RFC 8894 3.3.3: GetCertInitial answers the certificate of its transaction to the same signer, badCertId otherwise', async () => {
    const requester = new ScepRequester(dir, 'device-poll');
    expect(certRep(await post(pkcsReq(requester))).pkiStatus).toBe('0');
    const poll = requester.pkiMessage({
      messageType: '20',
      envelope: requester.envelope(issuerAndSubject(requester.certPath), raPem),
    });
    const answered = certRep(await post(poll));
    expect(answered.pkiStatus).toBe('0');
    writeFileSync(path('poll-env.der'), answered.content);
    openssl([
      'cms',
      '-decrypt',
      '-inform',
      'DER',
      '-in',
      path('poll-env.der'),
      '-inkey',
      requester.keyPath,
      '-recip',
      requester.certPath,
      '-binary',
      '-out',
      path('poll.p7'),
    ]);
    expect(openssl(['pkcs7', '-inform', 'DER', '-in', path('poll.p7'), '-print_certs', '-noout'])).toContain(
      'CN = device-poll',
    );
    // RFC 8894 3.3.3: the IssuerAndSubject names the request's subject; another is badCertId, and
    // an envelope that holds none badRequest.
    const other = new ScepRequester(dir, 'device-poll-other');
    const otherSubject = certRep(
      await post(
        requester.pkiMessage({
          messageType: '20',
          envelope: requester.envelope(issuerAndSubject(other.certPath), raPem),
        }),
      ),
    );
    expect([otherSubject.pkiStatus, otherSubject.failInfo]).toEqual(['2', '4']);
    const noSubject = certRep(
      await post(
        requester.pkiMessage({ messageType: '20', envelope: requester.envelope(Buffer.from([5, 0]), raPem) }),
      ),
    );
    expect([noSubject.pkiStatus, noSubject.failInfo]).toEqual(['2', '2']);
    const stranger = new ScepRequester(dir, 'device-poll-unknown');
    const unknown = certRep(
      await post(
        stranger.pkiMessage({
          messageType: '20',
          envelope: stranger.envelope(issuerAndSubject(stranger.certPath), raPem),
        }),
      ),
    );
    expect([unknown.pkiStatus, unknown.failInfo]).toEqual(['2', '4']);
  });

  /** The certificate a CertRep SUCCESS envelopes to `requester` (openssl cms -decrypt), as PEM. */
  const openedCertificate = (content: Buffer, requester: ScepRequester, name: string): string => {
    writeFileSync(path(`${name}-env.der`), content);
    openssl(
      ['cms', '-decrypt', '-inform', 'DER', '-in', path(`${name}-env.der`), '-binary'].concat([
        '-inkey',
        requester.keyPath,
        '-recip',
        requester.certPath,
        '-out',
        path(`${name}.p7`),
      ]),
    );
    return openssl(['pkcs7', '-inform', 'DER', '-in', path(`${name}.p7`), '-print_certs']);
  };
  /** The IssuerAndSerialNumber (RFC 5652 10.2.4) of a PEM certificate, from its DER. */
  const issuerAndSerial = (certificatePem: string): Buffer => {
    const der = new X509Certificate(certificatePem).raw;
    const tbs = ((asn1js.fromBER(der).result as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence)
      .valueBlock.value;
    const at = tbs[0].idBlock.tagClass === 3 ? 1 : 0;
    return sequence(
      Buffer.from(tbs[at + 2].valueBeforeDecodeView),
      Buffer.from(tbs[at].valueBeforeDecodeView),
    );
  };

  it('RFC 8894 3.3.4: GetCert answers a certificate this profile issued, by issuer and serial, enveloped to the requester', async () => {
    const device = new ScepRequester(dir, 'device-getcert');
    const enrolled = certRep(await post(pkcsReq(device)));
    expect(enrolled.pkiStatus).toBe('0');
    const issuedPem = openedCertificate(enrolled.content, device, 'getcert-issued');
    // Another requester (a relying party) asks for it by the issuer and serial openssl prints.
    const asker = new ScepRequester(dir, 'getcert-asker');
    const rep = certRep(
      await post(
        asker.pkiMessage({ messageType: '21', envelope: asker.envelope(issuerAndSerial(issuedPem), raPem) }),
      ),
    );
    expect([rep.messageType, rep.pkiStatus, rep.failInfo]).toEqual(['3', '0', undefined]);
    const answered = openedCertificate(rep.content, asker, 'getcert-answer');
    writeFileSync(path('getcert-answer.pem'), answered);
    writeFileSync(path('getcert-issued.pem'), issuedPem);
    const serialOf = (file: string) => openssl(['x509', '-in', path(file), '-noout', '-serial', '-subject']);
    expect(serialOf('getcert-answer.pem')).toBe(serialOf('getcert-issued.pem'));
    expect(serialOf('getcert-answer.pem')).toContain('CN = device-getcert');
  });

  it('RFC 8894 3.3.4: GetCert of a certificate this profile did not issue is FAILURE badCertId', async () => {
    const device = new ScepRequester(dir, 'device-getcert-other');
    expect(certRep(await post(pkcsReq(device))).pkiStatus).toBe('0');
    const asker = new ScepRequester(dir, 'getcert-asker-2');
    const getCert = (certificatePem: string, pathId = '') =>
      post(
        asker.pkiMessage({
          messageType: '21',
          envelope: asker.envelope(issuerAndSerial(certificatePem), raPem),
        }),
        pathId,
      ).then(certRep);
    // A certificate nobody issued here (the asker's own self-signed one).
    const unknown = await getCert(readFileSync(asker.certPath, 'utf8'));
    expect([unknown.pkiStatus, unknown.failInfo]).toEqual(['2', '4']);
    // The same CA's certificate, asked of another profile, which did not issue it.
    const issued = await post(pkcsReq(new ScepRequester(dir, 'device-getcert-legacy')), 'legacy').then(
      certRep,
    );
    expect(issued.pkiStatus).toBe('0');
    const [row] = (
      await db.query<{ certificate_pem: string }>(
        `SELECT certificate_pem FROM scep_transactions WHERE profile_id = $1 ORDER BY created_at DESC LIMIT 1`,
        [legacyProfile.id],
      )
    ).rows;
    const elsewhere = await getCert(row.certificate_pem);
    expect([elsewhere.pkiStatus, elsewhere.failInfo]).toEqual(['2', '4']);
    expect((await getCert(row.certificate_pem, 'legacy')).pkiStatus).toBe('0');
    // Not an IssuerAndSerialNumber at all.
    const malformed = await post(
      asker.pkiMessage({ messageType: '21', envelope: asker.envelope(Buffer.from('not asn.1'), raPem) }),
    ).then(certRep);
    expect([malformed.pkiStatus, malformed.failInfo]).toEqual(['2', '2']);
  });

  it('ADR 0074: GetCert finds a certificate until it expired the retention ago, then answers FAILURE badCertId', async () => {
    const device = new ScepRequester(dir, 'device-getcert-retention');
    const issuedPem = openedCertificate(certRep(await post(pkcsReq(device))).content, device, 'retained');
    const asker = new ScepRequester(dir, 'getcert-asker-retention');
    const getCert = () =>
      post(
        asker.pkiMessage({ messageType: '21', envelope: asker.envelope(issuerAndSerial(issuedPem), raPem) }),
      ).then(certRep);
    const serial = new X509Certificate(issuedPem).serialNumber;
    // The issued certificate's notAfter was stored with it.
    const stored = await db.query<{ not_after: Date; transaction_id: string }>(
      `SELECT not_after, transaction_id FROM scep_issued_certificates
        WHERE profile_id = $1 AND encode(certificate_serial, 'hex') LIKE '%' || lower($2)`,
      [profile.id, serial],
    );
    expect(stored.rows[0].not_after.getTime()).toBe(Date.parse(new X509Certificate(issuedPem).validTo));
    const cutoff = new Date(Date.now() - 90 * 86_400_000);
    await new ScepRetentionStore(db).purge(cutoff);
    expect((await getCert()).pkiStatus).toBe('0');
    await db.query(
      `UPDATE scep_issued_certificates SET not_after = now() - interval '91 days' WHERE transaction_id = $1`,
      [stored.rows[0].transaction_id],
    );
    expect((await new ScepRetentionStore(db).purge(cutoff)).certificates).toBe(1);
    const forgotten = await getCert();
    expect([forgotten.pkiStatus, forgotten.failInfo]).toEqual(['2', '4']);
  });

  it("RFC 8894 3.3.5: GetCRL answers the issuer's CRL in a degenerate SignedData enveloped to the requester", async () => {
    const requester = new ScepRequester(dir, 'device-crl');
    const message = requester.pkiMessage({
      messageType: '22',
      envelope: requester.envelope(issuerAndSubject(path('ra.crt')), raPem),
    });
    const rep = certRep(await post(message));
    expect(rep.pkiStatus).toBe('0');
    writeFileSync(path('crl-env.der'), rep.content);
    openssl([
      'cms',
      '-decrypt',
      '-inform',
      'DER',
      '-in',
      path('crl-env.der'),
      '-inkey',
      requester.keyPath,
      '-recip',
      requester.certPath,
      '-binary',
      '-out',
      path('crl.p7'),
    ]);
    expect(openssl(['pkcs7', '-inform', 'DER', '-in', path('crl.p7'), '-print'])).toContain(
      'serialNumber: 2748',
    );
  });

  it('RFC 8894 3.3.2: a requester whose certificate has no RSA key is FAILURE badRequest for every message type (its answer cannot be enveloped to it)', async () => {
    const requester = new ScepRequester(dir, 'device-ec', 'ec');
    for (const [messageType, content] of [
      ['22', issuerAndSubject(path('ra.crt'))],
      ['19', requester.csr(CHALLENGE)],
    ] as const) {
      const rep = certRep(
        await post(requester.pkiMessage({ messageType, envelope: requester.envelope(content, raPem) })),
      );
      expect([messageType, rep.pkiStatus, rep.failInfo]).toEqual([messageType, '2', '2']);
    }
    expect(audit.at(-1)?.details).toMatchObject({ reason: expect.stringContaining('no RSA key') });
  });

  it('RFC 8894 3.5.2: a signature algorithm hashing with SHA-1 is badAlg on a profile without legacy algorithms, whatever the digest algorithm says', async () => {
    const requester = new ScepRequester(dir, 'device-sha1-signature');
    const message = requester.pkiMessage({
      messageType: '19',
      envelope: requester.envelope(requester.csr(CHALLENGE), raPem),
      signature: { algorithm: '1.2.840.113549.1.1.5', hash: 'sha1' },
    });
    const rep = certRep(await post(message));
    expect([rep.pkiStatus, rep.failInfo]).toEqual(['2', '0']);
    expect(audit.at(-1)?.details).toMatchObject({ reason: expect.stringContaining('sha1') });
  });

  it('RFC 8894 3.2.1.1: the transactionID is echoed in the string type it came in (a UTF8String with "_" is no PrintableString)', async () => {
    const requester = new ScepRequester(dir, 'device-utf8-id');
    const rep = certRep(
      await post(
        requester.pkiMessage({
          messageType: '19',
          envelope: requester.envelope(requester.csr(CHALLENGE), raPem),
          transactionId: 'device_utf8_42',
          transactionIdUtf8: true,
        }),
      ),
    );
    expect([rep.pkiStatus, rep.transactionId, rep.transactionIdTag]).toEqual(['0', 'device_utf8_42', 12]);
  });

  it('RFC 8894 4.1: HEAD serves GetCACaps and GetCACert, never a PKIOperation', async () => {
    const requester = new ScepRequester(dir, 'device-head');
    const message = requester.pkiMessage({
      messageType: '19',
      envelope: requester.envelope(requester.csr(CHALLENGE), raPem),
    });
    const head = await server(db).handle({
      method: 'HEAD',
      path: '/scep',
      query: `operation=PKIOperation&message=${encodeURIComponent(message.toString('base64'))}`,
    });
    expect([head.status, head.headers.Allow]).toEqual([405, 'GET, POST']);
    expect(
      (await server(db).handle({ method: 'HEAD', path: '/scep', query: 'operation=GetCACaps' })).status,
    ).toBe(200);
  });

  it('issue 21 (mTLS): /scep-mtls enrolls a client whose certificate chains to the trust bundle, without a challenge; one from elsewhere is refused', async () => {
    // A client certificate issued by the CA of the profile's trust bundle.
    openssl([
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      path('client.key'),
      '-out',
      path('client.csr'),
      '-subj',
      '/CN=mtls-client',
    ]);
    openssl([
      'x509',
      '-req',
      '-in',
      path('client.csr'),
      '-CA',
      path('ca.crt'),
      '-CAkey',
      path('ca.key'),
      '-set_serial',
      '99',
      '-days',
      '1',
      '-out',
      path('client.crt'),
    ]);
    const trusted = [
      execFileSync('openssl', ['x509', '-in', path('client.crt'), '-outform', 'DER']).toString('base64'),
    ];
    const elsewhere = new ScepRequester(dir, 'mtls-stranger');
    const untrusted = [
      execFileSync('openssl', ['x509', '-in', elsewhere.certPath, '-outform', 'DER']).toString('base64'),
    ];
    const requester = new ScepRequester(dir, 'device-mtls');
    const message = () =>
      requester.pkiMessage({ messageType: '19', envelope: requester.envelope(requester.csr(), raPem) });
    const call = (clientCertificates?: string[]) =>
      server().handle({
        method: 'POST',
        path: '/scep-mtls/mtls',
        query: 'operation=PKIOperation',
        body: message(),
        ...(clientCertificates ? { clientCertificates } : {}),
      });
    expect(certRep(await call(trusted)).pkiStatus).toBe('0');
    expect(certRep(await call(untrusted)).failInfo).toBe('2');
    expect(certRep(await call()).failInfo).toBe('2');
    // The plain path of an mTLS-only profile has no challenge password to accept.
    expect(certRep(await post(message(), 'mtls')).failInfo).toBe('2');
    // The mTLS path of a profile without mTLS does not exist.
    expect(
      (
        await server().handle({
          method: 'POST',
          path: '/scep-mtls',
          query: 'operation=PKIOperation',
          body: message(),
        })
      ).status,
    ).toBe(404);
  });

  it('issue 21 (mTLS): a client certificate whose revocation status is unknown enrolls under soft-fail and is refused (FAILURE badRequest, audited) under hard-fail', async () => {
    // client.crt (previous test) names no CRL distribution point or OCSP responder: unknown.
    const presented = [
      execFileSync('openssl', ['x509', '-in', path('client.crt'), '-outform', 'DER']).toString('base64'),
    ];
    const requester = new ScepRequester(dir, 'device-mtls-unknown');
    const call = (pathId: string) =>
      server().handle({
        method: 'POST',
        path: `/scep-mtls/${pathId}`,
        query: 'operation=PKIOperation',
        body: requester.pkiMessage({
          messageType: '19',
          envelope: requester.envelope(requester.csr(), raPem),
        }),
        clientCertificates: presented,
      });
    expect(certRep(await call('mtls')).pkiStatus).toBe('0');
    expect(certRep(await call('mtls-hard'))).toMatchObject({ pkiStatus: '2', failInfo: '2' });
    expect(audit.at(-1)).toMatchObject({
      outcome: 'denied',
      details: expect.objectContaining({
        reason: expect.stringContaining(
          "client certificate: the client certificate's revocation status is unknown",
        ),
      }),
    });
    const hard = (await new ScepProfileStore(db).byPathId('mtls-hard'))!;
    expect((await new ScepProfileStore(db).counters()).get(hard.id)?.get('scep_auth_failed')).toBe(1);
  });

  it('spec 6.4: every outcome ticked its profile counter', async () => {
    const counters = (await new ScepProfileStore(db).counters()).get(profile.id)!;
    expect(counters.get('scep_pkcsreq')).toBeGreaterThanOrEqual(4);
    // The renewal and its resend, each answered SUCCESS.
    expect(counters.get('scep_renewalreq')).toBe(2);
    // The renewal test's, the GetCert test's and the retention test's before the purge.
    expect(counters.get('scep_getcert')).toBe(3);
    // The wrong challenge password, a RenewalReq signed by a certificate of no CA of ours, one
    // asking for names the certificate being renewed does not hold, and the draft-nourse test's
    // challenge-less PKCSReq signed by a self-signed certificate and its one asking for other names.
    expect(counters.get('scep_auth_failed')).toBe(5);
    expect(counters.get('scep_failure')).toBeGreaterThanOrEqual(5);
    expect(legacyProfile.legacy_algorithms).toBe(true);
  });
});
