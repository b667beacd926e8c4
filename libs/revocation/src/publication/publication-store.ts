import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Where published revocation files go, by key (`crl/...`, `ocsp/...`, '/'-separated like a URL
 * path or a bucket's object key). A directory today; a bucket-like store implements the same two
 * operations (put replaces an object whole; the lifecycle sweep removes stale objects).
 */
export interface PublicationStore {
  /** Replaces the object at `key` whole: a reader sees the old bytes or the new, never a mix. */
  put(key: string, body: Buffer): Promise<void>;
  /** Removes the objects under `prefix` last written before `before`; returns how many. */
  removeWrittenBefore(prefix: string, before: Date): Promise<number>;
}

const SAFE_SEGMENT = /^(?!\.{1,2}$)[^/\0]+$/;

/** The key's segments, refused when one could leave the store's root. */
function segmentsOf(key: string): string[] {
  const segments = key.split('/');
  if (!segments.every((s) => SAFE_SEGMENT.test(s) && !s.startsWith('.'))) {
    throw new Error(`unsafe publication key ${JSON.stringify(key)}`);
  }
  return segments;
}

/**
 * A directory that a static web server serves: each file is written beside its final name (a
 * dot-file in the same directory, so on the same file system) and renamed over it, which is
 * atomic on POSIX file systems.
 */
export class DirectoryPublicationStore implements PublicationStore {
  constructor(private readonly root: string) {}

  async put(key: string, body: Buffer): Promise<void> {
    const path = join(this.root, ...segmentsOf(key));
    await mkdir(dirname(path), { recursive: true });
    const temporary = join(dirname(path), `.${randomBytes(8).toString('hex')}.tmp`);
    try {
      await writeFile(temporary, body, { mode: 0o644 });
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async removeWrittenBefore(prefix: string, before: Date): Promise<number> {
    return this.sweep(join(this.root, ...segmentsOf(prefix)), before.getTime());
  }

  private async sweep(directory: string, before: number): Promise<number> {
    let removed = 0;
    let entries;
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    for (const entry of entries) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) {
        removed += await this.sweep(path, before);
      } else if ((await stat(path)).mtimeMs < before) {
        await rm(path, { force: true });
        removed++;
      }
    }
    return removed;
  }
}
