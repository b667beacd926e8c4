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
import { CoalescedCounter } from './coalesced-counter';
import { CertificateProfiles } from '../certificate-profiles';
import { activeCaCertificates, issueAndRecord } from '../enrollment-issuance';
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
  private readonly ticks: CoalescedCounter<{ profileId: string; outcome: string }>;
  private readonly certificateProfiles: CertificateProfiles;

  constructor(
    @InjectDataSource('protocol-frontends') dataSource: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(outboxToken('protocol-frontends')) outbox: ServiceOutbox,
    @Inject(LOGGER) logger: CertlaneLogger,
  ) {
    const store = new EstProfileStore(dataSource);
    this.certificateProfiles = new CertificateProfiles(bus);
    this.ticks = new CoalescedCounter((batch) =>
      store.tickMany(batch.map(({ fields, count }) => ({ ...fields, count }))),
    );
    this.server = new EstServer({
      executor: dataSource,
      audit: async (records, tick) => {
        await dataSource.transaction(async (manager) => {
          for (const record of records) await outbox.audit(manager, record);
        });
        outbox.committed();
        await this.ticks.add(`${tick.profileId} ${tick.outcome}`, tick);
      },
      issue: ({ csrPem, profile }) =>
        issueAndRecord(bus, logger, {
          csrPem,
          issuerId: profile.issuer_id,
          source: 'EST',
          owner: profile.owner,
          team: profile.team,
          tags: { est_profile: profile.path_id },
        }),
      caCertificates: (profile) => activeCaCertificates(bus, profile.issuer_id),
      // csrattrs (RFC 7030 4.5) and the CSR policy: the certificate profile's rules (spec 2.9).
      certificateProfile: async (profile) =>
        profile.certificate_profile_id ? this.certificateProfiles.get(profile.certificate_profile_id) : null,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.handle('protocol-frontends.v1.est-http', (request) => this.forwarded(request));
  }

  async forwarded(request: EstHttpForwardRequest): Promise<EstHttpForwardAnswer> {
    return this.server.handle(request);
  }
}
