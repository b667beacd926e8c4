import { createPublicKey, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http, { Agent as HttpAgent, ClientRequestArgs } from 'node:http';
import https, { Agent as HttpsAgent } from 'node:https';
import { LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duplex } from 'node:stream';
import { AcmeEabKeyCreated } from '@certlane/contracts';
import {
  eventually,
  freePort,
  httpsRequest,
  startTestSystem,
  TestSystem,
  adminApiRequest,
} from '@certlane/testing';
import { Client } from 'pg';
import {
  acmeCertificateOf,
  boundAccountOf,
  certificateSans,
  issuedByNextInChain,
  withWebroot,
} from './testing/client-checks';

/** A JWK as @root/keypairs makes and takes it (a private key has `d`). */
type Jwk = Record<string, string>;

/** What ACME.js hands a challenge plugin (acme.js `_computeAuths`): the ACME challenge and its answer. */
interface AcmeJsChallenge {
  type: string;
  token: string;
  altname: string;
  keyAuthorization: string;
  challengeUrl: string;
}

interface ChallengePlugin {
  set(args: { challenge: AcmeJsChallenge }): Promise<null>;
  get(args: { challenge: AcmeJsChallenge }): Promise<{ keyAuthorization: string } | null>;
  remove(args: { challenge: AcmeJsChallenge }): Promise<null>;
}

interface AcmeJsAccount {
  status: string;
  contact?: string[];
  /** The account URL, as ACME.js keeps it ("kid": its README's "misnomer"). */
  key: { kid: string };
}

interface AcmeJsCertificateOptions {
  account?: AcmeJsAccount;
  accountKey: Jwk;
  agreeToTerms?: boolean;
  csr: Uint8Array;
  domains: string[];
  challenges: { 'http-01': ChallengePlugin };
}

/** The parts of ACME.js's API (its README's "API Overview") this spec drives. */
interface AcmeJs {
  init(directoryUrl: string): Promise<unknown>;
  accounts: {
    create(options: {
      subscriberEmail: string;
      agreeToTerms: boolean;
      accountKey: Jwk;
      externalAccount?: { id: string; secret: string };
    }): Promise<AcmeJsAccount>;
  };
  certificates: {
    create(options: AcmeJsCertificateOptions): Promise<{
      cert: string;
      chain: string;
      identifiers: { type: string; value: string }[];
    }>;
  };
}

// ACME.js and its companions (@root/keypairs for keys, @root/csr for CSRs, as its README says)
// ship no types; these are the calls this spec makes.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ACME = require('@root/acme') as {
  create(options: {
    maintainerEmail: string;
    packageAgent: string;
    notify: (event: string, details: Record<string, unknown>) => void;
  }): AcmeJs;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Keypairs = require('@root/keypairs') as {
  generate(options: { kty: 'EC'; namedCurve: string } | { kty: 'RSA'; modulusLength: number }): Promise<{
    private: Jwk;
    public: Jwk;
  }>;
  thumbprint(options: { jwk: Jwk }): Promise<string>;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const CSR = require('@root/csr') as {
  csr(options: { jwk: Jwk; domains: string[]; encoding: 'der' }): Promise<Uint8Array>;
  _info(der: Uint8Array): unknown;
};

/**
 * A fresh key of `curve` and @root/csr's CSR for it, one that ACME.js can read back: the library
 * parses the CSR itself before sending it (`CSR._info`), and its parser throws on about one CSR in
 * a hundred of its own making (4 of 300 P-384 and 2 of 300 P-256 keys, measured), with nothing
 * sent to the server.
 */
async function readableCsr(
  curve: 'P-256' | 'P-384',
  domains: string[],
): Promise<{ key: Jwk; csr: Uint8Array }> {
  for (;;) {
    const key = (await Keypairs.generate({ kty: 'EC', namedCurve: curve })).private;
    const csr = await CSR.csr({ jwk: key, domains, encoding: 'der' });
    try {
      CSR._info(csr);
      return { key, csr };
    } catch {
      // The library's own parser failed on this one: another key.
    }
  }
}

/** Names this spec's lookups refused: none but ACME.js's own report home is expected. */
const refusedNames: string[] = [];

/**
 * RFC 6761 6.3: names under `.localhost` are loopback (this machine's resolver knows only
 * `localhost` itself); every other name is refused here, so nothing the library sends leaves
 * this machine.
 */
const loopbackOnly: LookupFunction = (hostname, options, callback) => {
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) {
    if (options.all) return callback(null, [{ address: '127.0.0.1', family: 4 }]);
    return callback(null, '127.0.0.1', 4);
  }
  refusedNames.push(hostname);
  callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
};

/**
 * Node's HTTP agent for ACME.js's own http-01 checks (its dry run and pre-flight fetch
 * `http://<name>/.well-known/acme-challenge/<token>`, port 80 as RFC 8555 8.3 says): port 80 of
 * a `.localhost` name is the port this test's server validates against, as a port forward would
 * make it.
 */
class Http01PortForward extends HttpAgent {
  constructor(private readonly http01Port: number) {
    super({ lookup: loopbackOnly });
  }

  override createConnection(
    options: ClientRequestArgs,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const forwarded = options.host?.endsWith('.localhost') && Number(options.port) === 80;
    return super.createConnection(forwarded ? { ...options, port: this.http01Port } : options, callback);
  }
}

/**
 * Another unmodified ACME client library, a different implementation again: ACME.js (npm
 * `@root/acme` 3.1.0 by AJ ONeal, the ACME core of Greenlock, over its own @root/request on
 * node:http(s), with @root/keypairs for JWS and @root/csr for CSRs), driven in-process through
 * its README's API: ACME.create, init, accounts.create and certificates.create with an http-01
 * plugin. Configuration only, all through Node's global HTTP agents (ACME.js passes @root/request
 * no agent of its own): the HTTPS one trusts the test CA, the HTTP one takes its http-01 checks
 * to the port the server validates against, and both resolve `.localhost` names and refuse every
 * other, which also stops the report of `maintainerEmail` that ACME.js sends home to
 * api.rootprojects.org 3 s after init (maintainers.js). The library has no revocation, no key
 * rollover, no account update or deactivation, and its `externalAccount` option cannot sign
 * (@root/keypairs has no HMAC), so only its refusal is tested; @root/csr 0.8.1 signs P-384 and
 * RSA-3072 CSRs with the wrong hash for the algorithm it names, which the server refuses.
 */
describe('ACME server with a real client library: ACME.js (@root/acme)', () => {
  let system: TestSystem;
  let db: Client;
  let directory: string;
  let eabDirectory: string;
  let http01Port: number;
  let work: string;
  let webroot: string;
  let initialized = false;
  const saved = { http: http.globalAgent, https: https.globalAgent };

  const eabKey = async (): Promise<AcmeEabKeyCreated> => {
    const body = { description: 'ACME.js', profile_id: 'eab' };
    const answer = await adminApiRequest(system, 'POST', '/api/v1/admin/acme/eab-keys', body);
    expect(answer.status).toBe(201);
    return answer.json() as AcmeEabKeyCreated;
  };

  const accountRow = async (id: string) => {
    const { rows } = await db.query<{
      status: string;
      contact: string[];
      jwk_thumbprint: string;
      kty: string;
    }>(
      `SELECT status, contact, jwk_thumbprint, jwk->>'kty' AS kty
         FROM protocol_frontends.acme_accounts WHERE id = $1`,
      [id],
    );
    return rows[0];
  };

  const accountsWithThumbprint = async (thumbprint: string) => {
    const { rows } = await db.query(
      'SELECT id FROM protocol_frontends.acme_accounts WHERE jwk_thumbprint = $1',
      [thumbprint],
    );
    return rows.length;
  };

  /** The statuses of an account's orders, oldest first. */
  const orderStatuses = async (accountId: string) => {
    const { rows } = await db.query<{ status: string }>(
      'SELECT status FROM protocol_frontends.acme_orders WHERE account_id = $1 ORDER BY created_at',
      [accountId],
    );
    return rows.map((row) => row.status);
  };

  const acmeCertificate = (pem: string) => acmeCertificateOf(db, pem);
  const sans = certificateSans;
  const issuedByTestCa = issuedByNextInChain;
  const lastSegment = (url: string) => new URL(url).pathname.split('/').pop()!;
  const challengeFile = (token: string) => join(webroot, '.well-known', 'acme-challenge', token);

  /** Whether a certificate holds the public half of a JWK. */
  const holdsKey = (pem: string, jwk: Jwk) => {
    const spki = (key: ReturnType<typeof createPublicKey>) => key.export({ type: 'spki', format: 'der' });
    return spki(new X509Certificate(pem).publicKey).equals(
      spki(createPublicKey({ key: jwk, format: 'jwk' })),
    );
  };

  /** An ACME.js instance on a directory, with what it notifies collected. */
  const client = async (directoryUrl: string) => {
    const events: [string, Record<string, unknown>][] = [];
    const acme = ACME.create({
      maintainerEmail: 'maintainer@example.com',
      packageAgent: 'certlane-int-spec/0.1.0',
      notify: (event, details) => events.push([event, details]),
    });
    await acme.init(directoryUrl);
    initialized = true;
    return { acme, events };
  };

  /**
   * An http-01 plugin answering from the webroot (ACME.js wants set, get and remove): what it was
   * asked to set, a dry run's made-up tokens (`test-...`) told apart from the server's.
   */
  const webrootPlugin = () => {
    const set: string[] = [];
    const removed: string[] = [];
    const kind = (challenge: AcmeJsChallenge) => (challenge.token.startsWith('test-') ? 'dry run' : 'acme');
    const plugin: ChallengePlugin = {
      set: async ({ challenge }) => {
        set.push(`${kind(challenge)} ${challenge.type} ${challenge.altname}`);
        writeFileSync(challengeFile(challenge.token), challenge.keyAuthorization);
        return null;
      },
      get: async ({ challenge }) => {
        const file = challengeFile(challenge.token);
        return existsSync(file) ? { keyAuthorization: readFileSync(file, 'utf8') } : null;
      },
      remove: async ({ challenge }) => {
        removed.push(`${kind(challenge)} ${challenge.type} ${challenge.altname}`);
        rmSync(challengeFile(challenge.token), { force: true });
        return null;
      },
    };
    return { plugin, set, removed };
  };

  beforeAll(async () => {
    http01Port = await freePort();
    system = await startTestSystem('acmeroot', ['api-gateway', 'issuance', 'protocol-frontends'], {
      SERVICE_ACME_HTTP01_PORT: String(http01Port),
    });
    directory = `${system.services['protocol-frontends'].url}/acme/directory`;
    eabDirectory = `${system.services['protocol-frontends'].url}/acme/profile/eab/directory`;
    work = mkdtempSync(join(tmpdir(), 'certlane-acme-rootacme-'));
    webroot = join(work, 'webroot');
    mkdirSync(join(webroot, '.well-known', 'acme-challenge'), { recursive: true });
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
    http.globalAgent = new Http01PortForward(http01Port);
    https.globalAgent = new HttpsAgent({ ca: system.ca, lookup: loopbackOnly });
  }, 120_000);

  afterAll(async () => {
    // ACME.js's report home is sent 3 s after its first init: refused before the agents go back.
    if (initialized)
      await eventually(() => refusedNames.includes('api.rootprojects.org'), "ACME.js's report home refused");
    expect(new Set(refusedNames)).toEqual(new Set(initialized ? ['api.rootprojects.org'] : []));
    http.globalAgent.destroy();
    https.globalAgent.destroy();
    http.globalAgent = saved.http;
    https.globalAgent = saved.https;
    await db?.end();
    await system?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const whileServed = <T>(body: () => Promise<T>): Promise<T> => withWebroot(webroot, http01Port, body);

  it('ACME.js (@root/acme 3.1.0): an EC account, found again by its key; no order while its own http-01 check finds nothing; its dry run, then a two-name certificate for an RSA key with http-01', async () => {
    const { acme, events } = await client(directory);
    const accountKey = (await Keypairs.generate({ kty: 'EC', namedCurve: 'P-256' })).private;
    const account = await acme.accounts.create({
      subscriberEmail: 'ops@example.com',
      agreeToTerms: true,
      accountKey,
    });
    expect(account).toMatchObject({ status: 'valid', contact: ['mailto:ops@example.com'] });
    const accountId = lastSegment(account.key.kid);
    // The server's RFC 7638 thumbprint of the account key is the library's.
    expect(await accountRow(accountId)).toEqual({
      status: 'valid',
      contact: ['mailto:ops@example.com'],
      jwk_thumbprint: await Keypairs.thumbprint({ jwk: accountKey }),
      kty: 'EC',
    });
    // RFC 8555 7.3.1: the same key gets its account back; the new request's fields are ignored.
    const again = await acme.accounts.create({
      subscriberEmail: 'other@example.com',
      agreeToTerms: true,
      accountKey,
    });
    expect(again.key.kid).toBe(account.key.kid);
    expect((await accountRow(accountId)).contact).toEqual(['mailto:ops@example.com']);

    const names = ['rj-test.localhost', 'www.rj-test.localhost'];
    const certificateKey = (await Keypairs.generate({ kty: 'RSA', modulusLength: 2048 })).private;
    const csr = await CSR.csr({ jwk: certificateKey, domains: names, encoding: 'der' });
    const request = (plugin: ChallengePlugin): AcmeJsCertificateOptions => ({
      account,
      accountKey,
      csr,
      domains: names,
      challenges: { 'http-01': plugin },
    });

    // Nothing answers http-01 yet: the library's dry run fails on its own connection, before an order.
    const unserved = webrootPlugin();
    await expect(acme.certificates.create(request(unserved.plugin))).rejects.toMatchObject({
      code: 'ECONNREFUSED',
      port: http01Port,
    });
    expect(unserved.set).toEqual(names.map((n) => `dry run http-01 ${n}`));
    expect(await orderStatuses(accountId)).toEqual([]);

    const served = webrootPlugin();
    const pems = await whileServed(() => acme.certificates.create(request(served.plugin)));
    // Its dry run's made-up tokens, then the server's, each checked by the library and removed.
    expect(served.set).toEqual([
      ...names.map((n) => `dry run http-01 ${n}`),
      ...names.map((n) => `acme http-01 ${n}`),
    ]);
    await eventually(() => served.removed.length === 4, 'every challenge answer removed');
    expect(served.removed.sort()).toEqual([...served.set].sort());
    const challengeStatuses = events
      .filter(([event]) => event === 'challenge_status')
      .map(([, details]) => `${details.altname} ${details.status}`);
    expect(challengeStatuses.filter((status) => status.endsWith(' valid')).sort()).toEqual(
      names.map((n) => `${n} valid`),
    );
    expect(events.filter(([event]) => event === 'certificate_status').map(([, d]) => d.status)).toEqual([
      'valid',
    ]);

    expect(pems.identifiers).toEqual(names.map((value) => ({ type: 'dns', value })));
    expect(sans(pems.cert)).toEqual(names.map((n) => `DNS:${n}`));
    expect(new X509Certificate(pems.cert).publicKey.asymmetricKeyType).toBe('rsa');
    expect(holdsKey(pems.cert, certificateKey)).toBe(true);
    expect(issuedByTestCa(`${pems.cert}${pems.chain}`)).toBe(true);
    expect(await acmeCertificate(pems.cert)).toMatchObject({
      account_id: accountId,
      profile_id: 'default',
      revoked_at: null,
    });
    expect(await orderStatuses(accountId)).toEqual(['valid']);
  }, 180_000);

  it("ACME.js (@root/acme 3.1.0): an RSA account found by its key alone at certificates.create; @root/csr's P-384 CSR refused as badCSR at finalize, the order left ready; a P-256 certificate on the valid authorization", async () => {
    const { acme, events } = await client(directory);
    const accountKey = (await Keypairs.generate({ kty: 'RSA', modulusLength: 2048 })).private;
    const account = await acme.accounts.create({
      subscriberEmail: 'ops@example.com',
      agreeToTerms: true,
      accountKey,
    });
    const accountId = lastSegment(account.key.kid);
    expect(await accountRow(accountId)).toMatchObject({ status: 'valid', kty: 'RSA' });

    const names = ['rj-key.localhost'];
    // No `account`: the library asks newAccount for the key's account (RFC 8555 7.3.1) and orders with it.
    const request = (csr: Uint8Array, plugin: ChallengePlugin): AcmeJsCertificateOptions => ({
      accountKey,
      agreeToTerms: true,
      csr,
      domains: names,
      challenges: { 'http-01': plugin },
    });

    // @root/csr names ecdsa-with-SHA256 but signs a P-384 key's CSR with SHA-384 (RFC 5758 3.2).
    const p384 = await readableCsr('P-384', names);
    const first = webrootPlugin();
    const refused = await whileServed(async () =>
      acme.certificates.create(request(p384.csr, first.plugin)),
    ).then(
      () => null,
      (error: { urn?: string; message: string }) => error,
    );
    expect(refused).toMatchObject({
      urn: 'urn:ietf:params:acme:error:badCSR',
      detail: "CSR: the signature does not verify with the CSR's public key",
    });
    expect(first.set).toEqual(
      names.map((n) => `dry run http-01 ${n}`).concat(names.map((n) => `acme http-01 ${n}`)),
    );
    expect(events.find(([event]) => event === 'certificate_order')?.[1]).toMatchObject({
      account: { key: { kid: account.key.kid } },
      subject: names[0],
    });
    // RFC 8555 7.4: the order stays ready for another CSR.
    expect(await orderStatuses(accountId)).toEqual(['ready']);

    // A new order finds its authorization valid already: only the dry run's answer is set.
    const p256 = await readableCsr('P-256', names);
    const second = webrootPlugin();
    const pems = await whileServed(async () => acme.certificates.create(request(p256.csr, second.plugin)));
    expect(second.set).toEqual(names.map((n) => `dry run http-01 ${n}`));
    expect(sans(pems.cert)).toEqual(names.map((n) => `DNS:${n}`));
    expect(new X509Certificate(pems.cert).publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(holdsKey(pems.cert, p256.key)).toBe(true);
    expect(issuedByTestCa(`${pems.cert}${pems.chain}`)).toBe(true);
    expect(await acmeCertificate(pems.cert)).toMatchObject({ account_id: accountId, revoked_at: null });
    expect(await orderStatuses(accountId)).toEqual(['ready', 'valid']);
  }, 180_000);

  it('ACME.js (@root/acme 3.1.0): the EAB profile refuses its account without a binding (RFC 8555 7.3.4); its externalAccount option makes none, so nothing is sent and the key stays unbound', async () => {
    const key = await eabKey();
    const { acme } = await client(eabDirectory);
    const accountKey = (await Keypairs.generate({ kty: 'EC', namedCurve: 'P-256' })).private;
    const thumbprint = await Keypairs.thumbprint({ jwk: accountKey });
    // ACME.js reads a problem document as an error only with status 400; account creation
    // reports any other status itself.
    await expect(
      acme.accounts.create({ subscriberEmail: 'ops@example.com', agreeToTerms: true, accountKey }),
    ).rejects.toThrow(
      /^account error: 401 .*externalAccountRequired.*this server requires an external account binding/,
    );
    // Its binding is signed by @root/keypairs' signJws, which knows JWK keys only (no HS256).
    await expect(
      acme.accounts.create({
        subscriberEmail: 'ops@example.com',
        agreeToTerms: true,
        accountKey,
        externalAccount: { id: key.id, secret: key.hmac_key },
      }),
    ).rejects.toThrow(new TypeError("Cannot read properties of undefined (reading 'kty')"));
    expect(await boundAccountOf(db, key.id)).toBeNull();
    expect(await accountsWithThumbprint(thumbprint)).toBe(0);
  }, 60_000);
});
