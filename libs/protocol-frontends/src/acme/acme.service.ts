import { X509Certificate } from 'node:crypto';
import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { AcmeHttpForwardAnswer, AcmeHttpForwardRequest, IssuedCertificateDto } from '@certlane/contracts';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  CertlaneLogger,
  LOGGER,
  MESSAGE_BUS,
  MessageBus,
  Metrics,
  METRICS,
  outboxToken,
  ServiceOutbox,
} from '@certlane/platform';
import {
  AcmePurged,
  AcmeRetentionStore,
  NonceStore,
  OrderStore,
  poolExecutor,
  RateLimitStore,
  transactionExecutor,
} from '@certlane/protocol-frontends-data-access';
import { withTrailingNewline } from '@certlane/pki';
import { AcmeProblem, finalizeAbandonedAfterMs } from '@certlane/protocol-frontends-domain';
import { AcmeServer } from './acme-server';
import { parseAcmeBody } from './acme-body';
import { answerOnTheWire } from './acme-http';
import { activeCaCertificates, recordedWithoutUnknownOwner } from '../enrollment-issuance';
import { CertificateProfiles } from '../certificate-profiles';
import { EabKeyBox } from './eab-key-box';
import { approvalWithdrawal } from './account-deactivation';
import { validateDns01, validateDnsPersist01 } from './dns01-validator';
import { validateHttp01 } from './http01-validator';
import { validateTlsAlpn01 } from './tls-alpn01-validator';
import { caaChecker } from './caa-checker';
import { acmeMetrics } from './acme-metrics';
import { RetentionSchedule } from '../retention-schedule';

const SWEEP_INTERVAL_MS = 10_000;

/**
 * The ACME server of this process: its stores on the service's DataSource, issuance over the bus,
 * http-01 validation on SERVICE_ACME_HTTP01_PORT, dns-01 through SERVICE_ACME_DNS_RESOLVERS, and one sweep (expiry, spent nonces, validations
 * a lost replica left, the retention purge of ADR 0073) that every replica may run: each step is a
 * conditional statement.
 */
