import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeDeploymentHost } from '../engine/node-deployment-host';
import { targetConnector } from '../registry';
import { createTestCa, TestCa } from '../testing/test-certificates';
import { keytoolEntrySha256 } from '../testing/servers';

// The real keytool (/usr/bin/keytool; .ci/run installs a JRE when missing) and openssl.
describe.each(['PKCS12', 'JKS'])('java_keystore connector with the real keytool (%s)', (storeType) => {
  let ca: TestCa;
  let dir: string;
  const password = 'store-secret-123';
  const host = new NodeDeploymentHost();
  const connector = targetConnector('java_keystore');
  const storePath = () => join(dir, `server.${storeType === 'JKS' ? 'jks' : 'p12'}`);
  const config = () => ({
    store_path: storePath(),
    store_password: password,
    alias: 'tomcat',
    store_type: storeType,
  });
  const list = (alias?: string): string =>
    execFileSync(
      'keytool',
      [
        '-list',
        '-v',
        '-keystore',
        storePath(),
        '-storetype',
        storeType,
        '-storepass',
        password,
        ...(alias ? ['-alias', alias] : []),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    ).toString();
  const sha256Of = keytoolEntrySha256;

  beforeAll(() => {
    ca = createTestCa();
    dir = mkdtempSync(join(tmpdir(), 'certlane-keystore-'));
  });
  afterAll(() => {
    ca.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the store with the key entry, then re-imports a renewal, keeping other entries', async () => {
    const first = ca.issue();
    const created = await connector.deploy(config(), first, host);
    expect(created.error).toBeUndefined();
    expect(statSync(storePath()).mode & 0o777).toBe(0o600);
    const listing = list('tomcat');
    expect(listing).toMatch(/Entry type: PrivateKeyEntry/);
    expect(listing).toMatch(/Certificate chain length: 2/);
    expect(sha256Of(listing)).toBe(first.fingerprintSha256);

    // Another entry in the store survives the re-import.
    execFileSync(
      'keytool',
      [
        '-importcert',
        '-noprompt',
        '-alias',
        'test-ca',
        '-file',
        join(ca.dir, 'ca.crt'),
        '-keystore',
        storePath(),
        '-storetype',
        storeType,
        '-storepass',
        password,
      ],
      { stdio: 'ignore' },
    );

    const renewed = ca.issue();
    const result = await connector.deploy(config(), renewed, host);
    expect(result).toMatchObject({ ok: true, rolledBack: false });
    expect(sha256Of(list('tomcat'))).toBe(renewed.fingerprintSha256);
    expect(list()).toMatch(/test-ca/);
    expect(readFileSync(`${storePath()}.certlane-prev`).length).toBeGreaterThan(0);
    // No temporary file (key PEM, password file, PKCS#12) is left beside the store.
    expect(readdirSync(dir).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('a failing validate command restores the previous store', async () => {
    const before = readFileSync(storePath());
    const result = await connector.deploy({ ...config(), validate_command: 'false' }, ca.issue(), host);
    expect(result).toMatchObject({ ok: false, rolledBack: true });
    expect(readFileSync(storePath())).toEqual(before);
  });

  it('a wrong store password fails before anything is swapped', async () => {
    const before = readFileSync(storePath());
    const result = await connector.deploy(
      { ...config(), store_password: 'not-the-password' },
      ca.issue(),
      host,
    );
    expect(result).toMatchObject({ ok: false, rolledBack: false });
    expect(result.error).toMatch(/^write failed: keytool -importkeystore exit code/);
    expect(JSON.stringify(result)).not.toContain('not-the-password');
    expect(readFileSync(storePath())).toEqual(before);
    expect(readdirSync(dir).filter((name) => name.startsWith('.'))).toEqual([]);
  });
});
