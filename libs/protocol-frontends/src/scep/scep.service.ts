import { createHash } from 'node:crypto';
import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  CertlaneError,
  DEFAULT_ISSUER_ID,
  ErrorCode,
  readCrlInParts,
  ScepHttpForwardAnswer,
  ScepHttpForwardRequest,
} from '@certlane/contracts';
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
  ServiceOutbox,
  verifyClientCertificate,
} from '@certlane/platform';
import { CertificateProfiles } from '../certificate-profiles';
import { profileOutcomeMetrics } from '../profile-outcome-metrics';
import { ClientCertificateStatusService } from '../client-certificate-status.service';
import { activeCaCertificates, issueAndRecord } from '../enrollment-issuance';
import {
  ScepProfileStore,
  ScepPurged,
  ScepRetentionStore,
  ScepTransactionStore,
} from '@certlane/protocol-frontends-data-access';
import { ScepOutcomeRecord, ScepServer } from './scep-server';
import { RaKeyBox } from './scep-ra';
import { RetentionSchedule } from '../retention-schedule';

/** How often each replica looks whether the retention purge is due. */
const SWEEP_INTERVAL_MS = 10_000;

/**
 * The SCEP server of this process (ADR 0059): its stores on the service's DataSource, issuance
 * and the CA certificates over the bus (`issuance.v1.issue-and-record`, which also records the
 * certificate in the inventory with source SCEP and the profile's owner and team, ADR 0066, and
 * `issuance.v1.list-cas` of the profile's issuer), audit through the outbox; the gateway's
 * forwarded requests; and the retention purge of its transactions and GetCert's certificates
 * (ADR 0074), which every replica may run.
 */
