import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  CertlaneLogger,
  LOGGER,
  MESSAGE_BUS,
  MessageBus,
  outboxToken,
  ServiceOutbox,
} from '@certlane/platform';
import { AcmeAdmin } from './acme-admin';
import { EabKeyBox } from './eab-key-box';
import { approvalWithdrawal } from './account-deactivation';
import { inventoryReferenceCheck } from '../inventory-references';

/** The protocol-frontends.v1.acme-* subjects behind /api/v1/admin/acme/* (ADR 0060). */
@Injectable()
export class AcmeAdminHandlers implements OnApplicationBootstrap {
  readonly admin: AcmeAdmin;

  constructor(
    @InjectDataSource('protocol-frontends') dataSource: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
    @Inject(outboxToken('protocol-frontends')) outbox: ServiceOutbox,
    @Inject(LOGGER) logger: CertlaneLogger,
  ) {
    this.admin = new AcmeAdmin({
      executor: dataSource,
      transaction: (work) => outbox.transaction(dataSource, work),
      audit: async (executor, record) => {
        await outbox.audit(executor, record);
      },
      eabKeys: new EabKeyBox(config.configEncryptionKey),
      defaults: {
        issuerId: config.acme.issuerId,
        externalAccountRequired: config.acme.externalAccountRequired,
        newOrdersPerHour: config.acme.newOrdersPerHour,
      },
      references: inventoryReferenceCheck(bus),
      withdrawApprovals: approvalWithdrawal(bus, logger),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('protocol-frontends.v1.acme-list-accounts', (request) =>
        this.admin.listAccounts(request),
      ),
      this.bus.handle('protocol-frontends.v1.acme-get-account', ({ id }) => this.admin.getAccount(id)),
      this.bus.handle('protocol-frontends.v1.acme-deactivate-account', ({ id }, context) =>
        this.admin.deactivateAccount(id, context),
      ),
      this.bus.handle('protocol-frontends.v1.acme-list-eab-keys', (request) =>
        this.admin.listEabKeys(request),
      ),
      this.bus.handle('protocol-frontends.v1.acme-create-eab-key', (request, context) =>
        this.admin.createEabKey(request, context),
      ),
      this.bus.handle('protocol-frontends.v1.acme-list-profiles', () => this.admin.listProfiles()),
      this.bus.handle('protocol-frontends.v1.acme-create-profile', (request, context) =>
        this.admin.createProfile(request, context),
      ),
      this.bus.handle('protocol-frontends.v1.acme-update-profile', (request, context) =>
        this.admin.updateProfile(request, context),
      ),
      this.bus.handle('protocol-frontends.v1.acme-delete-profile', ({ id }, context) =>
        this.admin.deleteProfile(id, context),
      ),
      this.bus.handle('protocol-frontends.v1.acme-revoke-eab-key', ({ id }, context) =>
        this.admin.revokeEabKey(id, context),
      ),
    ]);
  }
}
