import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { BulkService } from './bulk.service';

/** Serves the bulk subjects of libs/contracts (certificate-subjects.ts) on the bus. */
@Injectable()
export class BulkHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly bulk: BulkService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('issuance.v1.bulk-revoke-certificates', (request, context) =>
        this.bulk.revoke(request, context),
      ),
      this.bus.handle('issuance.v1.est-bulk-revoke-certificates', (request, context) =>
        this.bulk.estRevoke(request, context),
      ),
      this.bus.handle('issuance.v1.bulk-renew-certificates', (request, context) =>
        this.bulk.renew(request, context),
      ),
      this.bus.handle('issuance.v1.bulk-reassign-certificates', (request, context) =>
        this.bulk.reassign(request, context),
      ),
    ]);
  }
}
