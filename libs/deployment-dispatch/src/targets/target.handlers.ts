import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { TargetService } from './target.service';

/** Serves the target subjects of libs/contracts on the bus. */
@Injectable()
export class TargetHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly targets: TargetService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('deployment-dispatch.v1.list-targets', (request) => this.targets.list(request)),
      this.bus.handle('deployment-dispatch.v1.get-target', (request) => this.targets.get(request.id)),
      this.bus.handle('deployment-dispatch.v1.create-target', (request, context) =>
        this.targets.create(request, context),
      ),
      this.bus.handle('deployment-dispatch.v1.update-target', (request, context) =>
        this.targets.update(request, context),
      ),
      this.bus.handle('deployment-dispatch.v1.delete-target', (request, context) =>
        this.targets.delete(request.id, context),
      ),
      this.bus.handle('deployment-dispatch.v1.test-target', (request, context) =>
        this.targets.test(request.id, context),
      ),
    ]);
  }
}
