import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCsr, IssuerError, parseCertificate, SoftwareKeyProvider } from '@certlane/pki';
import { ScriptIssuerConnector, scriptIssuerConnectorFactory } from './script-issuer-connector';
import { readIssuedCertificate } from '../issuers/issued-answer';
import { OpensslCaScripts, writeOpensslCaScripts } from '@certlane/testing';

const keys = new SoftwareKeyProvider();

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

/** The script issuer against a real openssl CA driven by real shell scripts (ADR 0082). */
describe('ScriptIssuerConnector', () => {
  let dir: string;
  let ca: OpensslCaScripts;

  const connector = (config: {
    issue?: string;
    revoke?: string;
    timeoutSeconds?: number;
    scriptsDir?: string;
  }) =>
    new ScriptIssuerConnector(
      scriptIssuerConnectorFactory.validateConfig({
        issue_command: config.issue ?? ca.command('issue'),
        ...(config.revoke ? { revoke_command: config.revoke } : {}),
        ...(config.timeoutSeconds ? { timeout_seconds: config.timeoutSeconds } : {}),
      }),
      { issuerId: 'iss-script', issuerScriptsDirectory: config.scriptsDir ?? ca.scriptsDir },
    );

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-script-issuer-'));
    ca = writeOpensslCaScripts(dir);
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('issues through the issue command: the leaf for the CSR key, then its chain, the text around them ignored', async () => {
    const csrPem = await csrFor('web.script.test');
    const issued = await connector({}).issue({
      csrPem,
      profile: { validityDays: 7 },
      idempotencyKey: 'job-1',
    });
    const leaf = parseCertificate(issued.certificatePem);
    expect(leaf.issuer.text).toBe('CN=Script CA,O=Script CA Test');
    expect(leaf.decoded.subjectAltNames).toEqual([{ type: 'dns', value: 'web.script.test' }]);
    expect(parseCertificate(issued.chainPem).fingerprintSha256).toBe(
      parseCertificate(ca.caPem).fingerprintSha256,
    );
    expect(issued.serialNumber).toBe(leaf.serialNumber);
    expect(Math.round((leaf.notAfter.getTime() - leaf.notBefore.getTime()) / 86_400_000)).toBe(7);
  });

  it('never hands out a certificate that has expired', async () => {
    const csrPem = await csrFor('late.script.test');
    const issued = await connector({}).issue({ csrPem, profile: { validityDays: 1 }, idempotencyKey: 'k' });
    const spki = parseCertificate(issued.certificatePem).publicKey.spki;
    expect(() =>
      readIssuedCertificate(issued.certificatePem, spki, 'cmd', new Date(Date.now() + 2 * 86_400_000)),
    ).toThrow(/^cmd gave a certificate that expired at /);
  });

  it("gives the command its own environment: the request's values, PATH, and none of the service's settings", async () => {
    process.env.SERVICE_CONFIG_ENCRYPTION_KEY = 'a-secret-the-script-must-not-see-0123456789';
    try {
      await connector({}).issue({
        csrPem: await csrFor('env.script.test'),
        profile: {},
        idempotencyKey: 'job-env',
      });
    } finally {
      delete process.env.SERVICE_CONFIG_ENCRYPTION_KEY;
    }
    const environment = readFileSync(join(ca.caDir, 'last-issue.env'), 'utf8');
    expect(environment).toContain('CERTLANE_OPERATION=issue\n');
    expect(environment).toContain('CERTLANE_ISSUER_ID=iss-script\n');
    expect(environment).toContain('CERTLANE_REQUEST_ID=job-env\n');
    expect(environment).not.toContain('SERVICE_');
    expect(environment).not.toContain('a-secret-the-script-must-not-see');
  });

  it('reports a non-zero exit as the CA refusing, with the last line of standard error as the reason', async () => {
    const error = await failureOf(
      connector({ issue: ca.command('refuse') }).issue({
        csrPem: await csrFor('a.example.org'),
        profile: {},
        idempotencyKey: 'k',
      }),
    );
    expect(error.kind).toBe('rejected');
    expect(error.message).toBe(
      'issuer iss-script: issue_command refused the request (exit 2): policy: names under example.org are not issued here',
    );
  });

  it('reports exit 75 (EX_TEMPFAIL) as the CA unavailable', async () => {
    const error = await failureOf(
      connector({ issue: ca.command('tempfail') }).issue({
        csrPem: await csrFor('t.test'),
        profile: {},
        idempotencyKey: 'k',
      }),
    );
    expect(error.kind).toBe('unavailable');
    expect(error.message).toContain('exit 75');
    expect(error.message).toContain('the upstream CA is in maintenance');
  });

  it('kills the command and what it started at the timeout, and reports the CA unavailable', async () => {
    const error = await failureOf(
      connector({ issue: ca.command('slow'), timeoutSeconds: 1 }).issue({
        csrPem: await csrFor('slow.test'),
        profile: {},
        idempotencyKey: 'k',
      }),
    );
    // Had only the script been killed, its `sleep 300` would hold the output open past this test's timeout.
    expect(error).toEqual(
      new IssuerError('unavailable', 'issuer iss-script: issue_command did not finish within 1 s'),
    );
  });

  it('never hands out a certificate for another key than the CSR', async () => {
    const error = await failureOf(
      connector({ issue: ca.command('wrong-key') }).issue({
        csrPem: await csrFor('k.test'),
        profile: {},
        idempotencyKey: 'k',
      }),
    );
    expect(error.kind).toBe('misconfigured');
    expect(error.message).toMatch(/gave a certificate for another key than the CSR's/);
  });

  it('runs nothing outside the scripts directory', async () => {
    const marker = join(dir, 'ran');
    const outside = join(dir, 'outside.sh');
    writeFileSync(outside, `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    const error = await failureOf(
      connector({ issue: outside }).issue({
        csrPem: await csrFor('o.test'),
        profile: {},
        idempotencyKey: 'k',
      }),
    );
    expect(error.kind).toBe('misconfigured');
    expect(error.message).toContain(`its program must be a file in ${ca.scriptsDir}/`);
    expect(() => readFileSync(marker)).toThrow();
  });

  it('revokes through the revoke command with the serial and reason; without one it cannot revoke', async () => {
    const revoking = connector({ revoke: ca.command('revoke') });
    expect(revoking.capabilities.revoke).toBe(true);
    await revoking.revoke({ serialNumber: '0abc', reason: 'keyCompromise', idempotencyKey: 'r' });
    expect(readFileSync(join(ca.caDir, 'revoked.log'), 'utf8')).toBe('0abc keyCompromise\n');

    const failing = await failureOf(
      connector({ revoke: ca.command('revoke-fail') }).revoke({
        serialNumber: '0def',
        reason: 'superseded',
        idempotencyKey: 'r',
      }),
    );
    expect(failing).toEqual(
      new IssuerError(
        'rejected',
        'issuer iss-script: revoke_command refused the request (exit 3): serial 0def is unknown at the CA',
      ),
    );
    const without = connector({});
    expect(without.capabilities.revoke).toBe(false);
    expect(
      (await failureOf(without.revoke({ serialNumber: '01', reason: 'superseded', idempotencyKey: 'r' })))
        .kind,
    ).toBe('unsupported');
  });

  it('tests that the commands are executable files in the scripts directory, running neither', async () => {
    await expect(connector({ revoke: ca.command('revoke') }).testConnection()).resolves.toMatchObject({
      ok: true,
      message: 'issue_command and revoke_command are executable files',
    });
    writeFileSync(join(ca.scriptsDir, 'not-executable'), '#!/bin/sh\n', { mode: 0o644 });
    await expect(
      connector({ issue: join(ca.scriptsDir, 'not-executable') }).testConnection(),
    ).resolves.toMatchObject({
      ok: false,
      message: expect.stringMatching(/^issue_command: .*not-executable is not executable \(EACCES\)$/),
    });
    await expect(
      connector({ issue: join(ca.scriptsDir, 'missing') }).testConnection(),
    ).resolves.toMatchObject({
      ok: false,
      message: `issue_command: ${join(ca.scriptsDir, 'missing')} does not exist`,
    });
  });

  it('refuses a CSR that does not verify before running anything', async () => {
    const csrPem = await csrFor('bad.test');
    const tampered = csrPem.replace(/[A-Za-z](?=[A-Za-z0-9+/=]*\n-----END)/, (c) => (c === 'A' ? 'B' : 'A'));
    await expect(
      new ScriptIssuerConnector(
        { issueCommand: ca.command('issue'), timeoutSeconds: 5 },
        { issuerId: 'iss-script', issuerScriptsDirectory: ca.scriptsDir },
        () => Promise.reject(new Error('must not run')),
      ).issue({ csrPem: tampered, profile: {}, idempotencyKey: 'k' }),
    ).rejects.toMatchObject({ code: 'csr_invalid' });
  });
});
