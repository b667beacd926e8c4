import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { EstHttpForwardAnswer, EstHttpForwardRequest } from '@certlane/contracts';
import {
  CertlaneLogger,
  LOGGER,
  MESSAGE_BUS,
  MessageBus,
  outboxToken,
  ServiceOutbox,
} from '@certlane/platform';
import { EstProfileStore } from '@certlane/protocol-frontends-data-access';
import { EstServer } from './est-server';

/**
 * The EST server of this process (ADR 0058): its store on the service's DataSource, issuance and
 * the CA certificates over the bus (`issuance.v1.issue-certificate`, `issuance.v1.list-cas` of
 * the profile's issuer), issued certificates into the inventory (source EST), audit through the
 * outbox; and the gateway's forwarded requests.
 */
@Injectable()
export class EstService implements OnApplicationBootstrap {
  readonly server: EstServer;

  constructor(
    @InjectDataSource('protocol-frontends') dataSource: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(outboxToken('protocol-frontends')) outbox: ServiceOutbox,
    @Inject(LOGGER) logger: CertlaneLogger,
  ) {
    this.server = new EstServer({
      executor: dataSource,
      audit: async (records, tick) => {
        await dataSource.transaction(async (manager) => {
          for (const record of records) await outbox.audit(manager, record);
          await new EstProfileStore(manager).tick(tick.profileId, tick.outcome);
        });
        outbox.committed();
      },
      issue: async ({ csrPem, profile }) => {
        const issued = await bus.request('issuance.v1.issue-certificate', {
          csr_pem: csrPem,
          ...(profile.issuer_id ? { issuer_id: profile.issuer_id } : {}),
        });
        // Into the inventory with source EST (spec 4.11); the certificate is issued either way, so a
        // failed import is logged, not answered as a failed enrollment.
        await bus
          .request('issuance.v1.create-certificate', {
            certificate_pem: issued.full_pem,
            source: 'EST',
            ...(profile.owner ? { owner_id: profile.owner } : {}),
            ...(profile.team ? { team_id: profile.team } : {}),
            tags: { est_profile: profile.path_id },
          })
          .catch((error: unknown) =>
            logger.warn(
              { err: error, serial_hex: issued.serial_hex },
              'EST certificate not recorded in the inventory',
            ),
          );
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
      // csrattrs (RFC 7030 4.5) and the CSR policy: the certificate profile's rules (spec 2.9).
      certificateProfile: async (profile) =>
        profile.certificate_profile_id
          ? bus.request('issuance.v1.get-profile', { id: profile.certificate_profile_id })
          : null,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.handle('protocol-frontends.v1.est-http', (request) => this.forwarded(request));
  }

  async forwarded(request: EstHttpForwardRequest): Promise<EstHttpForwardAnswer> {
    return this.server.handle(request);
  }
}
