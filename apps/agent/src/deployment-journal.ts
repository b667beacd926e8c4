import type { AgentWorkItem } from '@certlane/contracts';
import { JobFiles } from './job-files';

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
  private readonly files: JobFiles<InterruptedDeployment>;

  constructor(stateDir: string) {
    this.files = new JobFiles(stateDir, 'deployments', (value) => {
      const entry = value as Partial<InterruptedDeployment> | null;
      return typeof entry?.job_id === 'string' &&
        typeof entry.certificate_id === 'string' &&
        typeof entry.target_id === 'string'
        ? ({ ...entry, runs: typeof entry.runs === 'number' ? entry.runs : 1 } as InterruptedDeployment)
        : null;
    });
  }

  begin(entry: InterruptedDeployment): void {
    this.files.write(entry);
  }

  end(jobId: string): void {
    this.files.remove(jobId);
  }

  /** The deployments left unsettled. */
  all(): InterruptedDeployment[] {
    return this.files.all();
  }
}
