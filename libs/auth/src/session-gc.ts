import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CERTLANE_CONFIG, CertlaneConfig, CertlaneLogger, LOGGER, PeriodicTask } from '@certlane/platform';
import { BreakGlassRepository } from './breakglass/breakglass.repository';
import { SessionService } from './sessions/session.service';

/**
 * Every SERVICE_SESSION_GC_INTERVAL, deletes sessions that can no longer authenticate (revoked,
 * expired, idle) and break-glass login attempts older than the rate-limit window. Each replica
 * runs it; the deletes are idempotent.
 */
@Injectable()
export class SessionGc implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly loop: PeriodicTask;

  constructor(
    private readonly sessions: SessionService,
    private readonly breakGlass: BreakGlassRepository,
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {
    this.loop = new PeriodicTask(() => this.sweep(), config.session.gcIntervalMs);
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.loop.stop();
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
