import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { EstHttpForwardAnswer, EstHttpForwardRequest } from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus, outboxToken, ServiceOutbox } from '@certlane/platform';
import { EstServer } from './est-server';

/**
 * The EST server of this process (ADR 0060): its store on the service's DataSource, issuance and
 * the CA certificates over the bus (`issuance.v1.issue-certificate`, `issuance.v1.list-cas` of
 * the profile's issuer), audit through the outbox; and the gateway's forwarded requests.
 */
@Injectable()
export class EstService implements OnApplicationBootstrap {
  readonly server: EstServer;

  constructor(
    @InjectDataSource('protocol-frontends') dataSource: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(outboxToken('protocol-frontends')) outbox: ServiceOutbox,
  ) {
    this.server = new EstServer({
      executor: dataSource,
      audit: async (record) => {
        await dataSource.transaction((manager) => outbox.audit(manager, record));
        outbox.committed();
      },
      issue: async ({ csrPem, profile }) => {
        const issued = await bus.request('issuance.v1.issue-certificate', {
          csr_pem: csrPem,
          ...(profile.issuer_id ? { issuer_id: profile.issuer_id } : {}),
        });
        return { certificatePem: issued.certificate_pem };
      },
      caCertificates: async (profile) => {
        const page = await bus.request('issuance.v1.list-cas', {
          ...(profile.issuer_id ? { issuer_id: profile.issuer_id } : {}),
          per_page: 100,
        });
        const active = page.data.filter((ca) => ca.status === 'active' && ca.certificate_pem);
        // The issuing CA first (RFC 7030 4.1.3 lists the chain the client should trust).
        active.sort((a, b) => Number(b.issuing) - Number(a.issuing));
        return active.map((ca) => ca.certificate_pem!);
      },
      // The certificate profile's required attributes are not wired yet: csrattrs answers 204.
      requiredAttributes: async () => [],
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.handle('protocol-frontends.v1.est-http', (request) => this.forwarded(request));
  }

  async forwarded(request: EstHttpForwardRequest): Promise<EstHttpForwardAnswer> {
    return this.server.handle(request);
  }
}
