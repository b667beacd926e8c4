import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * The file system calls of a deployment, injected so unit tests can make any of them fail.
 * Paths are absolute (checked by the target config schema).
 */
export interface FileOps {
  /** The file's bytes and permission bits, or null when it does not exist. */
  read(path: string): Promise<{ data: Buffer; mode: number } | null>;
  /** Creates `path` (which must not exist) with exactly `mode` (umask does not apply). */
  create(path: string, data: Buffer, mode: number): Promise<void>;
  /** Atomic replace within one directory (rename(2)). */
  rename(from: string, to: string): Promise<void>;
  /** Removes the file; a missing file is not an error. */
  remove(path: string): Promise<void>;
}

export const nodeFileOps: FileOps = {
  async read(path) {
    try {
      const [data, stat] = await Promise.all([fs.readFile(path), fs.stat(path)]);
      return { data, mode: stat.mode & 0o7777 };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  },
  async create(path, data, mode) {
    const handle = await fs.open(path, 'wx', mode);
    try {
      await handle.chmod(mode);
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  rename: (from, to) => fs.rename(from, to),
  async remove(path) {
    await fs.rm(path, { force: true });
  },
};

/** A temporary name beside `path` (same directory, so the final rename is atomic). */
export function siblingTempPath(path: string, purpose = 'new'): string {
  return join(dirname(path), `.${basename(path)}.certlane-${purpose}-${randomBytes(6).toString('hex')}`);
}

/** Where the previous version of a deployed file is kept. */
export function previousCopyPath(path: string): string {
  return `${path}.certlane-prev`;
}