@Injectable()
export class AcmeService implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  readonly server: AcmeServer;
  private timer?: NodeJS.Timeout;
  private readonly retention: RetentionSchedule<AcmePurged>;
  /** How long an order may stay processing (ADR 0053 amendment, tenth stop). */
  private readonly abandonAfterMs: number;

  constructor(
    @InjectDataSource('protocol-frontends') private readonly dataSource: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    @Inject(outboxToken('protocol-frontends')) outbox: ServiceOutbox,
    @Inject(METRICS) metrics: Metrics,
  ) {
    this.abandonAfterMs = finalizeAbandonedAfterMs(config.nats.requestTimeoutMs);
    this.retention = new RetentionSchedule(
      { days: config.acme.retentionDays, intervalMs: config.acme.retentionIntervalMs },
      (cutoff) => new AcmeRetentionStore(dataSource).purge(cutoff),
      (purged, cutoff) => {
        if (purged.orders + purged.certificates + purged.authorizations + purged.attempts > 0)
          this.logger.info(
            { ...purged, cutoff: cutoff.toISOString() },
            'ACME records past their retention purged',
          );
      },
    );
    const certificateProfiles = new CertificateProfiles(bus);
    this.server = new AcmeServer({
      executor: poolExecutor(dataSource),
      transaction: async (work) => {
        let wrote = false;
        const result = await dataSource.transaction(async (manager) => {
          const executor = transactionExecutor(manager);
          const answer = await work(executor);
          wrote = outbox.wroteThrough(executor);
          return answer;
        });
        if (wrote) outbox.committed();
        return result;
      },
      audit: (executor, record) => outbox.audit(executor, record),
      auditPart: (statement, condition, record) =>
        statement.add(outbox.auditPart([record], (json) => statement.value(json), condition)),
      committed: () => outbox.committed(),
      issuerId: config.acme.issuerId,
      newOrdersPerHour: config.acme.newOrdersPerHour,
      newAccountsPerIpPerHour: config.acme.newAccountsPerIpPerHour,
      newOrdersPerIpPerHour: config.acme.newOrdersPerIpPerHour,
      failedValidationsPerHour: config.acme.failedValidationsPerHour,
      challengeAnswerWaitMs: config.acme.challengeAnswerWaitMs,
      eabKeys: new EabKeyBox(config.configEncryptionKey),
      externalAccountRequired: config.acme.externalAccountRequired,
      ...(config.acme.termsOfServiceUrl ? { termsOfService: config.acme.termsOfServiceUrl } : {}),
      termsOfServiceReagreement: config.acme.termsOfServiceReagreement,
      ...(config.acme.websiteUrl ? { website: config.acme.websiteUrl } : {}),
      ...(config.acme.revocationExplanationUrl
        ? { revocationExplanationUrl: config.acme.revocationExplanationUrl }
        : {}),
      // Always there: a profile may name CAA identities of its own when the server names none.
      caa: {
        identities: config.acme.caaIdentities,
        check: caaChecker({ resolvers: config.acme.dnsResolvers, timeoutMs: 5_000 }),
      },
      issuer: {
        // Issued and recorded in the inventory with source ACME (spec 4.11) in one request, tagged
        // with the ACME profile; a renewal is stored as the next version of what it replaces.
        issueAndRecord: (input) =>
          recordedWithoutUnknownOwner(
            (withOwnerAndTeam) =>
              bus
                .request('issuance.v1.issue-and-record', {
                  csr_pem: input.csrPem,
                  sans: input.certified.subjectAltNames,
                  subject_common_name: input.certified.commonName,
                  ...(input.issuerId ? { issuer_id: input.issuerId } : {}),
                  ...(input.validityDays ? { validity_days: input.validityDays } : {}),
                  ...(input.notBefore ? { not_before: input.notBefore.toISOString() } : {}),
                  ...(input.notAfter ? { not_after: input.notAfter.toISOString() } : {}),
                  ...(input.mustStaple ? { must_staple: true } : {}),
                  ...(input.extendedKeyUsage ? { extended_key_usage: input.extendedKeyUsage } : {}),
                  source: 'ACME',
                  ...(input.versionOf ? { version_of: input.versionOf } : {}),
                  ...(withOwnerAndTeam && input.owner ? { owner_id: input.owner } : {}),
                  ...(withOwnerAndTeam && input.team ? { team_id: input.team } : {}),
                  tags: { acme_profile: input.profileId },
                })
                .then(withAlternateChains),
            () =>
              this.logger.warn(
                { owner: input.owner, team: input.team, profile: input.profileId },
                'ACME certificate recorded without its owner and team: the inventory no longer knows them',
              ),
          ),
        certificateProfile: (id) => certificateProfiles.get(id),
        revoke: async ({ issuerId, serialHex, reason }) => {
          const revoked = await bus.request('issuance.v1.revoke-certificate', {
            issuer_id: issuerId,
            serial_hex: serialHex,
            reason: reason as never,
          });
          return {
            alreadyRevoked: revoked.already_revoked,
            reason: revoked.reason,
            revokedAt: new Date(revoked.revoked_at),
          };
        },
      },
      // A certificate profile requiring approval (ADR 0065, 0068 amendment): the finalize's CSR
      // waits in an enrollment approval of issuance, one per order; issuance issues it on
      // approval and records it in the inventory, and the order's poll picks it up.
      approvals: {
        withdraw: approvalWithdrawal(bus, this.logger),
        request: async (input) => {
          const approval = await bus.request('issuance.v1.request-enrollment-approval', {
            source: 'ACME',
            csr_pem: input.csrPem,
            sans: input.certified.subjectAltNames,
            subject_common_name: input.certified.commonName,
            reference_key: `acme:${input.orderId}`,
            reference: { acme_profile: input.profileId, order_id: input.orderId },
            requested_by: `acme-account:${input.accountId}`,
            ...(input.issuerId ? { issuer_id: input.issuerId } : {}),
            certificate_profile_id: input.certificateProfileId,
            ...(input.owner ? { owner_id: input.owner } : {}),
            ...(input.team ? { team_id: input.team } : {}),
            tags: { acme_profile: input.profileId },
            ...(input.validityDays ? { validity_days: input.validityDays } : {}),
            ...(input.notBefore ? { not_before: input.notBefore.toISOString() } : {}),
            ...(input.notAfter ? { not_after: input.notAfter.toISOString() } : {}),
            ...(input.mustStaple ? { must_staple: true } : {}),
            ...(input.extendedKeyUsage ? { extended_key_usage: input.extendedKeyUsage } : {}),
            ...(input.versionOf ? { version_of: input.versionOf } : {}),
            expires_at: input.expiresAt.toISOString(),
          });
          return { approvalId: approval.id };
        },
        outcome: async (approvalId) => {
          const outcome = await bus.request('issuance.v1.get-enrollment-approval', { id: approvalId });
          if (outcome.state === 'pending') return { state: 'pending' };
          if (outcome.state !== 'issued') return { state: outcome.state, reason: outcome.reason };
          // The chain issuance issued it with (its alternates too), as without approval; for an
          // enrollment issued before issuance kept it, the issuer's active CAs, issuing CA first.
          const leaf = withTrailingNewline(outcome.certificate_pem!);
          const chain =
            outcome.chain_pem ??
            (await activeCaCertificates(bus, outcome.issuer_id)).map(withTrailingNewline).join('');
          return {
            state: 'issued',
            certificate: {
              issuer_id: outcome.issuer_id!,
              serial_hex: outcome.serial_hex!,
              full_pem: leaf + chain,
              not_after: new Date(new X509Certificate(leaf).validTo).toISOString(),
              ...(outcome.alternate_chains_pem.length
                ? { alternate_full_pems: outcome.alternate_chains_pem.map((alternate) => leaf + alternate) }
                : {}),
            },
            inventoryId: outcome.certificate_id,
          };
        },
      },
      validate: async (challenge, authorization, keyAuth, { issuerDomainNames, account }) => {
        const identifier = { type: authorization.identifier_type, value: authorization.identifier_value };
        if (challenge.type === 'http-01')
          return validateHttp01(identifier, challenge.token, keyAuth, {
            port: config.acme.http01Port,
            timeoutMs: 10_000,
          });
        if (challenge.type === 'dns-01')
          return validateDns01(identifier, keyAuth, {
            resolvers: config.acme.dnsResolvers,
            timeoutMs: 5_000,
          });
        if (challenge.type === 'dns-persist-01')
          return validateDnsPersist01(identifier, authorization, issuerDomainNames, account!, {
            resolvers: config.acme.dnsResolvers,
            timeoutMs: 5_000,
          });
        if (challenge.type === 'tls-alpn-01')
          return validateTlsAlpn01(identifier, keyAuth, {
            port: config.acme.tlsAlpn01Port,
            timeoutMs: 10_000,
          });
        return { ok: false, problem: unsupported(challenge.type) };
      },
      onBackgroundError: (error) => this.logger.error({ err: error }, 'ACME request failed'),
      observe: acmeMetrics(metrics.registry),
    });
  }

  onModuleInit(): void {
    this.timer = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  /** The gateway's forwarded `/acme/...` requests (split deployment, ADR 0053). */
  async onApplicationBootstrap(): Promise<void> {
    await this.bus.handle('protocol-frontends.v1.acme-http', (request) => this.forwarded(request));
  }

  async forwarded(request: AcmeHttpForwardRequest): Promise<AcmeHttpForwardAnswer> {
    const answer = await this.server.handle({
      method: request.method,
      path: request.path,
      origin: request.origin,
      body: parseAcmeBody(request.body_json),
      contentType: request.content_type,
      ...(request.accept ? { accept: request.accept } : {}),
      ...(request.client_ip ? { clientIp: request.client_ip } : {}),
    });
    const { body, ...wire } = answerOnTheWire(answer);
    if (body === undefined) return wire;
    return Buffer.isBuffer(body) ? { ...wire, body_base64: body.toString('base64') } : { ...wire, body };
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  async sweep(): Promise<void> {
    try {
      await new OrderStore(this.dataSource).expire(new Date());
      await new NonceStore(this.dataSource).prune();
      await new RateLimitStore(this.dataSource).prune(3600_000);
      await this.server.retryLostValidations();
      const abandoned = await this.server.settleProcessingOrders(new Date(), this.abandonAfterMs);
      if (abandoned.length > 0)
        this.logger.warn({ order_ids: abandoned }, 'ACME orders left processing ended invalid');
      await this.retention.runWhenDue(new Date());
    } catch (error) {
      this.logger.warn({ err: error }, 'ACME sweep failed; the next one retries');
    }
  }
}

/** A stored challenge of a type this server does not validate (none is offered). */
function unsupported(type: string): AcmeProblem {
  return new AcmeProblem('serverInternal', `${type} validation is not available`);
}

/** RFC 8555 7.4.2: the leaf with each chain issuance found to another trust anchor. */
function withAlternateChains<T extends IssuedCertificateDto>(
  issued: T,
): T & { alternate_full_pems?: string[] } {
  return issued.alternate_chains_pem?.length
    ? {
        ...issued,
        alternate_full_pems: issued.alternate_chains_pem.map((chain) => issued.certificate_pem + chain),
      }
    : issued;
}
