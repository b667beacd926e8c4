import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  MESSAGE_BUS,
  MessageBus,
  outboxToken,
  ServiceOutbox,
} from '@certlane/platform';
import { inventoryReferenceCheck } from '../inventory-references';
import { ScepProfileAdmin } from './scep-profile-admin';
import { RaKeyBox } from './scep-ra';
import { ScepService } from './scep.service';

/** The protocol-frontends.v1.scep-* subjects behind /api/v1/admin/scep/* (spec 4.9; ADR 0059). */
@Injectable()
export class ScepAdminHandlers implements OnApplicationBootstrap {
  readonly admin: ScepProfileAdmin;

  constructor(
    @InjectDataSource('protocol-frontends') dataSource: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(outboxToken('protocol-frontends')) outbox: ServiceOutbox,
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
    private readonly scep: ScepService,
  ) {
    this.admin = new ScepProfileAdmin({
      executor: dataSource,
      transaction: (work) => outbox.transaction(dataSource, work),
      audit: async (executor, record) => {
        await outbox.audit(executor, record);
      },
      raKeys: new RaKeyBox(config.configEncryptionKey),
      references: inventoryReferenceCheck(bus),
      issueRaCertificate: async ({ csrPem, issuerId, validityDays }) =>
        (
          await bus.request('issuance.v1.issue-certificate', {
            csr_pem: csrPem,
            validity_days: validityDays,
            ...(issuerId ? { issuer_id: issuerId } : {}),
          })
        ).certificate_pem,
    });
  }

  /** A change answered, after this process's SCEP server forgets the profiles it cached. */
  private async changed<T>(change: Promise<T>): Promise<T> {
    try {
      return await change;
    } finally {
      this.scep.server.forget();
    }
  }

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('protocol-frontends.v1.scep-list-profiles', () => this.admin.list()),
      this.bus.handle('protocol-frontends.v1.scep-create-profile', (request, context) =>
        this.changed(this.admin.create(request, context)),
      ),
      this.bus.handle('protocol-frontends.v1.scep-update-profile', (request, context) =>
        this.changed(this.admin.update(request, context)),
      ),
      this.bus.handle('protocol-frontends.v1.scep-delete-profile', ({ id }, context) =>
        this.changed(this.admin.delete(id, context)),
      ),
      this.bus.handle('protocol-frontends.v1.scep-rotate-ra', ({ id }, context) =>
        this.changed(this.admin.rotateRa(id, context)),
      ),
      this.bus.handle('protocol-frontends.v1.scep-mdm-stats', () => this.admin.mdmStats()),
      this.bus.handle('protocol-frontends.v1.scep-mdm-reload-trust', ({ path_id }, context) =>
        this.changed(this.admin.reloadMdmTrust(path_id, context)),
      ),
    ]);
  }
}