@Injectable()
export class ScepService implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  readonly server: ScepServer;
  private readonly retention: RetentionSchedule<ScepPurged>;
  private timer?: NodeJS.Timeout;

  constructor(
    @InjectDataSource('protocol-frontends') dataSource: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(outboxToken('protocol-frontends')) outbox: ServiceOutbox,
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
    revocation: ClientCertificateStatusService,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    @Inject(METRICS) metrics: Metrics,
  ) {
    this.retention = new RetentionSchedule(
      { days: config.scep.retentionDays, intervalMs: config.scep.retentionIntervalMs },
      (cutoff) => new ScepRetentionStore(dataSource).purge(cutoff),
      (purged, cutoff) => {
        if (purged.transactions + purged.certificates + purged.notAfterRead > 0)
          this.logger.info(
            { ...purged, cutoff: cutoff.toISOString() },
            'SCEP records past their retention purged',
          );
      },
    );
    const certificateProfiles = new CertificateProfiles(bus);
    const countOutcome = profileOutcomeMetrics(metrics.registry, 'scep');
    // The outcomes of concurrent requests in one transaction: their issued transactions, one
    // statement of counter ticks and one of audit records (ADR 0066), so requests no longer queue
    // on the counter rows each transaction held until its commit.
    const outcomes = new GroupCommit<ScepOutcomeRecord>((batch) =>
      outbox.transaction(dataSource, async (manager) => {
        await new ScepTransactionStore(manager).recordIssuedMany(
          batch.flatMap((outcome) => (outcome.issued ? [outcome.issued] : [])),
        );
        await new ScepProfileStore(manager).tickMany(batch.flatMap((outcome) => outcome.ticks));
        await outbox.auditMany(
          manager,
          batch.flatMap((outcome) => (outcome.audit ? [outcome.audit] : [])),
        );
      }),
    );
    this.server = new ScepServer({
      executor: dataSource,
      raKeys: new RaKeyBox(config.configEncryptionKey),
      // `/scep-mtls`: the platform's mutual-TLS check against the profile's trust bundle (ADR 0061).
      verifyClientCertificate,
      clientRevocation: (fingerprint, leaf, issuers) => revocation.status.check(fingerprint, leaf, issuers),
      record: async (outcome) => {
        await outcomes.write(outcome);
        outcome.ticks.forEach(countOutcome);
      },
      issue: ({ csrPem, profile, transactionId, issuance, renewsCertificatePem }) =>
        issueAndRecord(bus, this.logger, {
          csrPem,
          ...issuance,
          ...(renewsCertificatePem ? { renewsCertificatePem } : {}),
          issuerId: profile.issuer_id,
          source: 'SCEP',
          owner: profile.owner,
          team: profile.team,
          tags: { scep_profile: profile.path_id, scep_transaction: transactionId.slice(0, 128) },
        }),
      // approval_required (ADR 0065): the CSR waits in a cert_issuance approval of issuance, one
      // per profile and transactionID; issuance issues it on approval and keeps it for pickup.
      approvals: {
        request: async ({
          csrPem,
          profile,
          transactionId,
          messageType,
          principal,
          issuance,
          renewsCertificatePem,
        }) => {
          const approval = await bus.request('issuance.v1.request-enrollment-approval', {
            source: 'SCEP',
            csr_pem: csrPem,
            // One per request: a resend finds it, and a renewal reusing its PKCSReq's
            // transactionID (scepclient) opens its own.
            reference_key: `scep:${profile.id}:${transactionId}:${messageType}:${createHash('sha256').update(csrPem).digest('base64url')}`,
            reference: { scep_profile: profile.path_id, transaction_id: transactionId.slice(0, 256) },
            requested_by: principal,
            ...(profile.issuer_id ? { issuer_id: profile.issuer_id } : {}),
            ...(profile.certificate_profile_id
              ? { certificate_profile_id: profile.certificate_profile_id }
              : {}),
            ...(profile.owner ? { owner_id: profile.owner } : {}),
            ...(profile.team ? { team_id: profile.team } : {}),
            ...(issuance.validityDays ? { validity_days: issuance.validityDays } : {}),
            ...(issuance.mustStaple ? { must_staple: true } : {}),
            ...(issuance.extendedKeyUsage ? { extended_key_usage: issuance.extendedKeyUsage } : {}),
            ...(renewsCertificatePem ? { renews_certificate_pem: renewsCertificatePem } : {}),
            tags: { scep_profile: profile.path_id, scep_transaction: transactionId.slice(0, 128) },
          });
          return { approvalId: approval.id };
        },
        outcome: (approvalId) => bus.request('issuance.v1.get-enrollment-approval', { id: approvalId }),
        // Rejected as its requester, which issuance lets withdraw its own request (as ACME does
        // for a deactivated account's orders); one already decided is left as it is.
        withdraw: async (approvalId, principal, reason) => {
          await bus
            .request(
              'issuance.v1.reject-approval',
              { id: approvalId, reason },
              { context: { actor_id: principal } },
            )
            .catch((error: unknown) => {
              if (error instanceof CertlaneError && error.code === ErrorCode.ApprovalNotPending) return;
              this.logger.warn(
                { approval_id: approvalId, err: error },
                'the approval of a SCEP request refused for its transactionID could not be withdrawn',
              );
            });
        },
      },
      // The CSR policy, validity, must-staple and approval of the certificate profile (spec 2.9).
      certificateProfile: async (profile) =>
        profile.certificate_profile_id ? certificateProfiles.get(profile.certificate_profile_id) : null,
      caCertificates: (profile) => activeCaCertificates(bus, profile.issuer_id),
      // GetCRL: the CRL of the profile's issuer's issuing CA, from the revocation service, in
      // parts (a CRL may be larger than one bus message).
      crl: async (profile) =>
        (
          await readCrlInParts((payload) => bus.request('revocation.v1.get-crl', payload), {
            issuer_id: profile.issuer_id ?? DEFAULT_ISSUER_ID,
          })
        ).der,
      // The device-state hook (ADR 0059): POST of who enrolls, `{"compliant": true}` lets it.
      deviceState: async (profile, claims) => {
        const response = await fetch(profile.device_state_url!, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            path_id: profile.path_id,
            sub: claims.sub,
            iss: claims.iss,
            jti: claims.jti,
          }),
          redirect: 'error',
          signal: AbortSignal.timeout(5_000),
        });
        if (!response.ok) return false;
        return ((await response.json()) as { compliant?: unknown }).compliant === true;
      },
    });
  }

  onModuleInit(): void {
    this.timer = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  async sweep(): Promise<void> {
    try {
      await this.retention.runWhenDue(new Date());
    } catch (error) {
      this.logger.warn({ err: error }, 'SCEP retention purge failed; the next sweep retries');
    }
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.handle('protocol-frontends.v1.scep-http', (request) => this.forwarded(request));
  }

  async forwarded(request: ScepHttpForwardRequest): Promise<ScepHttpForwardAnswer> {
    const answer = await this.server.handle({
      method: request.method,
      path: request.path,
      ...(request.query ? { query: request.query } : {}),
      ...(request.body_base64 ? { body: Buffer.from(request.body_base64, 'base64') } : {}),
      ...(request.client_certificates ? { clientCertificates: request.client_certificates } : {}),
    });
    return {
      status: answer.status,
      headers: answer.headers,
      ...(answer.body ? { body_base64: answer.body.toString('base64') } : {}),
    };
  }
}
