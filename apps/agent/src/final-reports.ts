import { ApiError } from '@certlane/api-client';
import type { AgentVerificationReport } from '@certlane/contracts';
import { JobFiles } from './job-files';
import type { Logger } from './logger';
import type { AgentServerClient } from './server-client';
import { classifyServerError } from './server-errors';

/** A job's last status report: once sent, the job leaves the work the server hands out. */
export interface FinalReport {
  job_id: string;
  status: 'Completed' | 'Failed';
  error?: string;
  verification?: AgentVerificationReport;
}

/**
 * Final reports the server has not taken yet, one JSON file each under `<state>/reports/`
 * (0600, written like the keys), so an outcome survives a network failure and a restart.
 */
export class UnsentReports {
  private readonly files: JobFiles<FinalReport>;

  constructor(stateDir: string) {
    this.files = new JobFiles(stateDir, 'reports', (value) =>
      typeof (value as Partial<FinalReport> | null)?.job_id === 'string' ? (value as FinalReport) : null,
    );
  }

  keep(report: FinalReport): void {
    this.files.write(report);
  }

  /** The kept reports. */
  all(): FinalReport[] {
    return this.files.all();
  }

  drop(jobId: string): void {
    this.files.remove(jobId);
  }
}

export type ReportDelivery = 'sent' | 'settled' | 'kept';

export interface FinalReportSenderDependencies {
  server: AgentServerClient;
  unsent: UnsentReports;
  logger: Logger;
  /** The waits between attempts (retryDelays): bounded, so a deployment's loop moves on. */
  retryDelays: () => number[];
  sleep: (ms: number) => Promise<void>;
  stopped: () => boolean;
}

/**
 * Sends a job's final report, which the server accepts once: a second send of one it already took
 * is refused (400 job_invalid_transition), so a refusal settles the report as surely as a 200.
 * Transient failures are retried with bounded backoff; a report still unsent is kept on disk and
 * replayed by the next loop, so a deployment that succeeded is not left Running for the reaper.
 */
export class FinalReportSender {
  constructor(private readonly deps: FinalReportSenderDependencies) {}

  /** Sent, settled by a refusal, or kept for `replay`. Throws AgentGoneError. */
  async send(report: FinalReport): Promise<ReportDelivery> {
    const waits = this.deps.retryDelays();
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(report);
      if (outcome !== 'transient') return outcome;
      if (attempt >= waits.length || this.deps.stopped()) break;
      await this.deps.sleep(waits[attempt]);
    }
    this.deps.unsent.keep(report);
    this.deps.logger.warn('job status report kept to be sent again on the next poll', {
      job_id: report.job_id,
      status: report.status,
    });
    return 'kept';
  }

  /** One try for each kept report; those sent or settled are dropped, the rest wait for the next. */
  async replay(): Promise<void> {
    for (const report of this.deps.unsent.all()) {
      if (this.deps.stopped()) return;
      if ((await this.attempt(report)) !== 'transient') this.deps.unsent.drop(report.job_id);
    }
  }

  private async attempt(report: FinalReport): Promise<'sent' | 'settled' | 'transient'> {
    const { server, logger } = this.deps;
    const fields = { job_id: report.job_id, status: report.status };
    try {
      await server.reportStatus(report.job_id, report.status, report.error, report.verification);
      return 'sent';
    } catch (error) {
      const kind = classifyServerError(error);
      if (kind === 'gone') throw error;
      const message = (error as Error).message;
      if (kind === 'transient') {
        logger.warn('job status report failed', { ...fields, error: message });
        return 'transient';
      }
      if (error instanceof ApiError && error.details?.status === report.status) {
        logger.info('job status report already recorded by the server', fields);
      } else {
        logger.warn('job status report refused by the server', { ...fields, error: message });
      }
      return 'settled';
    }
  }
}
