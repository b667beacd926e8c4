import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { OwnerTeamService } from './owner-team.service';

/** Serves the owner and team subjects of libs/contracts on the bus. */
@Injectable()
export class OwnerTeamHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly service: OwnerTeamService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('issuance.v1.list-teams', (request) => this.service.listTeams(request)),
      this.bus.handle('issuance.v1.get-team', (request) => this.service.getTeam(request.id)),
      this.bus.handle('issuance.v1.create-team', (request, context) =>
        this.service.createTeam(request, context),
      ),
      this.bus.handle('issuance.v1.update-team', (request, context) =>
        this.service.updateTeam(request, context),
      ),
      this.bus.handle('issuance.v1.delete-team', (request, context) =>
        this.service.deleteTeam(request.id, context),
      ),
      this.bus.handle('issuance.v1.list-owners', (request) => this.service.listOwners(request)),
      this.bus.handle('issuance.v1.get-owner', (request) => this.service.getOwner(request.id)),
      this.bus.handle('issuance.v1.create-owner', (request, context) =>
        this.service.createOwner(request, context),
      ),
      this.bus.handle('issuance.v1.update-owner', (request, context) =>
        this.service.updateOwner(request, context),
      ),
      this.bus.handle('issuance.v1.delete-owner', (request, context) =>
        this.service.deleteOwner(request.id, context),
      ),
    ]);
  }
}
