import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CERTLANE_CONFIG, CertlaneConfig, CertlaneLogger, LOGGER, PeriodicTask } from '@certlane/platform';
import { ExpirySweep } from './expiry-sweep';

/**
 * Runs the expiry sweep at start and every SERVICE_EXPIRY_SWEEP_INTERVAL. Every replica runs
 * the timer; the sweep's advisory lock lets one of them do the work at a time.
 */
@Injectable()
export class ExpiryLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly loop: PeriodicTask;

  constructor(
    private readonly sweep: ExpirySweep,
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {
    this.loop = new PeriodicTask(() => this.run(), config.expiry.sweepIntervalMs);
  }

  onApplicationBootstrap(): void {
    this.loop.start({ runNow: true });
  }

  onApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  private async run(): Promise<void> {
    try {
      const { ran, changed } = await this.sweep.sweep();
      if (changed > 0) this.logger.info({ changed }, 'expiry sweep moved certificates by their dates');
      else if (!ran) this.logger.debug({}, 'expiry sweep skipped: another replica holds it');
    } catch (error) {
      this.logger.warn({ err: error }, 'expiry sweep failed; will retry');
    }
  }
}
