import { execFile } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as acme from 'acme-client';
import { AcmeEabKeyCreated } from '@certlane/contracts';
import { freePort, httpsRequest, startTestSystem, TestSystem, adminApiRequest } from '@certlane/testing';
import { Client } from 'pg';
import {
  acmeCertificateOf,
  boundAccountOf,
  certificateSans,
  issuedByNextInChain,
  withWebroot,
} from './testing/client-checks';

const run = promisify(execFile);

/**
 * RFC 6761 6.3: names under `.localhost` are loopback. This machine's resolver knows only
 * `localhost` itself, so node-acme-client's own http-01 pre-check gets this lookup (configuration
 * of its HTTP agent); every other name goes to the system resolver.
 */
const loopbackLookup: LookupFunction = (hostname, options, callback) => {
  if (!hostname.endsWith('.localhost')) return dnsLookup(hostname, options, callback);
  if (options.all) return callback(null, [{ address: '127.0.0.1', family: 4 }]);
  callback(null, '127.0.0.1', 4);
};

/** The settings node-acme-client keeps beside axios's defaults (its `src/axios.js`). */
type AcmeAxiosDefaults = typeof acme.axios.defaults & { acmeSettings: { httpChallengePort: number } };

/**
 * Unmodified ACME client libraries, each a different implementation, driven by small programs:
 * Ruby's acme-client gem (Debian's ruby-acme-client: unixcharles/acme-client over Faraday and
 * Ruby's OpenSSL, driven by `testing/ruby-acme-client/drive.rb`) and npm's acme-client
 * (publishlab/node-acme-client over axios and node:crypto, the most used ACME client for Node,
 * driven from this file). The command-line clients are in `acme-clients.int-spec.ts` and
 * `acme-more-clients.int-spec.ts`. Each library runs as published; only its configuration (the
 * test CA's trust, polling intervals, where its own http-01 pre-check connects) is set here, and
 * the gem's EC keys are chosen by its caller so that its JWK encoding bug does not show (`drive.rb`).
 */
