import type { SFTPWrapper } from 'ssh2';
import type { FileOps } from '../engine/file-ops';

/** SFTP status code 2 (SSH_FX_NO_SUCH_FILE). */
const NO_SUCH_FILE = 2;

const missing = (error: unknown) => (error as { code?: number })?.code === NO_SUCH_FILE;

function call<T>(work: (done: (error: Error | null | undefined, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) =>
    work((error, value) => (error ? reject(error) : resolve(value as T))),
  );
}

/** Writes all of `data` through an open handle (SFTP writes may be partial per packet). */
async function writeAll(sftp: SFTPWrapper, handle: Buffer, data: Buffer): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const length = Math.min(32 * 1024, data.length - offset);
    await call<void>((done) => sftp.write(handle, data, offset, length, offset, (error) => done(error)));
    offset += length;
  }
}

/**
 * The engine's file operations on the remote host over SFTP, so an SSH target gets the same
 * write-beside / swap / rollback as a local one: new files are created exclusively with their
 * mode set explicitly (fchmod, the remote umask does not apply) and fsynced when the server
 * offers fsync@openssh.com; the swap uses posix-rename@openssh.com (rename(2), atomic, replaces
 * the destination). A server without it gets the plain SFTP rename, which cannot replace a file,
 * so the destination is removed first (a short window without the file; the README says so).
 */
export function sftpFileOps(sftp: SFTPWrapper): FileOps {
  const extensions = (sftp as unknown as { _extensions?: Record<string, string> })._extensions ?? {};
  const posixRename = extensions['posix-rename@openssh.com'] === '1';
  const fsync = extensions['fsync@openssh.com'] === '1';
  return {
    async read(path) {
      let mode: number;
      try {
        mode = (await call<{ mode: number }>((done) => sftp.stat(path, done))).mode & 0o7777;
      } catch (error) {
        if (missing(error)) return null;
        throw error;
      }
      const data = await call<Buffer>((done) => sftp.readFile(path, done));
      return { data, mode };
    },
    async create(path, data, mode) {
      const handle = await call<Buffer>((done) => sftp.open(path, 'wx', { mode }, done));
      try {
        await call<void>((done) => sftp.fchmod(handle, mode, (error) => done(error)));
        await writeAll(sftp, handle, data);
        if (fsync) await call<void>((done) => sftp.ext_openssh_fsync(handle, (error) => done(error)));
      } finally {
        await call<void>((done) => sftp.close(handle, (error) => done(error)));
      }
    },
    async rename(from, to) {
      if (posixRename) {
        await call<void>((done) => sftp.ext_openssh_rename(from, to, (error) => done(error)));
        return;
      }
      await call<void>((done) => sftp.unlink(to, (error) => done(missing(error) ? null : error)));
      await call<void>((done) => sftp.rename(from, to, (error) => done(error)));
    },
    async remove(path) {
      await call<void>((done) => sftp.unlink(path, (error) => done(missing(error) ? null : error)));
    },
    async list(dir) {
      let entries: { filename: string; attrs: { mtime: number } }[];
      try {
        entries = await call((done) => sftp.readdir(dir, done));
      } catch (error) {
        if (missing(error)) return [];
        throw error;
      }
      // SFTP gives modification times in whole seconds.
      return entries.map((entry) => ({ name: entry.filename, mtimeMs: entry.attrs.mtime * 1000 }));
    },
  };
}
