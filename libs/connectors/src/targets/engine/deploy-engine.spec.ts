import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeHost } from '../testing/fake-host';
import { createTestCa, TestCa } from '../testing/test-certificates';
import type { DeploymentMaterial } from '../target-connector';
import { deployFiles, DeploymentEngineOptions, DeploymentPlan } from './deploy-engine';
import { FileOps, nodeFileOps } from './file-ops';

let ca: TestCa;
let oldMaterial: DeploymentMaterial;
let material: DeploymentMaterial;
let dir: string;
let certPath: string;
let keyPath: string;
const OLD_CERT = Buffer.from('old certificate bytes\n');
const OLD_KEY = Buffer.from('old key bytes\n');

beforeAll(() => {
  ca = createTestCa();
  oldMaterial = ca.issue();
  material = ca.issue();
});
afterAll(() => ca.cleanup());

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'certlane-engine-'));
  certPath = join(dir, 'server.crt');
  keyPath = join(dir, 'server.key');
  writeFileSync(certPath, OLD_CERT);
  chmodSync(certPath, 0o640);
  writeFileSync(keyPath, OLD_KEY);
  chmodSync(keyPath, 0o400);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;

function plan(overrides: Partial<DeploymentPlan> = {}): DeploymentPlan {
  return {
    files: [
      { path: certPath, data: material.certificatePem + material.chainPem, mode: 0o644 },
      { path: keyPath, data: material.privateKeyPem, mode: 0o600 },
    ],
    validateCommand: 'nginx -t',
    reloadCommand: 'nginx -s reload',
    endpoint: '127.0.0.1:8443',
    serverName: 'localhost',
    ...overrides,
  };
}

/** A fake clock: sleeping advances it. */
function clock(): DeploymentEngineOptions {
  let now = 0;
  return {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
    verifyDeadlineMs: 3_000,
    verifyIntervalMs: 500,
  };
}

/** The new version is served once the reload ran. */
function hostServingAfterReload(): FakeHost {
  const host = new FakeHost();
  host.served = [oldMaterial.fingerprintSha256];
  host.onRun = (argv) => {
    if (argv.includes('reload')) host.served = [material.fingerprintSha256];
  };
  return host;
}

function expectOldFilesBack(): void {
  expect(readFileSync(certPath)).toEqual(OLD_CERT);
  expect(readFileSync(keyPath)).toEqual(OLD_KEY);
  expect(mode(certPath)).toBe(0o640);
  expect(mode(keyPath)).toBe(0o400);
}

function expectNoTemporaryFiles(): void {
  expect(readdirSync(dir).filter((name) => name.startsWith('.'))).toEqual([]);
}

