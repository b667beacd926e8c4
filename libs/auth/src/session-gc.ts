import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CERTLANE_CONFIG, CertlaneConfig, CertlaneLogger, LOGGER, PeriodicTask } from '@certlane/platform';
import { BreakGlassRepository } from './breakglass/breakglass.repository';
import { OidcRepository } from './oidc/oidc.repository';
import { SessionService } from './sessions/session.service';

/**
 * Every SERVICE_SESSION_GC_INTERVAL, deletes sessions that can no longer authenticate (revoked,
 * expired, idle), break-glass login attempts older than the rate-limit window, and expired OIDC
 * pre-logins and remembered logout tokens. Each replica
 * runs it; the deletes are idempotent.
 */
@Injectable()
export class SessionGc implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly loop: PeriodicTask;

  constructor(
    private readonly sessions: SessionService,
    private readonly breakGlass: BreakGlassRepository,
    private readonly oidc: OidcRepository,
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
      const oidc = await this.oidc.deleteExpired();
      if (sessions + attempts + oidc > 0) this.logger.debug({ sessions, attempts, oidc }, 'session gc');
    } catch (error) {
      this.logger.warn({ err: error }, 'session gc failed; will retry');
    }
  }
}
