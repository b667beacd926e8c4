import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { RenewalScheduler } from './renewal-scheduler';

/**
 * `issuance.v1.run-renewal-sweep`: runs one sweep of the renewal loop now and answers what it
 * did. An operations and benchmark trigger on the internal bus; the gateway does not route it.
 */
@Injectable()
export class RenewalHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly scheduler: RenewalScheduler,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.handle('issuance.v1.run-renewal-sweep', () => this.scheduler.sweep());
  }
}
