import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CertlaneLogger, LOGGER, PeriodicTask } from '@certlane/platform';
import { DigestService } from './digest.service';

/**
 * How often the loop looks for the day's digest run. The digest itself goes out once per UTC
 * day (spec: every 24 hours); an hourly look means a restart or a replica change delays it by an
 * hour at most, and the run row keeps it to once a day.
 */
export const DIGEST_TICK_MS = 3_600_000;

/** The daily digest loop (issue 22, ADR 0062): every replica runs it; one queues each day. */
@Injectable()
export class DigestLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly task = new PeriodicTask(() => this.tick(), DIGEST_TICK_MS);

  constructor(
    private readonly digests: DigestService,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {}

  onApplicationBootstrap(): void {
    this.task.start({ runNow: true });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  private async tick(): Promise<void> {
    try {
      const run = await this.digests.runDaily();
      if (run) this.logger.info(run, 'daily digest queued');
    } catch (error) {
      this.logger.warn({ err: error }, 'daily digest failed; the next tick retries');
    }
  }
}
