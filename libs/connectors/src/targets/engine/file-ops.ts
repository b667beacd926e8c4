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
  /**
   * Atomic replace within one directory (rename(2)), durable once it resolves: the directory is
   * fsynced, so a power loss cannot undo it. It may reject after the rename took place (the
   * directory's fsync failed): callers treat the destination as possibly replaced.
   */
  rename(from: string, to: string): Promise<void>;
  /** Removes the file; a missing file is not an error. */
  remove(path: string): Promise<void>;
  /** The entries of a directory with their modification times (none when it does not exist). */
  list(dir: string): Promise<{ name: string; mtimeMs: number }[]>;
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
  async rename(from, to) {
    await fs.rename(from, to);
    await syncDirectory(dirname(to));
    if (dirname(from) !== dirname(to)) await syncDirectory(dirname(from));
  },
  async remove(path) {
    await fs.rm(path, { force: true });
  },
  async list(dir) {
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const entries = await Promise.all(
      names.map(async (name) => {
        const stat = await fs.lstat(join(dir, name)).catch(() => null);
        return stat && { name, mtimeMs: stat.mtimeMs };
      }),
    );
    return entries.filter((entry): entry is { name: string; mtimeMs: number } => entry !== null);
  },
};

/**
 * Where fsync(2) on a directory is refused rather than done: EISDIR (Windows cannot open or
 * flush a directory), EINVAL (file systems without directory fsync), EPERM (some FUSE and
 * network file systems). The rename itself is done; only its durability is the platform's.
 */
const DIRECTORY_SYNC_UNSUPPORTED = new Set(['EISDIR', 'EINVAL', 'EPERM']);

const unsupported = (error: unknown) =>
  DIRECTORY_SYNC_UNSUPPORTED.has((error as NodeJS.ErrnoException)?.code ?? '');

/** Makes the entries of `dir` (a rename into it) durable: open it read-only, fsync, close. */
export async function syncDirectory(dir: string): Promise<void> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(dir, 'r');
  } catch (error) {
    if (unsupported(error)) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    if (!unsupported(error)) throw error;
  } finally {
    await handle.close();
  }
}

/** A temporary name beside `path` (same directory, so the final rename is atomic). */
export function siblingTempPath(path: string, purpose = 'new'): string {
  return join(dirname(path), `.${basename(path)}.certlane-${purpose}-${randomBytes(6).toString('hex')}`);
}

/**
 * How old a temporary file beside a deployed file must be before a later deployment removes it:
 * far longer than a deployment keeps one (written, then renamed within seconds), so only what a
 * process killed mid-deployment left is taken, never the file of a deployment still running.
 */
export const LEFTOVER_TEMP_AGE_MS = 15 * 60_000;

/**
 * Whether `name`, in the directory of `path`, is a temporary file `siblingTempPath` made for
 * `path` and left at least `LEFTOVER_TEMP_AGE_MS` before `now` (a new certificate or key that
 * was never renamed into place, or a copy of an old one).
 */
export function isLeftoverTempOf(
  path: string,
  entry: { name: string; mtimeMs: number },
  now: number,
): boolean {
  const prefix = `.${basename(path)}.certlane-`;
  return (
    entry.name.startsWith(prefix) &&
    /^[a-z]+-[0-9a-f]{12}$/.test(entry.name.slice(prefix.length)) &&
    now - entry.mtimeMs >= LEFTOVER_TEMP_AGE_MS
  );
}

/** Where the previous version of a deployed file is kept. */
export function previousCopyPath(path: string): string {
  return `${path}.certlane-prev`;
}
