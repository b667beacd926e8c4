import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeHost } from '../testing/fake-host';
import { createTestCa, TestCa } from '../testing/test-certificates';
import type { DeploymentMaterial } from '../target-connector';
import { deployFiles, DeploymentEngineOptions, DeploymentPlan, swapJournalPath } from './deploy-engine';
import { FileOps, LEFTOVER_TEMP_AGE_MS, nodeFileOps } from './file-ops';

let ca: TestCa;
let oldMaterial: DeploymentMaterial;
let material: DeploymentMaterial;
let nextMaterial: DeploymentMaterial;
let dir: string;
let certPath: string;
let keyPath: string;
const OLD_CERT = Buffer.from('old certificate bytes\n');
const OLD_KEY = Buffer.from('old key bytes\n');

beforeAll(() => {
  ca = createTestCa();
  oldMaterial = ca.issue();
  material = ca.issue();
  nextMaterial = ca.issue();
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
        // 1: cert's prev copy, 2: key's prev copy, 3: the swap journal, 4: cert, 5: key -> fails.
        renames += 1;
        if (renames === 5)
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

/** Thrown by `CrashingFileOps`: the process died here; nothing after it reaches the disk. */
class Killed extends Error {}

/**
 * File operations that die at the `crashAt`-th change to the disk (create, rename or remove),
 * before making it, and refuse everything after: the disk stays as a killed process left it.
 */
class CrashingFileOps implements FileOps {
  changes = 0;
  private dead = false;
  constructor(private readonly crashAt = Infinity) {}

  private async change<T>(work: () => Promise<T>): Promise<T> {
    if (this.dead) throw new Killed('the process is gone');
    this.changes += 1;
    if (this.changes === this.crashAt) {
      this.dead = true;
      throw new Killed(`killed before change ${this.changes}`);
    }
    return work();
  }
  read(path: string) {
    if (this.dead) return Promise.reject(new Killed('the process is gone'));
    return nodeFileOps.read(path);
  }
  create(path: string, data: Buffer, fileMode: number) {
    return this.change(() => nodeFileOps.create(path, data, fileMode));
  }
  rename(from: string, to: string) {
    return this.change(() => nodeFileOps.rename(from, to));
  }
  remove(path: string) {
    return this.change(() => nodeFileOps.remove(path));
  }
  list(directory: string) {
    if (this.dead) return Promise.reject(new Killed('the process is gone'));
    return nodeFileOps.list(directory);
  }
}

describe('deployFiles killed at any point (ADR 0029 amendment: the swap journal)', () => {
  let chainPath: string;
  beforeEach(() => {
    chainPath = join(dir, 'chain.pem'); // a file the target did not have before
  });

  const planWithChain = (deployed: DeploymentMaterial, overrides: Partial<DeploymentPlan> = {}) =>
    plan({
      files: [
        { path: certPath, data: deployed.certificatePem, mode: 0o644 },
        { path: keyPath, data: deployed.privateKeyPem, mode: 0o600 },
        { path: chainPath, data: deployed.chainPem, mode: 0o644 },
      ],
      ...overrides,
    });

  /** Which deployment the certificate, key and chain on disk come from: all from one, or "mixed". */
  function deployedSet(): string {
    const cert = readFileSync(certPath, 'utf8');
    const key = readFileSync(keyPath, 'utf8');
    const chain = existsSync(chainPath) ? readFileSync(chainPath, 'utf8') : null;
    if (cert === OLD_CERT.toString() && key === OLD_KEY.toString() && chain === null) return 'old';
    for (const [name, deployed] of [
      ['first', material],
      ['second', nextMaterial],
    ] as const) {
      if (cert === deployed.certificatePem && key === deployed.privateKeyPem && chain === deployed.chainPem)
        return name;
    }
    return `mixed (certificate ${cert.slice(0, 40)}..., key ${key.slice(0, 40)}...)`;
  }

  const validateFails = () => {
    const host = new FakeHost();
    host.results.set('nginx', [{ exitCode: 1, stderr: 'test failed' }]);
    return host;
  };

  /** The first deployment is killed at change `crashAt`; the files are then checked as the next deployment leaves them. */
  async function killedThenRolledBack(crashAt: number, first: () => FakeHost): Promise<string> {
    const crashing = new CrashingFileOps(crashAt);
    await deployFiles(planWithChain(material), material, first(), { ...clock(), fileOps: crashing });
    // The next deployment (the agent's re-run, or the next renewal) fails validation and rolls
    // back to what it found: what it found must already be one deployment's set.
    const next = await deployFiles(planWithChain(nextMaterial), nextMaterial, validateFails(), clock());
    expect(next.rolledBack).toBe(true);
    expect(existsSync(swapJournalPath(certPath))).toBe(false);
    return deployedSet();
  }

  function changesOf(first: () => FakeHost): Promise<number> {
    const counting = new CrashingFileOps();
    return deployFiles(planWithChain(material), material, first(), { ...clock(), fileOps: counting }).then(
      () => counting.changes,
    );
  }

  it.each([
    ['a deployment that succeeds', hostServingAfterReload],
    ['a deployment that rolls back (validate fails)', validateFails],
  ])(
    '%s, killed at each of its changes to the disk: certificate, key and chain stay one set',
    async (_, first) => {
      const changes = await changesOf(first);
      rmSync(dir, { recursive: true, force: true });
      expect(changes).toBeGreaterThan(6);
      const seen: string[] = [];
      for (let crashAt = 1; crashAt <= changes + 1; crashAt += 1) {
        dir = mkdtempSync(join(tmpdir(), 'certlane-engine-'));
        certPath = join(dir, 'server.crt');
        keyPath = join(dir, 'server.key');
        chainPath = join(dir, 'chain.pem');
        writeFileSync(certPath, OLD_CERT);
        writeFileSync(keyPath, OLD_KEY);
        const set = await killedThenRolledBack(crashAt, first);
        seen.push(`${crashAt}: ${set}`);
        rmSync(dir, { recursive: true, force: true });
      }
      expect(seen.filter((line) => line.includes('mixed'))).toEqual([]);
      dir = mkdtempSync(join(tmpdir(), 'certlane-engine-'));
    },
  );

  it('a deployment killed again while it recovers the first one still ends with one set', async () => {
    const first = () => hostServingAfterReload();
    // Changes 10-12 rename the three files in, 13 removes the journal: killed after the journal
    // is in place; then killed at each change of the recovery (6) and just after it.
    for (let crashAt = 10; crashAt <= 13; crashAt += 1) {
      for (let recoveryCrashAt = 1; recoveryCrashAt <= 7; recoveryCrashAt += 1) {
        writeFileSync(certPath, OLD_CERT);
        writeFileSync(keyPath, OLD_KEY);
        rmSync(chainPath, { force: true });
        rmSync(swapJournalPath(certPath), { force: true });
        await deployFiles(planWithChain(material), material, first(), {
          ...clock(),
          fileOps: new CrashingFileOps(crashAt),
        });
        await deployFiles(planWithChain(nextMaterial), nextMaterial, first(), {
          ...clock(),
          fileOps: new CrashingFileOps(recoveryCrashAt),
        });
        const next = await deployFiles(planWithChain(nextMaterial), nextMaterial, validateFails(), clock());
        expect(next.rolledBack).toBe(true);
        expect([crashAt, recoveryCrashAt, deployedSet()]).toEqual([crashAt, recoveryCrashAt, 'old']);
      }
    }
  });

  it('the next deployment reports the interrupted one it rolled back, then deploys', async () => {
    await deployFiles(planWithChain(material), material, hostServingAfterReload(), {
      ...clock(),
      // Changes 1-3 the new files, 4-7 the two .certlane-prev copies, 8-9 the journal, 10 the
      // certificate renamed in; killed before 11, the key.
      fileOps: new CrashingFileOps(11),
    });
    expect(readFileSync(certPath, 'utf8')).toBe(material.certificatePem);
    expect(readFileSync(keyPath)).toEqual(OLD_KEY);

    const host = new FakeHost();
    host.served = [nextMaterial.fingerprintSha256];
    const result = await deployFiles(planWithChain(nextMaterial), nextMaterial, host, clock());
    expect(result.ok).toBe(true);
    expect(result.steps.map((s) => [s.step, s.ok])).toEqual([
      ['rollback', true],
      ['write', true],
      ['swap', true],
      ['validate', true],
      ['reload', true],
      ['verify', true],
    ]);
    expect(result.steps[0].detail).toContain('interrupted deployment');
    expect(deployedSet()).toBe('second');
    // The operator's way back is the set before the interrupted deployment, not a mix.
    expect(readFileSync(`${certPath}.certlane-prev`)).toEqual(OLD_CERT);
    expect(readFileSync(`${keyPath}.certlane-prev`)).toEqual(OLD_KEY);
    expect(existsSync(swapJournalPath(certPath))).toBe(false);
  });

  it('the temporary files of a deployment killed before its swap are removed by a deployment 15 minutes later, and only those', async () => {
    // Changes 1-3 create the new certificate, key and chain beside the old; killed before 4.
    await deployFiles(planWithChain(material), material, hostServingAfterReload(), {
      ...clock(),
      fileOps: new CrashingFileOps(4),
    });
    const hidden = () =>
      readdirSync(dir)
        .filter((name) => name.startsWith('.'))
        .sort();
    const left = hidden();
    expect(left).toHaveLength(3);
    // The new key was among them, in a hidden file beside the live one.
    expect(left.map((name) => readFileSync(join(dir, name), 'utf8'))).toContain(material.privateKeyPem);
    const later = Date.now() + LEFTOVER_TEMP_AGE_MS + 60_000;
    // Not the engine's, or too young to be a leftover then (a deployment running now may own it).
    const kept = ['.server.crt.certlane-new-nothex', '.unrelated.certlane-new-0123456789ab'];
    for (const name of kept) writeFileSync(join(dir, name), 'keep');
    const young = '.server.key.certlane-new-0123456789ab';
    writeFileSync(join(dir, young), 'young');
    utimesSync(join(dir, young), new Date(later - 60_000), new Date(later - 60_000));

    const host = new FakeHost();
    host.served = [nextMaterial.fingerprintSha256];
    let now = later;
    const result = await deployFiles(planWithChain(nextMaterial), nextMaterial, host, {
      ...clock(),
      now: () => now,
      sleep: async (ms) => {
        now += ms;
      },
    });
    expect(result.ok).toBe(true);
    expect(hidden()).toEqual([...kept, young].sort());
    expect(host.logs).toContain('removed leftover temporary files');
    expect(deployedSet()).toBe('second');
  });

  it('a journal naming a file outside the target is refused and nothing is touched', async () => {
    const outside = join(dir, 'not-the-target');
    writeFileSync(outside, 'keep me');
    writeFileSync(
      swapJournalPath(certPath),
      JSON.stringify({ certlane_swap_journal: 1, files: [{ path: outside, existed: false }] }),
    );
    const result = await deployFiles(plan(), material, new FakeHost(), clock());
    expect(result).toMatchObject({ ok: false, rolledBack: false });
    expect(result.error).toContain(`lists ${outside}, not a file of this target`);
    expect(readFileSync(outside, 'utf8')).toBe('keep me');
    expectOldFilesBack();
  });

  it('a rename that replaced the file and then failed (the directory fsync) is rolled back too', async () => {
    let failed = false;
    const ops: FileOps = {
      ...nodeFileOps,
      async rename(from, to) {
        await nodeFileOps.rename(from, to);
        if (to === keyPath && !failed && (failed = true))
          throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
      },
    };
    const result = await deployFiles(plan(), material, new FakeHost(), { ...clock(), fileOps: ops });
    expect(result).toMatchObject({
      ok: false,
      rolledBack: true,
      error: 'swap failed: EIO: i/o error, fsync',
    });
    expectOldFilesBack();
    expectNoTemporaryFiles();
  });
});
