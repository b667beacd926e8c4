import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CERTLANE_CONFIG, CertlaneConfig, CertlaneLogger, LOGGER } from '@certlane/platform';
import { ExpirySweep } from './expiry-sweep';

/**
 * Runs the expiry sweep at start and every SERVICE_EXPIRY_SWEEP_INTERVAL. Every replica runs
 * the timer; the sweep's advisory lock lets one of them do the work at a time.
 */
@Injectable()
export class ExpiryLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly sweep: ExpirySweep,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {}

  onApplicationBootstrap(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), this.config.expiry.sweepIntervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.run().finally(() => (this.running = undefined));
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
