import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { StatsService } from './stats.service';

/** Serves the stats subjects of libs/contracts on the bus. */
@Injectable()
export class StatsHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly stats: StatsService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('issuance.v1.get-stats-summary', () => this.stats.summary()),
      this.bus.handle('issuance.v1.get-expiration-timeline', (request) =>
        this.stats.expirationTimeline(request.days),
      ),
      this.bus.handle('issuance.v1.get-issuance-rate', (request) => this.stats.issuanceRate(request.days)),
      this.bus.handle('issuance.v1.get-job-trends', (request) => this.stats.jobTrends(request.days)),
    ]);
  }
}
