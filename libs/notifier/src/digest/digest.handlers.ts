import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { DigestService } from './digest.service';

/** The notifier.v1 digest subjects behind /api/v1/digest (spec 4.12; ADR 0062). */
@Injectable()
export class DigestHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly digests: DigestService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('notifier.v1.preview-digest', (request, context) =>
        this.digests.preview(request, context),
      ),
      this.bus.handle('notifier.v1.send-digest', (request, context) =>
        this.digests.sendNow(request, context),
      ),
    ]);
  }
}
