import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { ScepProbeService } from './scep-probe.service';

/** Serves the SCEP probe subjects of libs/contracts on the bus. */
@Injectable()
export class ScepProbeHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly probes: ScepProbeService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('health-monitor.v1.run-scep-probe', (request, context) =>
        this.probes.run(request, context),
      ),
      this.bus.handle('health-monitor.v1.list-scep-probes', (request) => this.probes.recent(request)),
    ]);
  }
}
