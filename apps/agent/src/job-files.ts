import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFile } from './key-store';

/**
 * One JSON file per job under `<state>/<folder>/` (0600, written like the keys: fsync, rename),
 * so what the agent must still do for a job survives a restart. Job ids come from the server: a
 * file is named by the id's hash, never by the id itself. A file that does not read as an entry
 * (`read` answers null) is left alone, never a reason to stall.
 */
export class JobFiles<Entry extends { job_id: string }> {
  private readonly dir: string;

  constructor(
    stateDir: string,
    folder: string,
    private readonly read: (value: unknown) => Entry | null,
  ) {
    this.dir = join(stateDir, folder);
  }

  private path(jobId: string): string {
    return join(this.dir, `${createHash('sha256').update(jobId).digest('hex')}.json`);
  }

  write(entry: Entry): void {
    writePrivateFile(this.path(entry.job_id), JSON.stringify(entry));
  }

  remove(jobId: string): void {
    const path = this.path(jobId);
    if (existsSync(path)) unlinkSync(path);
  }

  all(): Entry[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((name) => name.endsWith('.json'))
      .sort()
      .flatMap((name) => {
        try {
          const entry = this.read(JSON.parse(readFileSync(join(this.dir, name), 'utf8')));
          return entry ? [entry] : [];
        } catch {
          return [];
        }
      });
  }
}
