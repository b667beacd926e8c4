import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { createPrivateKey, createPublicKey, webcrypto, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { AuditRecord } from '@certlane/contracts';
import { runMigrations } from '@certlane/platform';
import { EstProfileRow, EstProfileStore } from '@certlane/protocol-frontends-data-access';
import {
  CertificateProfileRules,
  hashEstPassword,
  scryptOnThreadpool,
} from '@certlane/protocol-frontends-domain';
import { createServiceSchemaDatabase, ServiceSchemaDatabase } from '@certlane/testing';
import { Client } from 'pg';
import { csrWithDnsNames } from '../testing/csr-with-dns-names';
import { EstHttpResponse, EstServer, EstServerDeps } from './est-server';
import { EstKekAdmin } from './est-kek-admin';
import { EstKekBox } from './est-kek-box';
import {
  keyIdentifierOf,
  OID_ASYMMETRIC_DECRYPT_KEY_ID,
  OID_DECRYPT_KEY_ID,
  OID_SIGNED_DATA,
} from './est-server-keygen';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const PASSWORD = 'est-server-password-42';
const kekBox = new EstKekBox('est-server-int-spec-config-encryption-key');

const openssl = (args: string[]): string =>
  execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

/**
 * The EST server core (RFC 7030 over HTTP Basic; ADR 0058) on real Postgres, with CSRs made by
 * `openssl req` and answers read by `openssl pkcs7 -print_certs` (the RFC 7030 appendix client),
 * an in-process CA as the issuer, and two stores on two connections standing for two replicas.
 */
describe('EST server (Basic)', () => {
  let database: ServiceSchemaDatabase;
  let replicaA: Client;
  let replicaB: Client;
  let profile: EstProfileRow;
  let caCert: x509.X509Certificate;
  let caKeys: webcrypto.CryptoKeyPair;
  const audit: AuditRecord[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'est-server-'));
  const path = (name: string) => join(dir, name);
  let serial = 100;
  /** The certificate profile the EST profile names in a test; none by default. */
  let certificateProfile: CertificateProfileRules | null = null;
  /** The approvals dependency in a test (requires_approval); none by default. */
  let approval: EstServerDeps['approval'];
  /** What each issue call was asked. */
  const issueCalls: Parameters<EstServerDeps['issue']>[0][] = [];

  const server = (executor: Client, now?: () => Date, extra: Partial<EstServerDeps> = {}) =>
    new EstServer({
      executor,
      ...(now ? { now } : {}),
      audit: async (records, tick) => {
        await new EstProfileStore(executor).tick(tick.profileId, tick.outcome);
        audit.push(...records);
      },
      ...(approval ? { approval } : {}),
      issue: async (input) => {
        issueCalls.push(input);
        const { csrPem } = input;
        const csr = new x509.Pkcs10CertificateRequest(csrPem);
        const cert = await x509.X509CertificateGenerator.create({
          serialNumber: (serial++).toString(16).padStart(4, '0'),
          subject: csr.subject,
          issuer: caCert.subject,
          notBefore: new Date(Date.now() - 60_000),
          notAfter: new Date(Date.now() + 86_400_000),
          signingAlgorithm: ALG,
          publicKey: csr.publicKey,
          signingKey: caKeys.privateKey,
        });
        return { certificatePem: cert.toString('pem') };
      },
      caCertificates: async () => [caCert.toString('pem')],
      certificateProfile: async () => certificateProfile,
      keygenSigner: async () => ({
        certificateDer: new Uint8Array(new X509Certificate(readFileSync(path('signer.pem'))).raw),
        key: createPrivateKey(readFileSync(path('signer.key'))),
      }),
      keyEncryptionKeys: kekBox,
      ...extra,
    });
  const basic = (user: string, password: string) =>
    `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const AUTH = () => basic('router', PASSWORD);

  function csr(name: string): { pem: string; der: Buffer } {
    openssl([
      'req',
      '-new',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      path(`${name}.key`),
      '-out',
      path(`${name}.csr`),
      '-subj',
      `/CN=${name}.example`,
    ]);
    const der = execFileSync('openssl', ['req', '-in', path(`${name}.csr`), '-outform', 'DER']);
    return { pem: readFileSync(path(`${name}.csr`), 'utf8'), der };
  }

  /** What openssl reads from a certs-only answer: the certificates' subjects. */
  function printCerts(response: EstHttpResponse): string[] {
    writeFileSync(path('answer.b64'), response.body!);
    openssl(['base64', '-d', '-in', path('answer.b64'), '-out', path('answer.p7')]);
    const printed = openssl(['pkcs7', '-inform', 'DER', '-in', path('answer.p7'), '-print_certs', '-noout']);
    return printed.match(/subject=.*/g) ?? [];
  }

  const counters = async () =>
    (await new EstProfileStore(replicaA).counters()).get(profile.id) ?? new Map<string, number>();

  beforeAll(async () => {
    database = await createServiceSchemaDatabase('estserver', 'protocol-frontends', runMigrations);
    openssl(
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'].concat(
        ['-subj', '/CN=est.example.test', '-keyout', path('signer.key'), '-out', path('signer.pem')],
      ),
    );
    replicaA = database.pg;
    replicaB = await database.connect();
    caKeys = (await webcrypto.subtle.generateKey(ALG, false, [
      'sign',
      'verify',
    ])) as unknown as webcrypto.CryptoKeyPair;
    caCert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: '01',
      name: 'CN=EST Test Issuing CA',
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + 86_400_000),
      signingAlgorithm: ALG,
      keys: caKeys as unknown as Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[0]['keys'],
      extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
    });
    profile = (await new EstProfileStore(replicaA).create('routers', {
      certificate_profile_id: null,
      issuer_id: null,
      auth_methods: ['basic'],
      basic_username: 'router',
      basic_password_hash: hashEstPassword(PASSWORD),
      trust_bundle_path: null,
      trust_bundle_pem: null,
      trust_loaded_at: null,
      serverkeygen_enabled: false,
      serverkeygen_unencrypted_allowed: false,
      channel_binding_required: false,
      client_revocation_unknown: 'soft-fail',
      rate_limit_per_minute: 8,
      owner: null,
      team: null,
    }))!;
  }, 60_000);

  afterAll(() => database?.drop());

  it('RFC 7030 4.1.3: cacerts answers the CA certificates as base64 certs-only PKCS#7, without authentication', async () => {
    const response = await server(replicaA).handle({
      method: 'GET',
      path: '/.well-known/est/routers/cacerts',
    });
    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({
      'Content-Type': 'application/pkcs7-mime; smime-type=certs-only',
      'Content-Transfer-Encoding': 'base64',
    });
    expect(printCerts(response)).toEqual(['subject=CN = EST Test Issuing CA']);
    expect((await server(replicaA).handle({ method: 'GET', path: '/.well-known/est/cacerts' })).status).toBe(
      404,
    );
  });

  it('RFC 7030 3.2.3: a first request without credentials gets 401 with a Basic challenge; the retry enrolls', async () => {
    const { pem } = csr('first');
    const first = await server(replicaA).handle({
      method: 'POST',
      path: '/.well-known/est/routers/simpleenroll',
      body: pem,
    });
    expect(first.status).toBe(401);
    expect(first.headers['WWW-Authenticate']).toBe('Basic realm="certlane EST routers", charset="UTF-8"');
    const retry = await server(replicaA).handle({
      method: 'POST',
      path: '/.well-known/est/routers/simpleenroll',
      body: pem,
      authorization: AUTH(),
    });
    expect(retry.status).toBe(200);
    expect(retry.headers['Content-Type']).toBe('application/pkcs7-mime; smime-type=certs-only');
    expect(printCerts(retry)).toEqual(['subject=CN = first.example']);
    expect((await counters()).get('est_simple_enroll_success')).toBe(1);
    expect(audit.at(-1)).toMatchObject({
      action: 'est_simple_enroll_success',
      actor_id: 'basic:router',
      outcome: 'success',
    });
    expect(audit.at(-2)).toMatchObject({
      action: 'est_simple_enroll',
      actor_id: 'basic:router',
      outcome: 'success',
    });
  });

  it('RFC 8951 3: simpleenroll takes base64 DER in CRLF lines', async () => {
    const { der } = csr('crlf');
    const body = (der.toString('base64').match(/.{1,64}/g) ?? []).join('\r\n') + '\r\n';
    const response = await server(replicaB).handle({
      method: 'POST',
      path: '/.well-known/est/routers/simpleenroll',
      body,
      authorization: AUTH(),
    });
    expect(response.status).toBe(200);
    expect(printCerts(response)).toEqual(['subject=CN = crlf.example']);
    expect((await counters()).get('est_simple_enroll_success')).toBe(2);
  });

  it('RFC 7030 4.2.2: simplereenroll over Basic has no certificate being renewed: 403, est_simple_reenroll_failed', async () => {
    const response = await server(replicaB).handle({
      method: 'POST',
      path: '/.well-known/est/routers/simplereenroll',
      body: csr('renewed').pem,
      authorization: AUTH(),
    });
    expect([response.status, response.body]).toEqual([
      403,
      expect.stringContaining('/.well-known/est-mtls/routers/'),
    ]);
    expect((await counters()).get('est_simple_reenroll_failed')).toBe(1);
  });

  it('RFC 7030 3.2.3: a wrong password is 401, est_auth_failed_basic, counted', async () => {
    // A rate window of its own: a failed attempt counts in the profile's window (ADR 0058 amendment).
    const laterMinute = new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 12 * 60_000);
    const response = await server(replicaA, () => laterMinute).handle({
      method: 'POST',
      path: '/.well-known/est/routers/simpleenroll',
      body: csr('wrongpw').pem,
      authorization: basic('router', 'not-the-password'),
    });
    expect(response.status).toBe(401);
    expect(response.headers['WWW-Authenticate']).toMatch(/^Basic realm=/);
    expect((await counters()).get('est_auth_failed_basic')).toBe(1);
    expect(audit.at(-1)).toMatchObject({ action: 'est_auth_failed_basic', outcome: 'denied' });
  });

  it('RFC 7617 4, spec 7 (review finding 2): failed Basic attempts count in the rate window before the KDF runs; past rate_limit_per_minute they are 429 with Retry-After and run no KDF, whatever the username', async () => {
    const guarded = (await new EstProfileStore(replicaA).create('guarded', {
      ...profile,
      rate_limit_per_minute: 3,
    }))!;
    const minute = new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 7 * 60_000);
    let kdfRuns = 0;
    const passwordKdf: EstServerDeps['passwordKdf'] = (...args) => {
      kdfRuns++;
      return scryptOnThreadpool(...args);
    };
    const { pem } = csr('guarded');
    const attempt = (executor: Client, authorization: string, seconds: number) =>
      server(executor, () => new Date(minute.getTime() + seconds * 1000), { passwordKdf }).handle({
        method: 'POST',
        path: '/.well-known/est/guarded/simpleenroll',
        body: pem,
        authorization,
      });
    const statuses: number[] = [];
    // The right username, a wrong one, another wrong one: each one KDF, each counted, on either replica.
    statuses.push((await attempt(replicaA, basic('router', 'guess-1'), 10)).status);
    statuses.push((await attempt(replicaB, basic('nobody', 'guess-2'), 11)).status);
    statuses.push((await attempt(replicaA, basic('someone-else', 'guess-3'), 12)).status);
    expect(statuses).toEqual([401, 401, 401]);
    expect(kdfRuns).toBe(3);
    const limited = await attempt(replicaB, basic('router', 'guess-4'), 30);
    expect([limited.status, limited.headers['Retry-After']]).toEqual([429, '30']);
    expect(audit.at(-1)).toMatchObject({
      action: 'est_rate_limited',
      outcome: 'denied',
      resource_id: guarded.id,
    });
    // The right password as well, until the window ends: the credential is what is guessed.
    expect((await attempt(replicaA, AUTH(), 45)).status).toBe(429);
    expect(kdfRuns).toBe(3);
    const next = await attempt(replicaA, AUTH(), 61);
    expect(next.status).toBe(200);
    expect(kdfRuns).toBe(4);
    const ticks = (await new EstProfileStore(replicaA).counters()).get(guarded.id);
    expect([ticks?.get('est_auth_failed_basic'), ticks?.get('est_rate_limited')]).toEqual([3, 2]);
  });

  it('review finding 2: while 20 Basic requests check their passwords, the event loop stays free and cacerts answers at once', async () => {
    await new EstProfileStore(replicaA).create('busy', { ...profile, rate_limit_per_minute: 1000 });
    const busy = server(replicaA);
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const guesses = Array.from({ length: 20 }, (_, i) =>
      busy.handle({
        method: 'GET',
        path: '/.well-known/est/busy/csrattrs',
        authorization: basic('router', `guess-${i}`),
      }),
    );
    const started = performance.now();
    const cacerts = await busy.handle({ method: 'GET', path: '/.well-known/est/busy/cacerts' });
    const cacertsMs = performance.now() - started;
    const answers = await Promise.all(guesses);
    delay.disable();
    expect(cacerts.status).toBe(200);
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(401));
    // A synchronous scrypt blocked the loop about 40 ms per request, 800 ms for these twenty.
    expect(cacertsMs).toBeLessThan(150);
    expect(delay.max / 1e6).toBeLessThan(200);
  });

  it('RFC 7030 4.2.1: malformed base64 is 400 and est_simple_enroll_failed', async () => {
    const response = await server(replicaA).handle({
      method: 'POST',
      path: '/.well-known/est/routers/simpleenroll',
      body: 'MIIC!!not base64!!',
      authorization: AUTH(),
    });
    expect(response.status).toBe(400);
    expect((await counters()).get('est_simple_enroll_failed')).toBe(1);
    // Spec 6.1: the legacy bare code alongside the typed one, same outcome, no counter of its own.
    expect(audit.slice(-2)).toEqual([
      expect.objectContaining({ action: 'est_simple_enroll', outcome: 'failure' }),
      expect.objectContaining({ action: 'est_simple_enroll_failed', outcome: 'failure' }),
    ]);
    expect((await counters()).has('est_simple_enroll')).toBe(false);
  });

  it('RFC 7030 4.2.1: a CSR whose signature is not by its own key is 400', async () => {
    const { der } = csr('tampered');
    const other = csr('other');
    // The first request's CertificationRequestInfo with the other request's signature.
    const forged = Buffer.from(der);
    other.der.copy(forged, forged.length - 256, other.der.length - 256);
    const response = await server(replicaA).handle({
      method: 'POST',
      path: '/.well-known/est/routers/simpleenroll',
      body: forged.toString('base64'),
      authorization: AUTH(),
    });
    expect(response.status).toBe(400);
    expect(response.body).toContain('signature');
    expect((await counters()).get('est_simple_enroll_failed')).toBe(2);
  });

  it('RFC 2985 5.4.2: a CSR with two extensionRequest attributes is 400 (the policy would read one, the issuer the other); a wildcard hidden in the second is never issued', async () => {
    csr('two-requests');
    const der = await csrWithDnsNames(path('two-requests.key'), 'two-requests.example', [
      ['two-requests.example'],
      ['*.corp.example'],
    ]);
    // A rate window of its own: the other requests of this spec share the routers profile's.
    const laterMinute = new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 10 * 60_000);
    const response = await server(replicaA, () => laterMinute).handle({
      method: 'POST',
      path: '/.well-known/est/routers/simpleenroll',
      body: der.toString('base64'),
      authorization: AUTH(),
    });
    expect(response.status).toBe(400);
    expect(response.body).toBe(
      'the CSR is ambiguous: the request carries attribute 1.2.840.113549.1.9.14 more than once\n',
    );
  });

  it('a CSR against the policy (RSA 1024, no name) is 400 and est_csr_policy_violation', async () => {
    openssl([
      'req',
      '-new',
      '-newkey',
      'rsa:1024',
      '-nodes',
      '-keyout',
      path('weak.key'),
      '-out',
      path('weak.csr'),
      '-subj',
      '/CN=weak.example',
    ]);
    const weak = await server(replicaA).handle({
      method: 'POST',
      path: '/.well-known/est/routers/simpleenroll',
      body: readFileSync(path('weak.csr'), 'utf8'),
      authorization: AUTH(),
    });
    expect([weak.status, weak.body]).toEqual([400, expect.stringContaining('at least 2048 bits')]);
    openssl([
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      path('anon.key'),
      '-out',
      path('anon.csr'),
      '-subj',
      '/O=Nobody',
    ]);
    const anonymous = await server(replicaA).handle({
      method: 'POST',
      path: '/.well-known/est/routers/simpleenroll',
      body: readFileSync(path('anon.csr'), 'utf8'),
      authorization: AUTH(),
    });
    expect([anonymous.status, anonymous.body]).toEqual([400, expect.stringContaining('names nothing')]);
    expect((await counters()).get('est_csr_policy_violation')).toBe(2);
    expect(audit.at(-1)).toMatchObject({ action: 'est_csr_policy_violation', outcome: 'failure' });
  });

  it('RFC 7030 4.4: serverkeygen is 404 when the profile disables it', async () => {
    const response = await server(replicaA).handle({
      method: 'POST',
      path: '/.well-known/est/routers/serverkeygen',
      body: csr('skg').pem,
      authorization: AUTH(),
    });
    expect(response.status).toBe(404);
  });

  /** An RSA CSR (Node's key, written for openssl) naming its own key for the encrypted answer, or another key id. */
  async function keyIdCsr(name: string, keyId?: Buffer): Promise<string> {
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
    const spki = new Uint8Array(await webcrypto.subtle.exportKey('spki', keys.publicKey));
    const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
    writeFileSync(
      path(`${name}.key`),
      createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({ format: 'pem', type: 'pkcs8' }),
    );
    const request = await x509.Pkcs10CertificateRequestGenerator.create({
      name: `CN=${name}.example`,
      keys,
      signingAlgorithm: algorithm,
      attributes: [
        new x509.Attribute(OID_ASYMMETRIC_DECRYPT_KEY_ID, [
          new asn1js.OctetString({ valueHex: keyId ?? keyIdentifierOf(spki) }).toBER(false),
        ]),
      ],
    });
    return request.toString('pem');
  }
  const keygenParts = (response: EstHttpResponse) => {
    const boundary = /boundary=(.+)$/.exec(response.headers['Content-Type'])![1];
    return response
      .body!.split(`--${boundary}`)
      .slice(1, -1)
      .map((part) => {
        const [head, content] = part.split('\r\n\r\n');
        return { type: /Content-Type: ([^\r\n]+)/.exec(head)![1], der: Buffer.from(content, 'base64') };
      });
  };
  const issuedKey = (certsOnly: Buffer) => {
    writeFileSync(path('kg-cert.p7'), certsOnly);
    const pem = openssl(['pkcs7', '-inform', 'DER', '-in', path('kg-cert.p7'), '-print_certs']);
    return createPublicKey(
      new x509.X509Certificate(pem.slice(pem.indexOf('-----BEGIN'))).publicKey.toString('pem'),
    );
  };

  it('RFC 7030 4.4.2: an encrypted key is signed by the server (openssl cms -verify) and enveloped to the named key (openssl cms -decrypt)', async () => {
    const keygen = (await new EstProfileStore(replicaA).create('keygen', {
      ...profile,
      serverkeygen_enabled: true,
      rate_limit_per_minute: 100,
    }))!;
    const request = (body: string) =>
      server(replicaA).handle({
        method: 'POST',
        path: '/.well-known/est/keygen/serverkeygen',
        body,
        authorization: AUTH(),
      });
    const ok = await request(await keyIdCsr('kg'));
    expect(ok.status).toBe(200);
    expect(audit.at(-1)).toMatchObject({
      action: 'est_server_keygen_success',
      outcome: 'success',
      resource_id: keygen.id,
    });
    const [keyPart, certPart] = keygenParts(ok);
    expect(keyPart.type).toBe('application/pkcs7-mime; smime-type=server-generated-key');
    writeFileSync(path('kg.p7m'), keyPart.der);
    expect(openssl(['cms', '-cmsout', '-print', '-inform', 'DER', '-in', path('kg.p7m')])).toMatch(
      /contentType: pkcs7-signedData[\s\S]*aes-256-cbc/,
    );
    openssl([
      'cms',
      '-decrypt',
      '-inform',
      'DER',
      '-in',
      path('kg.p7m'),
      '-inkey',
      path('kg.key'),
      '-binary',
      '-out',
      path('kg.sd'),
    ]);
    const contentInfo = new pkijs.ContentInfo({
      contentType: OID_SIGNED_DATA,
      content: asn1js.fromBER(readFileSync(path('kg.sd'))).result,
    });
    writeFileSync(path('kg.p7s'), Buffer.from(contentInfo.toSchema().toBER(false)));
    openssl([
      'cms',
      '-verify',
      '-inform',
      'DER',
      '-in',
      path('kg.p7s'),
      '-CAfile',
      path('signer.pem'),
      '-purpose',
      'any',
      '-binary',
      '-out',
      path('kg.pkg'),
    ]);
    const keyPackage = asn1js.fromBER(readFileSync(path('kg.pkg'))).result as asn1js.Sequence;
    const generated = Buffer.from(keyPackage.valueBlock.value[0].toBER(false));
    const privateKey = createPrivateKey({ key: generated, format: 'der', type: 'pkcs8' });
    expect(createPublicKey(privateKey).export({ format: 'pem', type: 'spki' })).toBe(
      issuedKey(certPart.der).export({ format: 'pem', type: 'spki' }),
    );
    expect(privateKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(JSON.stringify(audit)).not.toContain(generated.toString('base64').slice(0, 64));
    expect(JSON.stringify(audit)).not.toContain(generated.toString('hex').slice(0, 64));

    // RFC 7030 4.4.1.2: a key the server does not hold ends the request in an error.
    expect((await request(await keyIdCsr('kgother', Buffer.alloc(20, 7)))).status).toBe(400);
    // RFC 7030 4.4.1: no encryption asked for, on a profile that sends keys only encrypted.
    const plain = await request(csr('kgplain').pem);
    expect([plain.status, plain.body]).toEqual([
      400,
      expect.stringMatching(/AsymmetricDecryptKeyIdentifier/),
    ]);
    expect(audit.at(-1)).toMatchObject({ action: 'est_server_keygen_failed', outcome: 'failure' });
    const ticks = (await new EstProfileStore(replicaA).counters()).get(keygen.id);
    expect([ticks?.get('est_server_keygen_success'), ticks?.get('est_server_keygen_failed')]).toEqual([1, 2]);
  });

  it('RFC 7030 4.4.2: without encryption attributes, on a profile that allows it, the key is an application/pkcs8 part of the CSR key kind', async () => {
    await new EstProfileStore(replicaA).create('keygen-plain', {
      ...profile,
      serverkeygen_enabled: true,
      serverkeygen_unencrypted_allowed: true,
      rate_limit_per_minute: 100,
    });
    const ec = openssl(
      ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'].concat([
        '-keyout',
        path('kgec.key'),
        '-subj',
        '/CN=kgec.example',
      ]),
    );
    const response = await server(replicaA).handle({
      method: 'POST',
      path: '/.well-known/est/keygen-plain/serverkeygen',
      body: ec,
      authorization: AUTH(),
    });
    expect(response.status).toBe(200);
    const [keyPart, certPart] = keygenParts(response);
    expect(keyPart.type).toBe('application/pkcs8');
    writeFileSync(path('kgec.p8'), keyPart.der);
    const opened = openssl(['pkey', '-inform', 'DER', '-in', path('kgec.p8'), '-pubout']);
    expect(opened).toBe(issuedKey(certPart.der).export({ format: 'pem', type: 'spki' }));
    expect(createPublicKey(opened).asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    const clientKey = openssl(['pkey', '-in', path('kgec.key'), '-pubout']);
    expect(opened).not.toBe(clientKey);
  });

  it("RFC 7030 4.4.1: serverkeygen ignores the CSR's signature (the server MUST ignore it); simpleenroll refuses the same CSR", async () => {
    await new EstProfileStore(replicaA).create('keygen-unsigned', {
      ...profile,
      serverkeygen_enabled: true,
      serverkeygen_unencrypted_allowed: true,
      rate_limit_per_minute: 100,
    });
    const der = Buffer.from(csr('kgunsigned').der);
    der[der.length - 1] ^= 0xff; // the last byte of the RSA signature
    const body = der.toString('base64');
    const ask = (operation: string) =>
      server(replicaA).handle({
        method: 'POST',
        path: `/.well-known/est/keygen-unsigned/${operation}`,
        body,
        authorization: AUTH(),
      });
    const enrolled = await ask('simpleenroll');
    expect([enrolled.status, enrolled.body]).toEqual([400, 'the CSR signature does not verify\n']);
    const generated = await ask('serverkeygen');
    expect(generated.status).toBe(200);
    const [keyPart, certPart] = keygenParts(generated);
    expect(keyPart.type).toBe('application/pkcs8');
    writeFileSync(path('kgunsigned.p8'), keyPart.der);
    expect(openssl(['pkey', '-inform', 'DER', '-in', path('kgunsigned.p8'), '-pubout'])).toBe(
      issuedKey(certPart.der).export({ format: 'pem', type: 'spki' }),
    );
  });

  it('RFC 7030 4.4.2 (review finding 5): a keygen signer that cannot sign the key package (Ed25519), or none at all, refuses serverkeygen before anything is issued: 500, est_server_keygen_failed', async () => {
    openssl(
      ['req', '-x509', '-newkey', 'ed25519', '-nodes', '-days', '1', '-subj', '/CN=ed.example.test'].concat([
        '-keyout',
        path('ed-signer.key'),
        '-out',
        path('ed-signer.pem'),
      ]),
    );
    const keygen = (await new EstProfileStore(replicaA).create('keygen-ed', {
      ...profile,
      serverkeygen_enabled: true,
      rate_limit_per_minute: 100,
    }))!;
    const issuedBefore = issueCalls.length;
    const request = async (extra: Partial<EstServerDeps>) =>
      server(replicaA, undefined, extra).handle({
        method: 'POST',
        path: '/.well-known/est/keygen-ed/serverkeygen',
        body: await keyIdCsr('kg-ed'),
        authorization: AUTH(),
      });
    const ed25519 = await request({
      keygenSigner: async () => ({
        certificateDer: new Uint8Array(new X509Certificate(readFileSync(path('ed-signer.pem'))).raw),
        key: createPrivateKey(readFileSync(path('ed-signer.key'))),
      }),
    });
    expect([ed25519.status, ed25519.body]).toEqual([500, expect.stringContaining('RSA or EC')]);
    expect(audit.at(-1)).toMatchObject({
      action: 'est_server_keygen_failed',
      outcome: 'failure',
      resource_id: keygen.id,
      details: { reason: expect.stringContaining('ed25519') },
    });
    const unreadable = await request({
      keygenSigner: async () => {
        throw new Error('ENOENT: no such file or directory, open /etc/certlane/tls.key');
      },
    });
    expect(unreadable.status).toBe(500);
    expect(audit.at(-1)).toMatchObject({ action: 'est_server_keygen_failed', outcome: 'failure' });
    expect(issueCalls.length).toBe(issuedBefore);
    const ticks = (await new EstProfileStore(replicaA).counters()).get(keygen.id);
    expect(ticks?.get('est_server_keygen_failed')).toBe(2);
  });

  describe('RFC 7030 4.4.1.1: DecryptKeyIdentifier, a key-encryption key of the profile', () => {
    let symmetric: EstProfileRow;
    let other: EstProfileRow;
    const admin = () =>
      new EstKekAdmin({
        executor: replicaA,
        transaction: (work) => work(replicaA),
        audit: async (_executor, record) => {
          audit.push(record);
        },
        keys: kekBox,
      });
    const request = (body: string) =>
      server(replicaA).handle({
        method: 'POST',
        path: '/.well-known/est/keygen-kek/serverkeygen',
        body,
        authorization: AUTH(),
      });
    /** An EC CSR whose DecryptKeyIdentifier names `keyIdHex` (no openssl req option writes one). */
    async function kekCsr(name: string, keyIdHex: string): Promise<string> {
      const keys = (await webcrypto.subtle.generateKey(ALG, true, [
        'sign',
        'verify',
      ])) as webcrypto.CryptoKeyPair;
      const request = await x509.Pkcs10CertificateRequestGenerator.create({
        name: `CN=${name}.example`,
        keys,
        signingAlgorithm: ALG,
        attributes: [
          new x509.Attribute(OID_DECRYPT_KEY_ID, [
            new asn1js.OctetString({ valueHex: Buffer.from(keyIdHex, 'hex') }).toBER(false),
          ]),
        ],
      });
      return request.toString('pem');
    }
    const failedRefusal = async (body: string, message: RegExp) => {
      const refused = await request(body);
      expect([refused.status, refused.body]).toEqual([400, expect.stringMatching(message)]);
      expect(audit.at(-1)).toMatchObject({
        action: 'est_server_keygen_failed',
        outcome: 'failure',
        resource_id: symmetric.id,
        details: { reason: expect.stringMatching(message) },
      });
    };

    beforeAll(async () => {
      const store = new EstProfileStore(replicaA);
      symmetric = (await store.create('keygen-kek', {
        ...profile,
        serverkeygen_enabled: true,
        rate_limit_per_minute: 100,
      }))!;
      other = (await store.create('keygen-kek-other', { ...profile, serverkeygen_enabled: true }))!;
    });

    it('answers the key signed by the server and enveloped to the key (openssl cms -decrypt -secretkey, then -verify)', async () => {
      const created = await admin().create({ profile_id: symmetric.id, description: 'routers' });
      expect(created).toMatchObject({ profile_id: symmetric.id, status: 'active', description: 'routers' });
      expect(created.id).toMatch(/^[0-9a-f]{32}$/);
      expect(created.secret_key).toMatch(/^[0-9a-f]{64}$/);
      expect(audit.at(-1)).toMatchObject({
        action: 'est_key_encryption_key.created',
        resource_type: 'est_key_encryption_key',
        resource_id: created.id,
      });
      expect(JSON.stringify(audit)).not.toContain(created.secret_key);
      const sealed = await replicaA.query('SELECT key_sealed FROM est_key_encryption_keys WHERE id = $1', [
        created.id,
      ]);
      expect(sealed.rows[0].key_sealed).not.toContain(created.secret_key);
      expect(kekBox.open(created.id, sealed.rows[0].key_sealed).toString('hex')).toBe(created.secret_key);
      const listed = await admin().list({ profile_id: symmetric.id });
      expect(listed.data.map((key) => key.id)).toEqual([created.id]);
      expect(JSON.stringify(listed)).not.toContain(created.secret_key);

      const ok = await request(await kekCsr('kek', created.id));
      expect(ok.status).toBe(200);
      expect(audit.at(-1)).toMatchObject({ action: 'est_server_keygen_success', resource_id: symmetric.id });
      const [keyPart, certPart] = keygenParts(ok);
      expect(keyPart.type).toBe('application/pkcs7-mime; smime-type=server-generated-key');
      writeFileSync(path('kek.p7m'), keyPart.der);
      expect(openssl(['cms', '-cmsout', '-print', '-inform', 'DER', '-in', path('kek.p7m')])).toMatch(
        /kekri[\s\S]*keyIdentifier:[\s\S]*id-aes256-wrap[\s\S]*contentType: pkcs7-signedData[\s\S]*aes-256-cbc/,
      );
      openssl(
        [
          'cms',
          '-decrypt',
          '-inform',
          'DER',
          '-in',
          path('kek.p7m'),
          '-binary',
          '-out',
          path('kek.sd'),
        ].concat(['-secretkey', created.secret_key, '-secretkeyid', created.id]),
      );
      const contentInfo = new pkijs.ContentInfo({
        contentType: OID_SIGNED_DATA,
        content: asn1js.fromBER(readFileSync(path('kek.sd'))).result,
      });
      writeFileSync(path('kek.p7s'), Buffer.from(contentInfo.toSchema().toBER(false)));
      openssl(
        ['cms', '-verify', '-inform', 'DER', '-in', path('kek.p7s'), '-CAfile', path('signer.pem')].concat([
          '-purpose',
          'any',
          '-binary',
          '-out',
          path('kek.pkg'),
        ]),
      );
      const keyPackage = asn1js.fromBER(readFileSync(path('kek.pkg'))).result as asn1js.Sequence;
      const generated = Buffer.from(keyPackage.valueBlock.value[0].toBER(false));
      const privateKey = createPrivateKey({ key: generated, format: 'der', type: 'pkcs8' });
      expect(createPublicKey(privateKey).export({ format: 'pem', type: 'spki' })).toBe(
        issuedKey(certPart.der).export({ format: 'pem', type: 'spki' }),
      );
      expect(privateKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
      // Another key does not open it.
      const wrong = Buffer.from(created.secret_key, 'hex');
      wrong[31] ^= 1;
      expect(() =>
        openssl(
          ['cms', '-decrypt', '-inform', 'DER', '-in', path('kek.p7m'), '-binary'].concat([
            '-secretkey',
            wrong.toString('hex'),
            '-secretkeyid',
            created.id,
          ]),
        ),
      ).toThrow();
    });

    it('RFC 7030 4.4.1.1: a key id the server does not hold ends the request in an error', async () => {
      await failedRefusal(
        await kekCsr('kek-unknown', 'ffeeddccbbaa99887766554433221100'),
        /no key-encryption key ffeeddccbbaa99887766554433221100 on this profile/,
      );
    });

    it('RFC 7030 4.4.1.1: a revoked key ends the request in an error', async () => {
      const created = await admin().create({ profile_id: symmetric.id });
      const revoked = await admin().revoke(created.id);
      expect(revoked).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
      expect(audit.at(-1)).toMatchObject({
        action: 'est_key_encryption_key.revoked',
        resource_id: created.id,
      });
      await expect(admin().revoke(created.id)).rejects.toMatchObject({
        code: 'est_key_encryption_key_not_found',
      });
      await failedRefusal(await kekCsr('kek-revoked', created.id), /is revoked/);
    });

    it("RFC 7030 4.4.1.1: another profile's key ends the request in an error, answered like an unknown one", async () => {
      const created = await admin().create({ profile_id: other.id });
      await failedRefusal(
        await kekCsr('kek-other', created.id),
        /no key-encryption key [0-9a-f]{32} on this profile/,
      );
    });

    it('a key is created only for an existing profile', async () => {
      await expect(
        admin().create({ profile_id: '11111111-2222-4333-8444-555555555555' }),
      ).rejects.toMatchObject({
        code: 'est_profile_not_found',
      });
    });
  });

  it('RFC 7030 4.5.2: csrattrs lists the required attributes openssl can read, unknown names dropped', async () => {
    certificateProfile = {
      allowed_key_algorithms: [],
      allowed_ekus: [],
      required_csr_attributes: ['commonName', 'challengePassword', 'unknownThing'],
    };
    const response = await server(replicaA).handle({
      method: 'GET',
      path: '/.well-known/est/routers/csrattrs',
      authorization: AUTH(),
    });
    expect(response.status).toBe(200);
    expect(response.headers['Content-Type']).toBe('application/csrattrs');
    writeFileSync(path('attrs.b64'), response.body!);
    openssl(['base64', '-d', '-in', path('attrs.b64'), '-out', path('attrs.der')]);
    const parsed = openssl(['asn1parse', '-inform', 'DER', '-in', path('attrs.der')]);
    expect(parsed.match(/:(commonName|challengePassword)/g)).toEqual([':commonName', ':challengePassword']);
    certificateProfile = null;
  });

  describe("the certificate profile's rules and the SAN rules (est_csr_policy_violation)", () => {
    /** An openssl CSR from a config: subject, requested extensions. */
    function configured(name: string, dn: string[], extensions: string[], key = 'ec'): string {
      writeFileSync(
        path(`${name}.cnf`),
        [
          '[req]',
          'prompt=no',
          'distinguished_name=dn',
          'req_extensions=ext',
          '[dn]',
          ...dn,
          '[ext]',
          ...extensions,
        ]
          .join('\n')
          .concat('\n'),
      );
      openssl(
        ['req', '-new', '-config', path(`${name}.cnf`), '-nodes', '-keyout', path(`${name}.key`)]
          .concat(key === 'ec' ? ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'] : ['-newkey', key])
          .concat(['-out', path(`${name}.csr`)]),
      );
      return readFileSync(path(`${name}.csr`), 'utf8');
    }
    let policy: EstProfileRow;
    beforeAll(async () => {
      policy = (await new EstProfileStore(replicaA).create('policy', {
        ...profile,
        rate_limit_per_minute: 1000,
      }))!;
    });
    const violations = async () =>
      (await new EstProfileStore(replicaA).counters()).get(policy.id)?.get('est_csr_policy_violation') ?? 0;
    const enroll = (body: string) =>
      server(replicaA).handle({
        method: 'POST',
        path: '/.well-known/est/policy/simpleenroll',
        body,
        authorization: AUTH(),
      });
    afterEach(() => {
      certificateProfile = null;
    });

    it('enrolls a CSR that meets every rule of the certificate profile', async () => {
      certificateProfile = {
        allowed_key_algorithms: ['ECDSA-P256'],
        allowed_ekus: ['clientAuth'],
        required_csr_attributes: ['CN', 'O', 'clientAuth'],
      };
      const body = configured(
        'meets',
        ['CN=meets.example', 'O=Fleet'],
        ['extendedKeyUsage=clientAuth', 'subjectAltName=DNS:meets.example,IP:192.0.2.9'],
      );
      expect((await enroll(body)).status).toBe(200);
    });

    it.each<[string, CertificateProfileRules | null, () => string, string]>([
      [
        'a key algorithm the certificate profile does not allow',
        { allowed_key_algorithms: ['ECDSA-P384'], allowed_ekus: [], required_csr_attributes: [] },
        () => configured('p256', ['CN=p256.example'], ['subjectAltName=DNS:p256.example']),
        'key algorithm ECDSA-P256 is not allowed',
      ],
      [
        'an EKU the certificate profile does not allow',
        { allowed_key_algorithms: [], allowed_ekus: ['clientAuth'], required_csr_attributes: [] },
        () => configured('eku', ['CN=eku.example'], ['extendedKeyUsage=serverAuth,clientAuth']),
        'extended key usage 1.3.6.1.5.5.7.3.1 is not allowed',
      ],
      [
        'a required attribute missing',
        { allowed_key_algorithms: [], allowed_ekus: [], required_csr_attributes: ['O', 'clientAuth'] },
        () => configured('noorg', ['CN=noorg.example'], ['subjectAltName=DNS:noorg.example']),
        'requires O, clientAuth',
      ],
      [
        'a wildcard DNS SAN',
        null,
        () => configured('wild', ['CN=wild.example'], ['subjectAltName=DNS:*.wild.example']),
        'wildcard SAN *.wild.example',
      ],
      [
        'a DNS SAN that is no host name',
        null,
        () => configured('badhost', ['CN=bad.example'], ['subjectAltName=DNS:bad_host..example']),
        'is not a host name',
      ],
    ])('refuses %s', async (_, rules, body, why) => {
      certificateProfile = rules;
      const before = await violations();
      const response = await enroll(body());
      expect([response.status, response.body]).toEqual([400, expect.stringContaining(why)]);
      expect(await violations()).toBe(before + 1);
    });
  });

  describe("the certificate profile's validity_days and requires_approval", () => {
    let held: EstProfileRow;
    beforeAll(async () => {
      held = (await new EstProfileStore(replicaA).create('held', {
        ...profile,
        serverkeygen_enabled: true,
        serverkeygen_unencrypted_allowed: true,
        rate_limit_per_minute: 1000,
      }))!;
    });
    afterEach(() => {
      certificateProfile = null;
      approval = undefined;
    });
    const rules = (extra: Partial<CertificateProfileRules>): CertificateProfileRules => ({
      allowed_key_algorithms: [],
      allowed_ekus: [],
      required_csr_attributes: [],
      ...extra,
    });
    const post = (operation: string, body: string) =>
      server(replicaA).handle({
        method: 'POST',
        path: `/.well-known/est/held/${operation}`,
        body,
        authorization: AUTH(),
      });
    const heldCounter = async (outcome: string) =>
      (await new EstProfileStore(replicaA).counters()).get(held.id)?.get(outcome) ?? 0;

    it('passes validity_days and must_staple to issuance', async () => {
      certificateProfile = rules({ validity_days: 30, must_staple: true });
      expect((await post('simpleenroll', csr('thirty').pem)).status).toBe(200);
      expect(issueCalls.at(-1)).toMatchObject({ validityDays: 30, mustStaple: true });
      certificateProfile = rules({});
      expect((await post('simpleenroll', csr('default-validity').pem)).status).toBe(200);
      expect(issueCalls.at(-1)).not.toHaveProperty('validityDays');
    });

    it('RFC 7030 4.2.3: pending is 202 with Retry-After and est_enrollment_pending, the same request maps to the same reference key, issued is the certificate; issue is never called', async () => {
      certificateProfile = rules({ requires_approval: true, validity_days: 30 });
      const asked: Parameters<NonNullable<EstServerDeps['approval']>>[0][] = [];
      let state: 'pending' | 'issued' = 'pending';
      const certificatePem = (
        await x509.X509CertificateGenerator.createSelfSigned({
          serialNumber: '0abc',
          name: 'CN=approved.example',
          notBefore: new Date(Date.now() - 60_000),
          notAfter: new Date(Date.now() + 86_400_000),
          signingAlgorithm: ALG,
          keys: caKeys as unknown as Parameters<
            typeof x509.X509CertificateGenerator.createSelfSigned
          >[0]['keys'],
        })
      ).toString('pem');
      approval = async (input) => {
        asked.push(input);
        return {
          approvalId: 'ap-1',
          state,
          certificatePem: state === 'issued' ? certificatePem : null,
          reason: null,
        };
      };
      const calls = issueCalls.length;
      const pendingBefore = await heldCounter('est_enrollment_pending');
      const request = csr('approved');
      const first = await post('simpleenroll', request.pem);
      expect([first.status, first.headers['Retry-After']]).toEqual([202, '60']);
      // Each held answer is its own typed outcome, with the approval (no legacy bare code).
      expect(audit.at(-1)).toEqual({
        action: 'est_enrollment_pending',
        event_category: 'cert_lifecycle',
        actor_id: 'basic:router',
        resource_type: 'est_profile',
        resource_id: held.id,
        outcome: 'success',
        details: { path_id: 'held', operation: 'simpleenroll', approval_id: 'ap-1', retry_after_seconds: 60 },
      });
      expect(audit.at(-2)?.action).not.toBe('est_simple_enroll');
      // The same CSR as base64 DER is the same request.
      expect((await post('simpleenroll', request.der.toString('base64'))).status).toBe(202);
      expect(await heldCounter('est_enrollment_pending')).toBe(pendingBefore + 2);
      expect(asked).toHaveLength(2);
      expect(asked[1].referenceKey).toBe(asked[0].referenceKey);
      expect(asked[0]).toMatchObject({
        principal: 'basic:router',
        validityDays: 30,
        mustStaple: false,
        reference: { est_profile: 'held', operation: 'simpleenroll' },
      });
      state = 'issued';
      const before = await heldCounter('est_simple_enroll_success');
      const issued = await post('simpleenroll', request.pem);
      expect(issued.status).toBe(200);
      expect(printCerts(issued)).toEqual(['subject=CN = approved.example']);
      expect(await heldCounter('est_simple_enroll_success')).toBe(before + 1);
      expect(audit.at(-1)).toMatchObject({
        action: 'est_simple_enroll_success',
        details: expect.objectContaining({ approval_id: 'ap-1', serial_hex: '0abc' }),
      });
      expect(issueCalls.length).toBe(calls);
    });

    it('RFC 7030 4.2.3: rejected is 403 and est_simple_enroll_failed with the approval', async () => {
      certificateProfile = rules({ requires_approval: true });
      approval = async () => ({ approvalId: 'ap-2', state: 'rejected', certificatePem: null, reason: 'no' });
      const before = await heldCounter('est_simple_enroll_failed');
      const answer = await post('simpleenroll', csr('rejected').pem);
      expect([answer.status, answer.body]).toEqual([403, expect.stringContaining('rejected by an approver')]);
      expect(await heldCounter('est_simple_enroll_failed')).toBe(before + 1);
      expect(audit.at(-1)).toMatchObject({ details: expect.objectContaining({ approval_id: 'ap-2' }) });
    });

    it('an approval that cannot be asked (no dependency, or issuance unreachable) is 500 and est_simple_enroll_failed, never issued directly', async () => {
      certificateProfile = rules({ requires_approval: true });
      const calls = issueCalls.length;
      const before = await heldCounter('est_simple_enroll_failed');
      expect((await post('simpleenroll', csr('no-approvals').pem)).status).toBe(500);
      approval = async () => {
        throw new Error('no responders');
      };
      expect((await post('simpleenroll', csr('unreachable').pem)).status).toBe(500);
      expect(await heldCounter('est_simple_enroll_failed')).toBe(before + 2);
      expect(issueCalls.length).toBe(calls);
    });

    it('RFC 7030 4.4: serverkeygen under requires_approval is 400, est_server_keygen_failed, without asking for an approval', async () => {
      certificateProfile = rules({ requires_approval: true });
      let asked = 0;
      approval = async () => {
        asked++;
        return { approvalId: 'ap-3', state: 'pending', certificatePem: null, reason: null };
      };
      const before = await heldCounter('est_server_keygen_failed');
      const answer = await post('serverkeygen', csr('keygen-held').pem);
      expect([answer.status, answer.body]).toEqual([
        400,
        expect.stringContaining('cannot wait for a decision'),
      ]);
      expect(await heldCounter('est_server_keygen_failed')).toBe(before + 1);
      expect(asked).toBe(0);
    });
  });

  it('spec 7: the per-principal rate limit is shared by two replicas: 429 with Retry-After, est_rate_limited', async () => {
    const minute = new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 5 * 60_000);
    const at = (executor: Client, seconds: number) =>
      server(executor, () => new Date(minute.getTime() + seconds * 1000)).handle({
        method: 'GET',
        path: '/.well-known/est/routers/csrattrs',
        authorization: AUTH(),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await at(i % 2 === 0 ? replicaA : replicaB, 10)).status);
    // csrattrs with nothing required answers 204 (RFC 7030 4.5.2).
    expect(statuses).toEqual(Array(8).fill(204));
    const limited = await at(replicaB, 15);
    expect(limited.status).toBe(429);
    expect(limited.headers['Retry-After']).toBe('45');
    expect((await counters()).get('est_rate_limited')).toBe(1);
    // The next minute is a new window.
    expect((await at(replicaA, 61)).status).toBe(204);
  });
});
