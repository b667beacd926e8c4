import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CertificateRevoked } from '@certlane/contracts';
import { CertlaneLogger, consumeOnce, LOGGER, MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { CertificateStore, transactionExecutor } from '@certlane/protocol-frontends-data-access';

/** Durable JetStream consumer name, shared by every replica of protocol-frontends. */
export const ACME_REVOCATION_CONSUMER = 'protocol-frontends-acme-revocations';

/**
 * Follows `issuance.v1.certificate.revoked` (ADR 0053 amendment): a serial revoked outside ACME (an
 * operator's revoke or bulk revoke in the inventory) marks the ACME certificate with that serial,
 * so its renewal-info suggests renewing now (RFC 9773 4.2) and revokeCert answers alreadyRevoked;
 * a released certificateHold unmarks it. Idempotent through the inbox; the durable consumer takes
 * one event at a time, so a hold and its release apply in order.
 */
@Injectable()
export class AcmeRevocationFollower implements OnApplicationBootstrap {
  constructor(
    @InjectDataSource('protocol-frontends') private readonly dataSource: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.consume('issuance.v1.certificate.revoked', ACME_REVOCATION_CONSUMER, async (envelope) => {
      const event = envelope.data;
      if (!isRevocation(event)) {
        // Redelivering it would not make it valid: log and acknowledge.
        this.logger.error(
          { event_id: envelope.id },
          'revocation event refused: not a certificate revocation',
        );
        return;
      }
      let changed = 0;
      await consumeOnce(
        this.dataSource,
        'protocol_frontends',
        ACME_REVOCATION_CONSUMER,
        envelope,
        async (manager) => {
          changed = await new CertificateStore(transactionExecutor(manager)).followIssuerRevocation(event);
        },
      );
      if (changed > 0)
        this.logger.info(
          { issuer_id: event.issuer_id, serial_hex: event.serial_hex, reason: event.reason },
          event.reason === 'removeFromCRL'
            ? 'ACME certificate no longer on hold'
            : 'ACME certificate marked revoked by its issuer',
        );
    });
  }
}

function isRevocation(data: unknown): data is CertificateRevoked {
  const event = data as Partial<Record<keyof CertificateRevoked, unknown>> | null;
  return (
    typeof event?.issuer_id === 'string' &&
    typeof event.serial_hex === 'string' &&
    typeof event.reason === 'string' &&
    typeof event.revoked_at === 'string' &&
    !Number.isNaN(Date.parse(event.revoked_at))
  );
}
