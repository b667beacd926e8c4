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
import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { AcmeOperations } from './acme-operations';

/**
 * The protocol-frontends.v1.acme-* subjects of ACME orders, validation attempts and early
 * renewal, of one certificate or of every certificate of an account or profile (issue 19 points
 * 5 and 10, ADR 0060 "Operations").
 */
@Injectable()
export class AcmeOperationsHandlers implements OnApplicationBootstrap {
  readonly operations: AcmeOperations;

  constructor(
    @InjectDataSource('protocol-frontends') dataSource: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
    @Inject(outboxToken('protocol-frontends')) outbox: ServiceOutbox,
  ) {
    this.operations = new AcmeOperations({
      executor: dataSource,
      transaction: (work) => outbox.transaction(dataSource, work),
      audit: async (executor, record) => {
        await outbox.audit(executor, record);
      },
      ...(config.acme.revocationExplanationUrl
        ? { revocationExplanationUrl: config.acme.revocationExplanationUrl }
        : {}),
      inventoryCertificate: async (id) => {
        const versions = await bus
          .request('issuance.v1.list-certificate-versions', { id, per_page: 1 })
          .catch((error: unknown) => {
            if (error instanceof CertlaneError && error.code === ErrorCode.CertificateNotFound) return null;
            throw error;
          });
        const latest = versions?.data[0];
        return latest ? { issuer_id: latest.issuer_id, serial_hex: latest.serial_number } : null;
      },
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('protocol-frontends.v1.acme-list-orders', (request) =>
        this.operations.listOrders(request),
      ),
      this.bus.handle('protocol-frontends.v1.acme-get-order', ({ id }) => this.operations.getOrder(id)),
      this.bus.handle('protocol-frontends.v1.acme-list-validation-attempts', (request) =>
        this.operations.listValidationAttempts(request),
      ),
      this.bus.handle('protocol-frontends.v1.acme-renew-certificate-early', (request, context) =>
        this.operations.renewEarly(request, context),
      ),
      this.bus.handle('protocol-frontends.v1.acme-bulk-renew-certificates-early', (request, context) =>
        this.operations.renewEarlyAll(request, context),
      ),
    ]);
  }
}
