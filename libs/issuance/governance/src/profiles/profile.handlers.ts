import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { ProfileService } from './profile.service';

/** Serves the profile subjects of libs/contracts on the bus (ADR 0025). */
@Injectable()
export class ProfileHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly profiles: ProfileService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('issuance.v1.list-profiles', (request) => this.profiles.list(request)),
      this.bus.handle('issuance.v1.get-profile', (request) => this.profiles.get(request.id)),
      this.bus.handle('issuance.v1.create-profile', (request, context) =>
        this.profiles.create(request, context),
      ),
      this.bus.handle('issuance.v1.update-profile', (request, context) =>
        this.profiles.update(request, context),
      ),
      this.bus.handle('issuance.v1.delete-profile', (request, context) =>
        this.profiles.delete(request.id, context),
      ),
    ]);
  }
}