describe('deployFiles', () => {
  it('writes beside, swaps, validates, reloads and verifies, keeping .certlane-prev copies', async () => {
    const host = hostServingAfterReload();
    host.served = [oldMaterial.fingerprintSha256, oldMaterial.fingerprintSha256];
    const result = await deployFiles(plan(), material, host, clock());

    expect(result).toMatchObject({
      ok: true,
      rolledBack: false,
      servedFingerprintSha256: material.fingerprintSha256,
    });
    expect(result.steps.map((s) => [s.step, s.ok])).toEqual([
      ['write', true],
      ['swap', true],
      ['validate', true],
      ['reload', true],
      ['verify', true],
    ]);
    expect(host.commands).toEqual([
      ['nginx', '-t'],
      ['nginx', '-s', 'reload'],
    ]);
    expect(host.servedCalls[0]).toEqual({
      endpoint: '127.0.0.1:8443',
      serverName: 'localhost',
      starttls: undefined,
    });
    expect(readFileSync(certPath, 'utf8')).toBe(material.certificatePem + material.chainPem);
    expect(readFileSync(keyPath, 'utf8')).toBe(material.privateKeyPem);
    expect(mode(certPath)).toBe(0o644);
    expect(mode(keyPath)).toBe(0o600);
    expect(readFileSync(`${certPath}.certlane-prev`)).toEqual(OLD_CERT);
    expect(readFileSync(`${keyPath}.certlane-prev`)).toEqual(OLD_KEY);
    expect(mode(`${keyPath}.certlane-prev`)).toBe(0o400);
    expectNoTemporaryFiles();
  });

  it('retries verification until the reloaded server serves the new leaf', async () => {
    const host = new FakeHost();
    host.served = [
      oldMaterial.fingerprintSha256,
      oldMaterial.fingerprintSha256,
      new Error('ECONNREFUSED'),
      material.fingerprintSha256,
    ];
    const result = await deployFiles(plan(), material, host, clock());
    expect(result.ok).toBe(true);
    // The fourth connection got the new leaf; two more in a row confirmed it.
    expect(host.servedCalls).toHaveLength(6);
    expect(result.steps.at(-1)?.detail).toContain('attempt 4, 3 connections in a row');
  });

  it('does not take one connection to a new worker for done while old workers still answer', async () => {
    const host = new FakeHost();
    host.served = [
      material.fingerprintSha256,
      oldMaterial.fingerprintSha256, // an old worker of a graceful reload
      material.fingerprintSha256,
      material.fingerprintSha256,
      material.fingerprintSha256,
    ];
    const result = await deployFiles(plan(), material, host, clock());
    expect(result.ok).toBe(true);
    expect(host.servedCalls).toHaveLength(5);
    expect(result.steps.at(-1)?.detail).toContain('attempt 2, 3 connections in a row');
  });

  it('validate failing: restores the previous files byte for byte with their modes, no reload', async () => {
    const host = hostServingAfterReload();
    host.results.set('nginx', [{ exitCode: 1, stderr: 'nginx: configuration file test failed' }]);
    const result = await deployFiles(plan(), material, host, clock());

    expect(result).toMatchObject({ ok: false, rolledBack: true });
    expect(result.error).toContain(
      'validate failed: nginx exit code 1: nginx: configuration file test failed',
    );
    expect(result.steps.map((s) => [s.step, s.ok])).toEqual([
      ['write', true],
      ['swap', true],
      ['validate', false],
      ['rollback', true],
    ]);
    expect(host.commands).toEqual([['nginx', '-t']]);
    expectOldFilesBack();
    expectNoTemporaryFiles();
  });

  it('reload failing: restores the files and reloads them again', async () => {
    const host = new FakeHost();
    host.results.set('nginx', [{ exitCode: 0 }, { exitCode: 1, stderr: 'reload failed' }, { exitCode: 0 }]);
    const result = await deployFiles(plan(), material, host, clock());

    expect(result).toMatchObject({ ok: false, rolledBack: true });
    expect(result.steps.map((s) => [s.step, s.ok])).toEqual([
      ['write', true],
      ['swap', true],
      ['validate', true],
      ['reload', false],
      ['rollback', true],
      ['reload', true],
    ]);
    expect(result.steps.at(-1)?.detail).toMatch(/^after rollback/);
    expect(host.commands).toEqual([
      ['nginx', '-t'],
      ['nginx', '-s', 'reload'],
      ['nginx', '-s', 'reload'],
    ]);
    expectOldFilesBack();
  });

  it('a reload that times out counts as failed', async () => {
    const host = new FakeHost();
    host.results.set('systemctl', [{ exitCode: null, timedOut: true }]);
    const result = await deployFiles(
      plan({
        reloadCommand: undefined,
        restartCommand: 'systemctl restart nginx',
        validateCommand: undefined,
      }),
      material,
      host,
      { ...clock(), commandTimeoutMs: 1234 },
    );
    expect(result.ok).toBe(false);
    expect(result.error).toContain('timed out after 1234 ms');
    expectOldFilesBack();
  });

  it('verification never matching: rollback, reload, and the served fingerprint reported', async () => {
    const host = new FakeHost();
    host.served = [oldMaterial.fingerprintSha256];
    const result = await deployFiles(plan(), material, host, clock());

    expect(result).toMatchObject({
      ok: false,
      rolledBack: true,
      servedFingerprintSha256: oldMaterial.fingerprintSha256,
    });
    expect(result.error).toContain(
      `serves ${oldMaterial.fingerprintSha256}, expected ${material.fingerprintSha256}`,
    );
    expect(result.steps.map((s) => s.step)).toEqual([
      'write',
      'swap',
      'validate',
      'reload',
      'verify',
      'rollback',
      'reload',
    ]);
    // 3 s deadline, every 500 ms: 7 attempts.
    expect(host.servedCalls).toHaveLength(7);
    expectOldFilesBack();
  });

  it('verification unreachable: rollback with the connection error', async () => {
    const host = new FakeHost();
    host.served = [new Error('connect ECONNREFUSED 127.0.0.1:8443')];
    const result = await deployFiles(plan(), material, host, clock());
    expect(result.ok).toBe(false);
    expect(result.error).toContain('could not be checked: connect ECONNREFUSED');
    expectOldFilesBack();
  });

  it('without an endpoint the verify step is reported as skipped', async () => {
    const host = new FakeHost();
    const result = await deployFiles(plan({ endpoint: undefined }), material, host, clock());
    expect(result.ok).toBe(true);
    expect(result.steps.at(-1)).toEqual({
      step: 'verify',
      ok: true,
      detail: 'not verified: the target has no endpoint',
    });
  });

  it('a file that did not exist before is removed again by the rollback', async () => {
    const chainPath = join(dir, 'chain.pem');
    const host = new FakeHost();
    host.results.set('nginx', [{ exitCode: 1 }]);
    const files = [...plan().files, { path: chainPath, data: material.chainPem, mode: 0o644 }];
    const result = await deployFiles(plan({ files }), material, host, clock());
    expect(result.rolledBack).toBe(true);
    expect(readdirSync(dir).sort()).toEqual([
      'server.crt',
      'server.crt.certlane-prev',
      'server.key',
      'server.key.certlane-prev',
    ]);
    expectOldFilesBack();
  });

  it('a command with shell metacharacters is refused, not run, and rolled back', async () => {
    const host = new FakeHost();
    const result = await deployFiles(
      plan({ validateCommand: 'nginx -t; rm -rf /' }),
      material,
      host,
      clock(),
    );
    expect(result.ok).toBe(false);
    expect(result.error).toContain('command refused (shell metacharacter)');
    expect(host.commands).toEqual([]);
    expectOldFilesBack();
  });

  it('a swap failing half-way restores the files already swapped and removes the temporary ones', async () => {
    let renames = 0;
    const ops: FileOps = {
      ...nodeFileOps,
      async rename(from, to) {
        // 1: cert's prev copy, 2: cert, 3: key's prev copy, 4: key -> fails.
        renames += 1;
        if (renames === 4)
          throw Object.assign(new Error('EXDEV: cross-device link not permitted'), { code: 'EXDEV' });
        return nodeFileOps.rename(from, to);
      },
    };
    const host = new FakeHost();
    const result = await deployFiles(plan(), material, host, { ...clock(), fileOps: ops });
    expect(result).toMatchObject({ ok: false, rolledBack: true });
    expect(result.steps.map((s) => [s.step, s.ok])).toEqual([
      ['write', true],
      ['swap', false],
      ['rollback', true],
    ]);
    expect(host.commands).toEqual([]);
    expectOldFilesBack();
    expectNoTemporaryFiles();
  });

  it('a write failing leaves everything untouched', async () => {
    let creates = 0;
    const ops: FileOps = {
      ...nodeFileOps,
      async create(path, data, fileMode) {
        creates += 1;
        if (creates === 2)
          throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
        return nodeFileOps.create(path, data, fileMode);
      },
    };
    const result = await deployFiles(plan(), material, new FakeHost(), { ...clock(), fileOps: ops });
    expect(result).toMatchObject({
      ok: false,
      rolledBack: false,
      error: 'write failed: ENOSPC: no space left on device',
    });
    expectOldFilesBack();
    expectNoTemporaryFiles();
  });

  it('a rollback that cannot restore says so (rolledBack false)', async () => {
    let failRestore = false;
    const ops: FileOps = {
      ...nodeFileOps,
      async create(path, data, fileMode) {
        if (failRestore && path.includes('certlane-restore')) throw new Error('EIO: i/o error');
        return nodeFileOps.create(path, data, fileMode);
      },
    };
    const host = new FakeHost();
    host.results.set('nginx', [{ exitCode: 1 }]);
    host.onRun = () => {
      failRestore = true;
    };
    const result = await deployFiles(plan(), material, host, { ...clock(), fileOps: ops });
    expect(result).toMatchObject({ ok: false, rolledBack: false });
    expect(result.steps.at(-1)).toMatchObject({ step: 'rollback', ok: false });
  });

  it('refuses material whose key does not match, or whose fingerprint is not the expected one', async () => {
    const host = new FakeHost();
    const mismatched = { ...material, privateKeyPem: oldMaterial.privateKeyPem };
    const wrongFingerprint = { ...material, fingerprintSha256: oldMaterial.fingerprintSha256 };
    const first = await deployFiles(plan(), mismatched, host, clock());
    const second = await deployFiles(plan(), wrongFingerprint, host, clock());
    expect(first.error).toBe('write failed: the private key does not match the certificate');
    expect(second.error).toBe('write failed: the certificate does not have the expected fingerprint');
    expect(JSON.stringify([first, second, host.logs])).not.toContain('PRIVATE KEY');
    expectOldFilesBack();
    expectNoTemporaryFiles();
  });
});