describe('ACME server with real client libraries', () => {
  let system: TestSystem;
  let db: Client;
  let directory: string;
  let eabDirectory: string;
  let http01Port: number;
  let work: string;
  let webroot: string;
  let caFile: string;
  const axiosDefaults = acme.axios.defaults as AcmeAxiosDefaults;
  const saved = {
    httpAgent: axiosDefaults.httpAgent,
    httpsAgent: axiosDefaults.httpsAgent,
    httpChallengePort: axiosDefaults.acmeSettings.httpChallengePort,
  };

  const eabKey = async (): Promise<AcmeEabKeyCreated> => {
    const body = { description: 'library clients', profile_id: 'eab' };
    const answer = await adminApiRequest(system, 'POST', '/api/v1/admin/acme/eab-keys', body);
    expect(answer.status).toBe(201);
    return answer.json() as AcmeEabKeyCreated;
  };

  const boundAccount = (keyId: string) => boundAccountOf(db, keyId);

  const accountRow = async (id: string) => {
    const { rows } = await db.query<{ status: string; contact: string[]; jwk_thumbprint: string }>(
      'SELECT status, contact, jwk_thumbprint FROM protocol_frontends.acme_accounts WHERE id = $1',
      [id],
    );
    return rows[0];
  };

  const acmeCertificate = (pem: string) => acmeCertificateOf(db, pem);

  const sans = certificateSans;
  const issuedByTestCa = issuedByNextInChain;
  const lastSegment = (url: string) => new URL(url).pathname.split('/').pop();
  const challengeFile = (token: string) => join(webroot, '.well-known', 'acme-challenge', token);

  beforeAll(async () => {
    http01Port = await freePort();
    system = await startTestSystem('acmelib', ['api-gateway', 'issuance', 'protocol-frontends'], {
      SERVICE_ACME_HTTP01_PORT: String(http01Port),
    });
    directory = `${system.services['protocol-frontends'].url}/acme/directory`;
    eabDirectory = `${system.services['protocol-frontends'].url}/acme/profile/eab/directory`;
    work = mkdtempSync(join(tmpdir(), 'certlane-acme-libraries-'));
    webroot = join(work, 'webroot');
    mkdirSync(join(webroot, '.well-known', 'acme-challenge'), { recursive: true });
    caFile = join(work, 'ca.pem');
    writeFileSync(caFile, system.ca);
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    const profile = await httpsRequest(`${system.services['api-gateway'].url}/api/v1/admin/acme/profiles`, {
      method: 'POST',
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ id: 'eab', description: 'EAB required', external_account_required: true }),
    });
    expect(profile.status).toBe(201);
    // node-acme-client's configuration, as its README gives it: its axios instance trusts the
    // test CA, and its own http-01 check asks the port the server validates against.
    axiosDefaults.httpsAgent = new HttpsAgent({ ca: system.ca });
    axiosDefaults.httpAgent = new HttpAgent({ lookup: loopbackLookup });
    axiosDefaults.acmeSettings.httpChallengePort = http01Port;
  }, 120_000);

  afterAll(async () => {
    axiosDefaults.httpAgent = saved.httpAgent;
    axiosDefaults.httpsAgent = saved.httpsAgent;
    axiosDefaults.acmeSettings.httpChallengePort = saved.httpChallengePort;
    await db?.end();
    await system?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const whileServed = <T>(body: () => Promise<T>): Promise<T> => withWebroot(webroot, http01Port, body);

  it('Ruby acme-client (gem 2.0.9): the EAB refusal, an account, a two-name certificate with http-01, key rollover, the old key refused, revocation, deactivation and the refusal after it', async () => {
    const key = await eabKey();
    const names = ['rb-test.localhost', 'www.rb-test.localhost'];
    const out = join(work, 'ruby-acme-client.pem');
    const driver = join(__dirname, 'testing', 'ruby-acme-client', 'drive.rb');
    const args = [
      ...['--directory', directory, '--eab-directory', eabDirectory],
      ...['--eab-kid', key.id, '--eab-key', key.hmac_key],
      ...['--ca', caFile, '--webroot', webroot, '--names', names.join(','), '--out', out],
    ];
    const { stdout } = await whileServed(() => run('ruby', [driver, ...args], { timeout: 150_000 })).catch(
      (error: { message: string; stdout?: string }) => {
        throw new Error(`${error.message}\n${error.stdout ?? ''}`);
      },
    );
    const summary = JSON.parse(stdout);
    // 2.0.9 (Debian's) has no external account binding: its account is made where none is needed,
    // and the EAB profile's directory is what refuses it (RFC 8555 7.3.4, externalAccountRequired).
    expect(summary.eab).toMatchObject({
      required: true,
      refused: 'Acme::Client::Error::ExternalAccountRequired',
    });
    expect(summary.account).toMatchObject({ status: 'valid', contact: ['mailto:security@example.com'] });
    const accountId = lastSegment(summary.account.url)!;
    expect(await boundAccount(key.id)).toBe(summary.eab.supported ? accountId : null);
    expect(summary.authorizations).toEqual(
      names.map((domain) => ({ domain, challenge: 'valid', status: 'valid' })),
    );
    // The gem's CSR says version 2 (RFC 2986 4.1 wants 0); read as v1, as Boulder and Pebble do.
    expect(summary.order).toEqual({ ready: 'ready', finalized: 'valid' });

    const pem = readFileSync(out, 'utf8');
    expect(sans(pem)).toEqual(names.map((n) => `DNS:${n}`));
    expect(new X509Certificate(pem).publicKey.asymmetricKeyType).toBe('ec');
    expect(issuedByTestCa(pem)).toBe(true);

    // RFC 8555 7.3.5: the account under a P-384 key, found by it and no longer by the old one; the
    // server's RFC 7638 thumbprint of the new key is the gem's.
    expect(summary.key_change).toEqual({
      status: 'valid',
      jwk_alg: 'ES384',
      thumbprints: [expect.any(String), expect.any(String)],
      reloaded: 'valid',
      old_key: 'Acme::Client::Error::AccountDoesNotExist',
    });
    expect(summary.key_change.thumbprints[0]).not.toBe(summary.key_change.thumbprints[1]);
    expect(await accountRow(accountId)).toEqual({
      status: 'deactivated',
      contact: ['mailto:security@example.com'],
      jwk_thumbprint: summary.key_change.thumbprints[1],
    });

    // RFC 8555 7.6: revoked by the new key with reason 4; a second request is alreadyRevoked.
    expect(summary.revoked).toBe(true);
    expect(await acmeCertificate(pem)).toMatchObject({
      account_id: accountId,
      revocation_reason: 'superseded',
      revoked_at: expect.any(Date),
    });
    expect(summary.revoked_again).toBe('Acme::Client::Error: the certificate is already revoked');

    // RFC 8555 7.3.6: a deactivated account's key authorizes nothing more.
    expect(summary.deactivated).toBe('deactivated');
    expect(summary.after_deactivation).toBe('Acme::Client::Error::Unauthorized: the account is deactivated');
  }, 180_000);

  /** node-acme-client's polling, tightened from its 5-30 s defaults (client options). */
  const polling = { backoffAttempts: 30, backoffMin: 100, backoffMax: 2000 };

  it('npm acme-client (5.4.0): the EAB profile refuses an account without a binding and binds one with externalAccountBinding; auto() obtains a two-name certificate with http-01 through that profile', async () => {
    const key = await eabKey();
    const unbound = new acme.Client({
      directoryUrl: eabDirectory,
      accountKey: await acme.crypto.createPrivateEcdsaKey('P-256'),
      ...polling,
    });
    await expect(unbound.createAccount({ termsOfServiceAgreed: true })).rejects.toThrow(
      'this server requires an external account binding',
    );

    const client = new acme.Client({
      directoryUrl: eabDirectory,
      accountKey: await acme.crypto.createPrivateEcdsaKey('P-256'),
      externalAccountBinding: { kid: key.id, hmacKey: key.hmac_key },
      ...polling,
    });
    const account = await client.createAccount({
      termsOfServiceAgreed: true,
      contact: ['mailto:ops@example.com'],
    });
    expect(account.status).toBe('valid');
    const accountId = lastSegment(client.getAccountUrl());
    expect(await boundAccount(key.id)).toBe(accountId);

    const names = ['np-eab.localhost', 'www.np-eab.localhost'];
    const [, csr] = await acme.crypto.createCsr({ commonName: names[0], altNames: names });
    const served: string[] = [];
    const pem = await whileServed(() =>
      client.auto({
        csr,
        termsOfServiceAgreed: true,
        challengePriority: ['http-01'],
        challengeCreateFn: async (authz, challenge, keyAuthorization) => {
          served.push(`${challenge.type} ${authz.identifier.value}`);
          writeFileSync(challengeFile(challenge.token), keyAuthorization);
        },
        challengeRemoveFn: async (_authz, challenge) => rmSync(challengeFile(challenge.token)),
      }),
    );
    expect(served.sort()).toEqual(names.map((n) => `http-01 ${n}`));
    expect(sans(pem)).toEqual(names.map((n) => `DNS:${n}`));
    expect(issuedByTestCa(pem)).toBe(true);
    expect(await acmeCertificate(pem)).toMatchObject({
      account_id: accountId,
      profile_id: 'eab',
      revoked_at: null,
    });
  }, 180_000);

  it('npm acme-client (5.4.0) step by step: an RSA account, order, http-01, finalize, download; updateAccount; updateAccountKey to P-384 and an order under the new key; the old key refused; revokeCertificate and its repetition refused; deactivation and the refusal after it', async () => {
    const rsaKey = await acme.crypto.createPrivateRsaKey(2048);
    const client = new acme.Client({ directoryUrl: directory, accountKey: rsaKey, ...polling });
    const account = await client.createAccount({
      termsOfServiceAgreed: true,
      contact: ['mailto:ops@example.com'],
    });
    expect(account).toMatchObject({ status: 'valid', contact: ['mailto:ops@example.com'] });
    const accountId = lastSegment(client.getAccountUrl())!;

    /** RFC 7638, as the client computes it for its key authorizations (its `getJwk` order). */
    const thumbprint = (privateKey: Buffer) =>
      createHash('sha256')
        .update(JSON.stringify(acme.crypto.getJwk(privateKey)))
        .digest('base64url');

    const issue = async (names: string[]) => {
      const order = await client.createOrder({ identifiers: names.map((value) => ({ type: 'dns', value })) });
      expect(order.status).toBe('pending');
      const authorizations = await client.getAuthorizations(order);
      await whileServed(async () => {
        for (const authz of authorizations) {
          const challenge = authz.challenges.find((c) => c.type === 'http-01')!;
          writeFileSync(challengeFile(challenge.token), await client.getChallengeKeyAuthorization(challenge));
          // The client's own check that the token is served, then the server's validation.
          await client.verifyChallenge(authz, challenge);
          await client.completeChallenge(challenge);
          expect(await client.waitForValidStatus(challenge)).toMatchObject({ status: 'valid' });
        }
      });
      const [, csr] = await acme.crypto.createCsr({ commonName: names[0], altNames: names });
      const finalized = await client.finalizeOrder(order, csr);
      const pem = await client.getCertificate(finalized);
      expect(sans(pem)).toEqual(names.map((n) => `DNS:${n}`).sort());
      expect(issuedByTestCa(pem)).toBe(true);
      expect(await acmeCertificate(pem)).toMatchObject({ account_id: accountId, revoked_at: null });
      return pem;
    };
    const first = await issue(['np-step.localhost', 'www.np-step.localhost']);

    const updated = await client.updateAccount({ contact: ['mailto:security@example.com'] });
    expect(updated.contact).toEqual(['mailto:security@example.com']);
    expect(await accountRow(accountId)).toMatchObject({
      contact: ['mailto:security@example.com'],
      jwk_thumbprint: thumbprint(rsaKey),
    });

    // RFC 8555 7.3.5: the inner JWS by the new key, the outer by the old.
    const ecKey = await acme.crypto.createPrivateEcdsaKey('P-384');
    expect(await client.updateAccountKey(ecKey)).toMatchObject({ status: 'valid' });
    expect((await accountRow(accountId)).jwk_thumbprint).toBe(thumbprint(ecKey));
    expect(lastSegment(client.getAccountUrl())).toBe(accountId);
    // A fresh name: its http-01 key authorization carries the new key's thumbprint.
    const second = await issue(['np-rolled.localhost']);
    const old = new acme.Client({ directoryUrl: directory, accountKey: rsaKey, ...polling });
    await expect(old.createAccount({ onlyReturnExisting: true })).rejects.toThrow(
      'no account exists for this key',
    );

    // RFC 8555 7.6: by the account (its new key), reason 4; the certificate not named stays valid.
    await client.revokeCertificate(first, { reason: 4 });
    expect(await acmeCertificate(first)).toMatchObject({
      revocation_reason: 'superseded',
      revoked_at: expect.any(Date),
    });
    expect((await acmeCertificate(second))?.revoked_at).toBeNull();
    await expect(client.revokeCertificate(first)).rejects.toThrow('the certificate is already revoked');

    // RFC 8555 7.3.6.
    expect(await client.updateAccount({ status: 'deactivated' })).toMatchObject({ status: 'deactivated' });
    expect((await accountRow(accountId)).status).toBe('deactivated');
    await expect(
      client.createOrder({ identifiers: [{ type: 'dns', value: 'np-step.localhost' }] }),
    ).rejects.toThrow('the account is deactivated');
  }, 240_000);

  it('npm acme-client (5.4.0) with a P-521 account key signs ES512 (RFC 7518 3.4): an account and an order under it', async () => {
    const accountKey = await acme.crypto.createPrivateEcdsaKey('P-521');
    const client = new acme.Client({ directoryUrl: directory, accountKey, ...polling });
    expect(await client.createAccount({ termsOfServiceAgreed: true })).toMatchObject({ status: 'valid' });
    // The account holds that key: RFC 7638's thumbprint of the client's JWK (members in order).
    const jwk = acme.crypto.getJwk(accountKey);
    expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-521' });
    expect((await accountRow(lastSegment(client.getAccountUrl())!)).jwk_thumbprint).toBe(
      createHash('sha256').update(JSON.stringify(jwk)).digest('base64url'),
    );
    const order = await client.createOrder({ identifiers: [{ type: 'dns', value: 'np-p521.localhost' }] });
    expect(order.status).toBe('pending');
  }, 60_000);
});
