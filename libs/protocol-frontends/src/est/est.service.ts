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
import { CertificateProfileRules } from '@certlane/protocol-frontends-domain';
import { CoalescedCounter } from './coalesced-counter';
import { EstServer } from './est-server';

const CERTIFICATE_PROFILE_TTL_MS = 1_000;
const CERTIFICATE_PROFILES_KEPT = 256;

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
  private readonly certificateProfiles = new Map<
    string,
    { at: number; rules: Promise<CertificateProfileRules> }
  >();

  constructor(
    @InjectDataSource('protocol-frontends') dataSource: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(outboxToken('protocol-frontends')) outbox: ServiceOutbox,
    @Inject(LOGGER) logger: CertlaneLogger,
  ) {
    const store = new EstProfileStore(dataSource);
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
        profile.certificate_profile_id ? this.certificateProfile(profile.certificate_profile_id) : null,
    });
  }

  /**
   * A certificate profile's rules, read from issuance at most once a second per replica (ADR 0061):
   * every enrollment needs them, and concurrent requests share one read.
   */
  private certificateProfile(id: string): Promise<CertificateProfileRules> {
    const now = Date.now();
    const cached = this.certificateProfiles.get(id);
    if (cached && now - cached.at < CERTIFICATE_PROFILE_TTL_MS) return cached.rules;
    if (this.certificateProfiles.size >= CERTIFICATE_PROFILES_KEPT) this.certificateProfiles.clear();
    const rules = this.bus.request('issuance.v1.get-profile', { id });
    this.certificateProfiles.set(id, { at: now, rules });
    rules.catch(() => this.certificateProfiles.delete(id));
    return rules;
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.handle('protocol-frontends.v1.est-http', (request) => this.forwarded(request));
  }

  async forwarded(request: EstHttpForwardRequest): Promise<EstHttpForwardAnswer> {
    return this.server.handle(request);
  }
}
