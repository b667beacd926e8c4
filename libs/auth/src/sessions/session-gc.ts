import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CERTLANE_CONFIG, CertlaneConfig, CertlaneLogger, LOGGER } from '@certlane/platform';
import { BreakGlassRepository } from '../breakglass/breakglass.repository';
import { SessionService } from './session.service';

/**
 * Every SERVICE_SESSION_GC_INTERVAL, deletes sessions that can no longer authenticate (revoked,
 * expired, idle) and break-glass login attempts older than the rate-limit window. Each replica
 * runs it; the deletes are idempotent.
 */
@Injectable()
export class SessionGc implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly sessions: SessionService,
    private readonly breakGlass: BreakGlassRepository,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.sweep().finally(() => (this.running = undefined));
    }, this.config.session.gcIntervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  async sweep(): Promise<void> {
    try {
      const sessions = await this.sessions.collectGarbage();
      const attempts = await this.breakGlass.deleteOldAttempts();
      if (sessions + attempts > 0) this.logger.debug({ sessions, attempts }, 'session gc');
    } catch (error) {
      this.logger.warn({ err: error }, 'session gc failed; will retry');
    }
  }
}
