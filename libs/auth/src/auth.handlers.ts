import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { resolvePage } from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { RoleRepository } from './roles/role.repository';
import { RoleService } from './roles/role.service';
import { ApiKeyService } from './api-keys/api-key.service';
import { BootstrapService } from './bootstrap/bootstrap.service';

/** Serves the auth subjects of libs/contracts on the bus. */
@Injectable()
export class AuthHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly keys: ApiKeyService,
    private readonly bootstrap: BootstrapService,
    private readonly roles: RoleRepository,
    private readonly roleAdmin: RoleService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('auth.v1.authenticate-api-key', (request) => this.keys.authenticate(request.key)),
      this.bus.handle('auth.v1.get-bootstrap-status', () => this.bootstrap.status()),
      this.bus.handle('auth.v1.bootstrap', (request, context) => this.bootstrap.consume(request, context)),
      this.bus.handle('auth.v1.list-api-keys', (request) => this.keys.list(request)),
      this.bus.handle('auth.v1.create-api-key', (request, context) => this.keys.create(request, context)),
      this.bus.handle('auth.v1.rotate-api-key', (request, context) => this.keys.rotate(request.id, context)),
      this.bus.handle('auth.v1.list-roles', (request) => this.roleAdmin.list(request)),
      this.bus.handle('auth.v1.get-role', (request) => this.roleAdmin.get(request.id)),
      this.bus.handle('auth.v1.create-role', (request, context) => this.roleAdmin.create(request, context)),
      this.bus.handle('auth.v1.update-role', (request, context) => this.roleAdmin.update(request, context)),
      this.bus.handle('auth.v1.delete-role', (request, context) =>
        this.roleAdmin.delete(request.id, context),
      ),
      this.bus.handle('auth.v1.grant-role', (request, context) => this.roleAdmin.grant(request, context)),
      this.bus.handle('auth.v1.revoke-role', (request, context) => this.roleAdmin.revoke(request, context)),
      this.bus.handle('auth.v1.list-actors', (request) => this.roles.listActors(resolvePage(request))),
      this.bus.handle('auth.v1.delete-api-key', (request, context) => this.keys.delete(request.id, context)),
    ]);
  }
}
