import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditRecord, EstHttpForwardAnswer, EstHttpForwardRequest } from '@certlane/contracts';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  CertlaneLogger,
  GroupCommit,
  LOGGER,
  MESSAGE_BUS,
  MessageBus,
  METRICS,
  Metrics,
  outboxToken,
  readTlsMaterial,
  ServiceOutbox,
} from '@certlane/platform';
import { EstProfileStore } from '@certlane/protocol-frontends-data-access';
import { CoalescedCounter } from './coalesced-counter';
import { CertificateProfiles } from '../certificate-profiles';
import { profileOutcomeMetrics } from '../profile-outcome-metrics';
import { activeCaCertificates, issueAndRecord } from '../enrollment-issuance';
import { ClientCertificateStatusService } from '../client-certificate-status.service';
import { EstKekBox } from './est-kek-box';
import { EstServer } from './est-server';
import { keygenSignerOf } from './est-server-keygen';

/**
 * The EST server of this process (ADR 0058): its store on the service's DataSource, issuance and
 * the CA certificates over the bus (`issuance.v1.issue-and-record`, which also records the
 * certificate in the inventory with source EST, and `issuance.v1.list-cas` of the profile's
 * issuer), audit through the outbox; and the gateway's forwarded requests.
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
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
    revocation: ClientCertificateStatusService,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    @Inject(METRICS) metrics: Metrics,
  ) {
    const store = new EstProfileStore(dataSource);
    const countOutcome = profileOutcomeMetrics(metrics.registry, 'est');
    this.certificateProfiles = new CertificateProfiles(bus);
    this.ticks = new CoalescedCounter((batch) =>
      store.tickMany(batch.map(({ fields, count }) => ({ ...fields, count }))),
    );
    // The audit records of concurrent outcomes: one statement per batch (ADR 0066).
    const audits = new GroupCommit<readonly AuditRecord[]>((batch) =>
      outbox.auditCommitted(
        dataSource,
        batch.flatMap((records) => [...records]),
      ),
    );
    this.server = new EstServer({
      executor: dataSource,
      audit: async (records, tick) => {
        await Promise.all([audits.write(records), this.ticks.add(`${tick.profileId} ${tick.outcome}`, tick)]);
        countOutcome(tick);
      },
      issue: ({ csrPem, profile, mustStaple, validityDays, extendedKeyUsage, renewsCertificatePem }) =>
        issueAndRecord(bus, this.logger, {
          csrPem,
          mustStaple,
          ...(validityDays ? { validityDays } : {}),
          ...(extendedKeyUsage ? { extendedKeyUsage } : {}),
          ...(renewsCertificatePem ? { renewsCertificatePem } : {}),
          issuerId: profile.issuer_id,
          source: 'EST',
          owner: profile.owner,
          team: profile.team,
          tags: { est_profile: profile.path_id },
        }),
      // requires_approval (RFC 7030 4.2.3, ADR 0065): the CSR waits in a cert_issuance approval of
      // issuance, one per request (reference key); issuance issues it on approval and keeps it for pickup.
      approval: async ({
        csrPem,
        profile,
        referenceKey,
        reference,
        principal,
        mustStaple,
        validityDays,
        extendedKeyUsage,
        renewsCertificatePem,
      }) => {
        const approval = await bus.request('issuance.v1.request-enrollment-approval', {
          source: 'EST',
          csr_pem: csrPem,
          reference_key: referenceKey,
          reference,
          requested_by: principal,
          ...(profile.issuer_id ? { issuer_id: profile.issuer_id } : {}),
          ...(profile.certificate_profile_id
            ? { certificate_profile_id: profile.certificate_profile_id }
            : {}),
          ...(profile.owner ? { owner_id: profile.owner } : {}),
          ...(profile.team ? { team_id: profile.team } : {}),
          tags: { est_profile: profile.path_id },
          ...(validityDays ? { validity_days: validityDays } : {}),
          ...(mustStaple ? { must_staple: true } : {}),
          ...(extendedKeyUsage ? { extended_key_usage: extendedKeyUsage } : {}),
          ...(renewsCertificatePem ? { renews_certificate_pem: renewsCertificatePem } : {}),
        });
        // Undecided: no second round trip; decided, the outcome (issuing an approved one not yet issued).
        if (approval.status === 'pending' && approval.enrollment?.state === 'pending')
          return { approvalId: approval.id, state: 'pending', certificatePem: null, reason: null };
        const outcome = await bus.request('issuance.v1.get-enrollment-approval', { id: approval.id });
        return {
          approvalId: outcome.approval_id,
          state: outcome.state,
          certificatePem: outcome.certificate_pem,
          reason: outcome.reason,
        };
      },
      caCertificates: (profile) => activeCaCertificates(bus, profile.issuer_id),
      // csrattrs (RFC 7030 4.5) and the CSR policy: the certificate profile's rules (spec 2.9).
      certificateProfile: async (profile) =>
        profile.certificate_profile_id ? this.certificateProfiles.get(profile.certificate_profile_id) : null,
      // RFC 7030 4.4.2: the EST server signs the keys it generates, with its TLS certificate and
      // key, read again on each use so a renewed certificate is picked up.
      keygenSigner: async () => keygenSignerOf(readTlsMaterial(config.tls)),
      keyEncryptionKeys: new EstKekBox(config.configEncryptionKey),
      clientRevocation: (fingerprint, leaf, issuers) => revocation.status.check(fingerprint, leaf, issuers),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.handle('protocol-frontends.v1.est-http', (request) => this.forwarded(request));
  }

  async forwarded(request: EstHttpForwardRequest): Promise<EstHttpForwardAnswer> {
    return this.server.handle(request);
  }
}
