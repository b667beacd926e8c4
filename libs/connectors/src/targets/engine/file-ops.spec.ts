import { mkdtempSync, promises as fsPromises, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLeftoverTempOf, LEFTOVER_TEMP_AGE_MS, nodeFileOps, siblingTempPath } from './file-ops';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'certlane-file-ops-'));
  writeFileSync(join(dir, 'new'), 'new bytes');
  writeFileSync(join(dir, 'server.crt'), 'old bytes');
});
afterEach(() => {
  jest.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

const errno = (code: string) => Object.assign(new Error(`${code}: directory fsync`), { code });

/** Lets every open through, except that of `dir`, which `onDirectory` answers. */
function interceptDirectoryOpen(
  onDirectory: (open: () => Promise<fsPromises.FileHandle>) => Promise<unknown>,
) {
  const realOpen = fsPromises.open.bind(fsPromises);
  return jest
    .spyOn(fsPromises, 'open')
    .mockImplementation(((path: string, ...rest: []) =>
      path === dir ? onDirectory(() => realOpen(path, ...rest)) : realOpen(path, ...rest)) as never);
}

describe('nodeFileOps.rename', () => {
  it('fsyncs the directory after the rename, so a power loss cannot undo it', async () => {
    const synced: string[] = [];
    const open = interceptDirectoryOpen(async (realOpen) => {
      const handle = await realOpen();
      const sync = handle.sync.bind(handle);
      handle.sync = async () => {
        synced.push(dir);
        return sync();
      };
      return handle;
    });
    await nodeFileOps.rename(join(dir, 'new'), join(dir, 'server.crt'));
    expect(readFileSync(join(dir, 'server.crt'), 'utf8')).toBe('new bytes');
    expect(open).toHaveBeenCalledWith(dir, 'r');
    expect(synced).toEqual([dir]);
  });

  it.each(['EISDIR', 'EINVAL', 'EPERM'])(
    'tolerates a platform whose directory fsync fails with %s (the rename stands)',
    async (code) => {
      let closed = false;
      interceptDirectoryOpen(async () => ({
        sync: () => Promise.reject(errno(code)),
        close: async () => {
          closed = true;
        },
      }));
      await expect(nodeFileOps.rename(join(dir, 'new'), join(dir, 'server.crt'))).resolves.toBeUndefined();
      expect(readFileSync(join(dir, 'server.crt'), 'utf8')).toBe('new bytes');
      expect(closed).toBe(true);
    },
  );

  it('tolerates a platform that cannot open a directory (EISDIR)', async () => {
    interceptDirectoryOpen(() => Promise.reject(errno('EISDIR')));
    await expect(nodeFileOps.rename(join(dir, 'new'), join(dir, 'server.crt'))).resolves.toBeUndefined();
  });

  it('reports any other fsync failure (EIO): the swap is not known to be durable', async () => {
    interceptDirectoryOpen(async () => ({
      sync: () => Promise.reject(errno('EIO')),
      close: async () => undefined,
    }));
    await expect(nodeFileOps.rename(join(dir, 'new'), join(dir, 'server.crt'))).rejects.toThrow('EIO');
  });
});

describe('isLeftoverTempOf (ADR 0029 amendment: what a killed deployment left)', () => {
  const path = '/etc/ssl/server.crt';
  const now = 10 * LEFTOVER_TEMP_AGE_MS;
  const old = now - LEFTOVER_TEMP_AGE_MS;

  it("takes the engine's temporary names of that file once they are old enough", () => {
    for (const purpose of ['new', 'restore', 'copy', 'journal']) {
      const name = siblingTempPath(path, purpose).split('/').pop()!;
      expect(isLeftoverTempOf(path, { name, mtimeMs: old }, now)).toBe(true);
      // A deployment running now may still own a young one.
      expect(isLeftoverTempOf(path, { name, mtimeMs: old + 1 }, now)).toBe(false);
    }
  });

  it('leaves every other name alone', () => {
    for (const name of [
      'server.crt',
      'server.crt.certlane-prev',
      'server.crt.certlane-journal',
      '.server.crt.certlane-new-0123456789a', // 11 hex digits
      '.server.crt.certlane-new-0123456789ab.bak',
      '.server.crt.certlane-new-0123456789AB',
      '.server.crt.certlane--0123456789ab',
      '.server.key.certlane-new-0123456789ab', // another file's
      '.other.server.crt.certlane-new-0123456789ab',
    ])
      expect([name, isLeftoverTempOf(path, { name, mtimeMs: 0 }, now)]).toEqual([name, false]);
  });
});

describe('nodeFileOps.list', () => {
  it("lists a directory's entries with their modification times, and nothing for a missing one", async () => {
    const listed = await nodeFileOps.list(dir);
    expect(listed.map((entry) => entry.name).sort()).toEqual(['new', 'server.crt']);
    expect(listed.every((entry) => Math.abs(entry.mtimeMs - Date.now()) < 60_000)).toBe(true);
    expect(await nodeFileOps.list(join(dir, 'missing'))).toEqual([]);
  });
});
