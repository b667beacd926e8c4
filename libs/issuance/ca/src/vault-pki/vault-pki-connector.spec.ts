import { readFileSync } from 'node:fs';
import {
  createCsr,
  IssuerError,
  parseCertificate,
  parseCertificates,
  SoftwareKeyProvider,
} from '@certlane/pki';
import { VaultPkiServer } from '@certlane/testing';
import { VaultPkiConnector } from './vault-pki-connector';

const keys = new SoftwareKeyProvider();
const TOKEN = 's.vault-connector-test-token';

async function csrFor(name: string): Promise<string> {
  const { signer } = await keys.generate({ algorithm: 'ECDSA', curve: 'P-256' });
  return (
    await createCsr({ subject: [['CN', name]], signer, subjectAltNames: [{ type: 'dns', value: name }] })
  ).pem;
}

async function failureOf(work: Promise<unknown>): Promise<IssuerError> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(IssuerError);
  return error as IssuerError;
}

/** The vault_pki connector against a local server speaking Vault's PKI API over TLS (ADR 0083). */
describe('VaultPkiConnector', () => {
  let vault: VaultPkiServer;
  let trusted: string[];

  const connector = (
    overrides: Partial<{ token: string; role: string; namespace: string; address: string }> = {},
    ca = trusted,
  ) =>
    new VaultPkiConnector(
      { address: vault.url, mount: 'pki_int', role: 'web', token: TOKEN, namespace: 'team-a', ...overrides },
      { issuerId: 'iss-vault', outboundTls: { ca, rejectUnauthorized: true } },
    );

  beforeAll(async () => {
    vault = await VaultPkiServer.start({
      token: TOKEN,
      namespace: 'team-a',
      mount: 'pki_int',
      roles: {
        web: { allowedDomains: ['example.test'], maxTtlHours: 720 },
        short: { allowedDomains: ['example.test'], maxTtlHours: 24 },
      },
    });
    trusted = [readFileSync(vault.tlsCertPath, 'utf8')];
  });

  afterAll(() => vault.stop());

  beforeEach(() => {
    vault.sealed = false;
  });

  it('signs the CSR with the role: the leaf for its key and validity, then the chain issuer first', async () => {
    const issued = await connector().issue({
      csrPem: await csrFor('www.example.test'),
      profile: { validityDays: 7 },
      idempotencyKey: 'job-1',
    });
    const leaf = parseCertificate(issued.certificatePem);
    expect(leaf.issuer.text).toBe('CN=Vault Test Intermediate');
    expect(Math.round((leaf.notAfter.getTime() - leaf.notBefore.getTime()) / 86_400_000)).toBe(7);
    expect(parseCertificates(issued.chainPem).map((c) => c.subject.text)).toEqual([
      'CN=Vault Test Intermediate',
      'CN=Vault Test Root',
    ]);
    const sent = vault.requests.at(-1)!;
    expect(sent).toMatchObject({
      method: 'POST',
      path: '/v1/pki_int/sign/web',
      headers: { 'x-vault-token': TOKEN, 'x-vault-namespace': 'team-a' },
      body: { ttl: '168h', format: 'pem' },
    });
  });

  it("reports the role's refusal as the CA rejecting the request, with Vault's reason", async () => {
    const failure = await failureOf(
      connector().issue({ csrPem: await csrFor('www.example.org'), profile: {}, idempotencyKey: 'k' }),
    );
    expect(failure).toEqual(
      new IssuerError(
        'rejected',
        'issuer iss-vault (Vault role web): Vault answered 400: subject alternate name www.example.org not allowed by this role',
      ),
    );
    const tooLong = await failureOf(
      connector({ role: 'short' }).issue({
        csrPem: await csrFor('a.example.test'),
        profile: { validityDays: 30 },
        idempotencyKey: 'k',
      }),
    );
    expect(tooLong.kind).toBe('rejected');
    expect(tooLong.message).toContain("ttl 720h exceeds the role's max_ttl of 24h");
    expect(vault.requests.at(-1)?.path).toBe('/v1/pki_int/sign/short');
  });

  it('reports a token without permission as a misconfigured issuer, and never sends it anywhere else', async () => {
    const failure = await failureOf(
      connector({ token: 's.wrong' }).issue({
        csrPem: await csrFor('w.example.test'),
        profile: {},
        idempotencyKey: 'k',
      }),
    );
    expect(failure).toEqual(
      new IssuerError(
        'misconfigured',
        'issuer iss-vault (Vault role web): Vault answered 403: permission denied',
      ),
    );
    expect(failure.message).not.toContain('s.wrong');
  });

  it('reports a sealed Vault, one that cannot be reached and one whose TLS certificate is not trusted as unavailable', async () => {
    vault.sealed = true;
    expect(
      await failureOf(
        connector().issue({ csrPem: await csrFor('s.example.test'), profile: {}, idempotencyKey: 'k' }),
      ),
    ).toEqual(
      new IssuerError(
        'unavailable',
        'issuer iss-vault (Vault role web): Vault answered 503: Vault is sealed',
      ),
    );
    vault.sealed = false;
    const untrusted = await failureOf(
      connector({}, []).issue({ csrPem: await csrFor('t.example.test'), profile: {}, idempotencyKey: 'k' }),
    );
    expect(untrusted.kind).toBe('unavailable');
    expect(untrusted.message).toMatch(/cannot be reached: .*certificate/);
    const closed = await failureOf(
      connector({ address: 'https://127.0.0.1:1' }).issue({
        csrPem: await csrFor('c.example.test'),
        profile: {},
        idempotencyKey: 'k',
      }),
    );
    expect(closed.message).toMatch(
      /^issuer iss-vault \(Vault role web\): Vault at https:\/\/127\.0\.0\.1:1 cannot be reached: .*ECONNREFUSED/,
    );
  });

  it("revokes a serial Vault issued (in Vault's spelling); an unknown serial is Vault refusing", async () => {
    const issued = await connector().issue({
      csrPem: await csrFor('r.example.test'),
      profile: {},
      idempotencyKey: 'k',
    });
    await connector().revoke({
      serialNumber: issued.serialNumber,
      reason: 'keyCompromise',
      idempotencyKey: 'r',
    });
    expect([...vault.revoked.keys()]).toContain((issued.serialNumber.match(/../g) ?? []).join(':'));
    expect(
      (
        await failureOf(
          connector().revoke({ serialNumber: '0badcafe', reason: 'superseded', idempotencyKey: 'r' }),
        )
      ).message,
    ).toBe('issuer iss-vault: Vault answered 400: certificate with serial 0b:ad:ca:fe not found');
  });

  it('hands out the mount chain and tests the token and the mount', async () => {
    expect(parseCertificates((await connector().getCaChain()).chainPem)).toHaveLength(2);
    await expect(connector().testConnection()).resolves.toMatchObject({
      ok: true,
      message:
        'the token is valid (policies: default, pki-sign); mount pki_int has a chain of 2 certificate(s)',
    });
    await expect(connector({ token: 's.nope' }).testConnection()).resolves.toMatchObject({
      ok: false,
      message: 'issuer iss-vault: Vault answered 403: permission denied',
    });
  });
});
