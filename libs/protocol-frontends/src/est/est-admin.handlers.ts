import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MESSAGE_BUS, MessageBus, outboxToken, ServiceOutbox } from '@certlane/platform';
import { EstProfileAdmin } from './est-profile-admin';

/** The protocol-frontends.v1.est-* subjects behind /api/v1/admin/est/* (spec 4.9; ADR 0058). */
@Injectable()
export class EstAdminHandlers implements OnApplicationBootstrap {
  readonly admin: EstProfileAdmin;

  constructor(
    @InjectDataSource('protocol-frontends') dataSource: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(outboxToken('protocol-frontends')) outbox: ServiceOutbox,
  ) {
    this.admin = new EstProfileAdmin({
      executor: dataSource,
      transaction: async (work) => {
        const result = await dataSource.transaction((manager) => work(manager));
        outbox.committed();
        return result;
      },
      audit: async (executor, record) => {
        await outbox.audit(executor, record);
      },
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('protocol-frontends.v1.est-list-profiles', () => this.admin.list()),
      this.bus.handle('protocol-frontends.v1.est-create-profile', (request, context) =>
        this.admin.create(request, context),
      ),
      this.bus.handle('protocol-frontends.v1.est-update-profile', (request, context) =>
        this.admin.update(request, context),
      ),
      this.bus.handle('protocol-frontends.v1.est-delete-profile', ({ id }, context) =>
        this.admin.delete(id, context),
      ),
      this.bus.handle('protocol-frontends.v1.est-reload-trust', (_request, context) =>
        this.admin.reloadTrust(context),
      ),
    ]);
  }
}
