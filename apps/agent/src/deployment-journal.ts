import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentWorkItem } from '@certlane/contracts';
import { writePrivateFile } from './key-store';

/** What a deployment needs to be run again after the agent was stopped in the middle of it. */
export interface InterruptedDeployment {
  job_id: string;
  certificate_id: string;
  version_id: string | null;
  target_id: string;
  common_name: string;
  /** How many times the agent started this deployment (the first run included). */
  runs: number;
}

export function journalEntryOf(item: AgentWorkItem, runs = 1): InterruptedDeployment {
  return {
    job_id: item.job_id,
    certificate_id: item.certificate_id,
    version_id: item.version_id,
    target_id: item.target_id,
    common_name: item.common_name,
    runs,
  };
}

/**
 * Deployments started and not yet settled, one JSON file each under `<state>/deployments/` (0600,
 * written like the keys). An entry is written before the job is reported Running and dropped once
 * its final report is sent or kept, so an entry found at the next poll is a deployment the agent
 * was killed in (SIGKILL, a crash, a power loss): the connector may have swapped some of the
 * target's files and not the others (a new certificate beside the old key), and the job is
 * Running, which no poll returns. The agent runs it again (ADR 0079).
 */
export class DeploymentJournal {
  private readonly dir: string;

  constructor(stateDir: string) {
    this.dir = join(stateDir, 'deployments');
  }

  /** Job ids come from the server: the file is named by their hash, never by the id itself. */
  private path(jobId: string): string {
    return join(this.dir, `${createHash('sha256').update(jobId).digest('hex')}.json`);
  }

  begin(entry: InterruptedDeployment): void {
    writePrivateFile(this.path(entry.job_id), JSON.stringify(entry));
  }

  end(jobId: string): void {
    const path = this.path(jobId);
    if (existsSync(path)) unlinkSync(path);
  }

  /** The deployments left unsettled; a file that does not read as one is left alone. */
  all(): InterruptedDeployment[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((name) => name.endsWith('.json'))
      .sort()
      .flatMap((name) => {
        try {
          const entry = JSON.parse(readFileSync(join(this.dir, name), 'utf8')) as InterruptedDeployment;
          return typeof entry?.job_id === 'string' &&
            typeof entry.certificate_id === 'string' &&
            typeof entry.target_id === 'string'
            ? [{ ...entry, runs: typeof entry.runs === 'number' ? entry.runs : 1 }]
            : [];
        } catch {
          return [];
        }
      });
  }
}
