import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scanFilesystem } from './filesystem-scan';

/** Paths whose read fails with the given code (as root, chmod 000 stops nothing: the call fails). */
const failing = new Map<string, string>();
const errno = (code: string, path: string) => Object.assign(new Error(`${code}: ${path}`), { code });

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
      ].concat(['-out', join(root, 'a.pem'), '-subj', '/CN=a', '-days', '1']),
      { stdio: 'ignore' },
    );
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
