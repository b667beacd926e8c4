import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scanFilesystem } from './filesystem-scan';
import { pseudoFilesystemMounts, readPseudoFilesystemMounts } from './pseudo-filesystems';

/** Paths whose read fails with the given code (as root, chmod 000 stops nothing: the call fails). */
const failing = new Map<string, string>();
const errno = (code: string, path: string) => Object.assign(new Error(`${code}: ${path}`), { code });

/** A self-signed P-256 certificate as PEM at `path` (its key thrown away). */
function writeCertificate(path: string, commonName: string): void {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      '/dev/null',
    ].concat(['-out', path, '-subj', `/CN=${commonName}`, '-days', '1']),
    { stdio: 'ignore' },
  );
}

jest.mock('node:fs/promises', () => {
  const actual = jest.requireActual<typeof import('node:fs/promises')>('node:fs/promises');
  return {
    ...actual,
    readdir: (path: string, ...rest: unknown[]) =>
      failing.has(path)
        ? Promise.reject(errno(failing.get(path)!, path))
        : (actual.readdir as (...args: unknown[]) => unknown)(path, ...rest),
    open: (path: string, ...rest: unknown[]) =>
      failing.has(path)
        ? Promise.reject(errno(failing.get(path)!, path))
        : (actual.open as (...args: unknown[]) => unknown)(path, ...rest),
  };
});

describe('scanFilesystem: what it could not read', () => {
  let root: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'certlane-scan-'));
    writeCertificate(join(root, 'a.pem'), 'a');
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(root, 'sub', 'b.pem'), readFileSync(join(root, 'a.pem')));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  afterEach(() => failing.clear());

  it('reads everything: complete', async () => {
    const scan = await scanFilesystem([root], []);
    expect(scan.findings.map((f) => f.path)).toEqual([join(root, 'a.pem'), join(root, 'sub', 'b.pem')]);
    expect(scan.complete).toBe(true);
  });

  it.each(['EACCES', 'EIO', 'EMFILE'])(
    'is incomplete when a directory below a root fails with %s (its certificates must not be marked gone)',
    async (code) => {
      failing.set(join(root, 'sub'), code);
      const scan = await scanFilesystem([root], []);
      expect(scan.findings.map((f) => f.path)).toEqual([join(root, 'a.pem')]);
      expect(scan.complete).toBe(false);
      expect(scan.unreadable).toEqual([join(root, 'sub')]);
    },
  );

  it('is incomplete when a certificate file cannot be read', async () => {
    failing.set(join(root, 'sub', 'b.pem'), 'EIO');
    const scan = await scanFilesystem([root], []);
    expect(scan.complete).toBe(false);
    expect(scan.unreadable).toEqual([join(root, 'sub', 'b.pem')]);
  });

  it('stays complete when a file or directory vanished during the walk (it is gone indeed)', async () => {
    failing.set(join(root, 'sub'), 'ENOENT');
    failing.set(join(root, 'a.pem'), 'ENOENT');
    const scan = await scanFilesystem([root], []);
    expect(scan.findings).toEqual([]);
    expect(scan.complete).toBe(true);
  });
});

describe('the kernel pseudo file systems a walk does not enter (ADR 0079 amendment)', () => {
  const MOUNTINFO = [
    '22 27 0:21 / /proc rw,relatime - proc proc rw',
    '23 27 0:22 / /sys rw,relatime - sysfs sysfs rw',
    '24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw,size=123k,mode=755',
    '25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw',
    '26 24 0:24 / /dev/pts rw,relatime - devpts devpts rw,mode=600',
    '30 23 0:26 / /sys/fs/cgroup ro,nosuid shared:9 master:1 - cgroup2 cgroup2 rw',
    '31 27 8:1 / /run/secrets rw,relatime - tmpfs tmpfs rw',
    '32 27 0:40 / /host/my\\040proc rw - proc proc rw',
    '33 27 8:1 / / rw,relatime - ext4 /dev/sda1 rw',
    '',
  ].join('\n');

  it('reads the pseudo mounts from mountinfo, optional fields and escaped paths included; tmpfs is read', () => {
    expect([...pseudoFilesystemMounts(MOUNTINFO)].sort()).toEqual([
      '/dev/pts',
      '/host/my proc',
      '/proc',
      '/sys',
      '/sys/fs/cgroup',
    ]);
  });

  it("this machine's /proc and /sys are among them", () => {
    const mounts = readPseudoFilesystemMounts();
    expect(mounts.has('/proc')).toBe(true);
    expect(mounts.has('/sys')).toBe(true);
  });

  it('a walk does not enter them, and stays complete', async () => {
    const root = mkdtempSync(join(tmpdir(), 'certlane-scan-pseudo-'));
    try {
      mkdirSync(join(root, 'proc'));
      mkdirSync(join(root, 'etc'));
      writeCertificate(join(root, 'etc', 'c.pem'), 'c');
      writeFileSync(join(root, 'proc', 'c.pem'), readFileSync(join(root, 'etc', 'c.pem')));
      // A directory below that cannot be read would make the walk incomplete, were it entered.
      failing.set(join(root, 'proc'), 'EACCES');
      const scan = await scanFilesystem([root], [], { pseudoMounts: new Set([join(root, 'proc')]) });
      expect(scan.findings.map((f) => f.path)).toEqual([join(root, 'etc', 'c.pem')]);
      expect(scan.complete).toBe(true);
      // Without the pseudo mount, the same walk enters it and is incomplete.
      const entered = await scanFilesystem([root], [], { pseudoMounts: new Set() });
      expect(entered.complete).toBe(false);
    } finally {
      failing.clear();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('scanFilesystem: findings handed on during the walk (ADR 0079 amendment)', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'certlane-scan-batches-'));
    writeCertificate(join(root, 'c0.pem'), 'c');
    for (let i = 1; i < 5; i++) writeFileSync(join(root, `c${i}.pem`), readFileSync(join(root, 'c0.pem')));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('sends full batches as it goes and keeps only the rest', async () => {
    const sent: string[][] = [];
    const scan = await scanFilesystem([root], [], {
      batches: { size: 2, send: async (findings) => void sent.push(findings.map((f) => f.path)) },
    });
    expect(sent).toEqual([
      [join(root, 'c0.pem'), join(root, 'c1.pem')],
      [join(root, 'c2.pem'), join(root, 'c3.pem')],
    ]);
    expect(scan.findings.map((f) => f.path)).toEqual([join(root, 'c4.pem')]);
    expect(scan.found).toBe(5);
    expect(scan.complete).toBe(true);
  });

  it('ends with the error of a send that fails', async () => {
    const send = jest.fn().mockRejectedValue(new Error('the server is away'));
    await expect(scanFilesystem([root], [], { batches: { size: 2, send } })).rejects.toThrow(
      'the server is away',
    );
    expect(send).toHaveBeenCalledTimes(1);
  });

  it('stops when asked, incomplete', async () => {
    const stopping = new AbortController();
    const scan = await scanFilesystem([root], [], {
      batches: { size: 1, send: async () => stopping.abort() },
      signal: stopping.signal,
    });
    expect(scan.found).toBe(1);
    expect(scan.complete).toBe(false);
  });
});
