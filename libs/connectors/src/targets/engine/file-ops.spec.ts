import { mkdtempSync, promises as fsPromises, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeFileOps } from './file-ops';

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
