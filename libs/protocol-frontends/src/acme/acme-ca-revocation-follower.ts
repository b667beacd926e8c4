import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditAction, CaRevoked } from '@certlane/contracts';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  CertlaneLogger,
  consumeOnce,
  LOGGER,
  MESSAGE_BUS,
  MessageBus,
  outboxToken,
  ServiceOutbox,
} from '@certlane/platform';
import { AcmeOperationsStore, transactionExecutor } from '@certlane/protocol-frontends-data-access';
import { bulkEarlyRenewalWindow } from '@certlane/protocol-frontends-domain';

/** Durable JetStream consumer name, shared by every replica of protocol-frontends. */
export const ACME_CA_REVOCATION_CONSUMER = 'protocol-frontends-acme-ca-revocations';

/** Over how long the clients of a revoked CA's certificates are spread: they are broken already. */
const CA_REVOKED_RENEWAL_SPREAD_MS = 60 * 60_000;

/**
 * Follows `issuance.v1.ca.revoked` (ADR 0075): every live ACME certificate the revoked CA or a CA
 * below it issued (its renewal id starts with one of their key identifiers, RFC 9773 4.1) gets a
 * renewal window from
 * now over the next hour, with the configured revocation explanation, so ARI clients (certbot,
 * lego, Caddy...) renew at their next check instead of at two thirds of their lifetime. One audit
 * record with the count, in the same transaction; idempotent through the inbox.
 */
@Injectable()
export class AcmeCaRevocationFollower implements OnApplicationBootstrap {
  constructor(
    @InjectDataSource('protocol-frontends') private readonly dataSource: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    @Inject(outboxToken('protocol-frontends')) private readonly outbox: ServiceOutbox,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.consume('issuance.v1.ca.revoked', ACME_CA_REVOCATION_CONSUMER, async (envelope) => {
      const event = envelope.data;
      if (!isCaRevocation(event)) {
        this.logger.error({ event_id: envelope.id }, 'CA revocation event refused: malformed');
        return;
      }
      const window = bulkEarlyRenewalWindow(new Date(), CA_REVOKED_RENEWAL_SPREAD_MS);
      const explanation = this.config.acme.revocationExplanationUrl ?? null;
      const by = `ca.revoked:${event.ca_id}`;
      let moved = 0;
      await consumeOnce(
        this.dataSource,
        'protocol_frontends',
        ACME_CA_REVOCATION_CONSUMER,
        envelope,
        async (manager) => {
          const executor = transactionExecutor(manager);
          moved = await new AcmeOperationsStore(executor).renewEarlyAll(
            {
              issuerId: event.issuer_id,
              authorityKeyIds: event.key_identifiers.map((keyId) => Buffer.from(keyId, 'hex')),
            },
            window,
            explanation,
            by,
          );
          await this.outbox.audit(executor, {
            action: AuditAction.AcmeCertificatesBulkRenewEarly,
            event_category: 'cert_lifecycle',
            actor_id: envelope.actor_id ?? 'system',
            resource_type: 'acme_certificate',
            resource_id: 'bulk',
            outcome: 'success',
            details: {
              criteria: {
                issuer_id: event.issuer_id,
                ca_id: event.ca_id,
                retired_ca_ids: event.retired_ca_ids ?? [],
                reason: event.reason,
              },
              total_moved: moved,
              window: { start: window.start.toISOString(), end: window.end.toISOString() },
              explanation_url: explanation,
            },
          });
        },
      );
      this.outbox.committed();
      this.logger.info(
        { issuer_id: event.issuer_id, ca_id: event.ca_id, total_moved: moved },
        'ACME certificates of a revoked CA told to renew now',
      );
    });
  }
}

function isCaRevocation(data: unknown): data is CaRevoked {
  const event = data as Partial<Record<keyof CaRevoked, unknown>> | null;
  return (
    typeof event?.issuer_id === 'string' &&
    typeof event.ca_id === 'string' &&
    typeof event.serial_hex === 'string' &&
    Array.isArray(event.key_identifiers) &&
    event.key_identifiers.every(
      (keyId) => typeof keyId === 'string' && /^(?:[0-9a-f]{2}){1,64}$/.test(keyId),
    ) &&
    typeof event.reason === 'string' &&
    typeof event.revoked_at === 'string'
  );
}
