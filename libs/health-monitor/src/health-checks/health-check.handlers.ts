import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { HealthCheckService } from './health-check.service';

/** Serves the health-check subjects of libs/contracts on the bus. */
@Injectable()
export class HealthCheckHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly checks: HealthCheckService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('health-monitor.v1.list-health-checks', (request) => this.checks.list(request)),
      this.bus.handle('health-monitor.v1.get-health-check-summary', () => this.checks.summary()),
      this.bus.handle('health-monitor.v1.get-health-check', (request) => this.checks.get(request.id)),
      this.bus.handle('health-monitor.v1.create-health-check', (request, context) =>
        this.checks.create(request, context),
      ),
      this.bus.handle('health-monitor.v1.update-health-check', (request, context) =>
        this.checks.update(request, context),
      ),
      this.bus.handle('health-monitor.v1.delete-health-check', (request, context) =>
        this.checks.delete(request.id, context),
      ),
      this.bus.handle('health-monitor.v1.list-health-check-history', (request) =>
        this.checks.history(request),
      ),
      this.bus.handle('health-monitor.v1.acknowledge-health-check', (request, context) =>
        this.checks.acknowledge(request.id, context),
      ),
    ]);
  }
}
