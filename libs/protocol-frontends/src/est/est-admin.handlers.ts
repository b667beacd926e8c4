import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditRecord } from '@certlane/contracts';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  MESSAGE_BUS,
  MessageBus,
  outboxToken,
  ServiceOutbox,
  SqlExecutor,
} from '@certlane/platform';
import { EstKekAdmin } from './est-kek-admin';
import { EstKekBox } from './est-kek-box';
import { inventoryReferenceCheck } from '../inventory-references';
import { EstProfileAdmin } from './est-profile-admin';

/**
 * The protocol-frontends.v1.est-* subjects behind /api/v1/admin/est/* (spec 4.9; ADR 0058):
 * profiles, trust, and the serverkeygen key-encryption keys.
 */
@Injectable()
export class EstAdminHandlers implements OnApplicationBootstrap {
  readonly admin: EstProfileAdmin;
  readonly keys: EstKekAdmin;

  constructor(
    @InjectDataSource('protocol-frontends') dataSource: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(outboxToken('protocol-frontends')) outbox: ServiceOutbox,
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
  ) {
    const deps = {
      executor: dataSource,
      transaction: <T>(work: (executor: SqlExecutor) => Promise<T>): Promise<T> =>
        outbox.transaction(dataSource, work),
      audit: async (executor: SqlExecutor, record: AuditRecord) => {
        await outbox.audit(executor, record);
      },
    };
    this.admin = new EstProfileAdmin({ ...deps, references: inventoryReferenceCheck(bus) });
    this.keys = new EstKekAdmin({ ...deps, keys: new EstKekBox(config.configEncryptionKey) });
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
      this.bus.handle('protocol-frontends.v1.est-list-key-encryption-keys', (request) =>
        this.keys.list(request),
      ),
      this.bus.handle('protocol-frontends.v1.est-create-key-encryption-key', (request, context) =>
        this.keys.create(request, context),
      ),
      this.bus.handle('protocol-frontends.v1.est-revoke-key-encryption-key', ({ id }, context) =>
        this.keys.revoke(id, context),
      ),
    ]);
  }
}
