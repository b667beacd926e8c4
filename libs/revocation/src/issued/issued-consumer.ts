import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { CertificateIssued } from '@certlane/contracts';
import { CertlaneLogger, consumeOnce, LOGGER, MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { isRemoteCaIssued, parseIssuedEvent } from './issued-event';
import { IssuedRepository } from './issued.repository';

/** Durable JetStream consumer name, shared by every replica of the revocation service. */
export const ISSUED_CONSUMER = 'revocation-issued';

/** Told after an issued certificate has been committed (the OCSP responder). */
export interface IssuanceListener {
  issued(event: CertificateIssued): void;
}
export const ISSUANCE_LISTENERS = Symbol('ISSUANCE_LISTENERS');

/**
 * Keeps issued_certificates from `issuance.v1.certificate.issued` (ADR 0023). Idempotent like the
 * revocation consumer: the envelope id goes into the inbox in the same transaction, and the
 * (issuer, serial) primary key ignores a second event about the same certificate. Acknowledged
 * after the commit; an invalid payload is logged and acknowledged, and a remote CA's certificate
 * (no `ca_id`, ADR 0082) acknowledged without a trace: its own CA answers for it.
 */
@Injectable()
export class IssuedConsumer implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    private readonly repository: IssuedRepository,
    @Inject(ISSUANCE_LISTENERS) private readonly listeners: IssuanceListener[],
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.consume('issuance.v1.certificate.issued', ISSUED_CONSUMER, async (envelope) => {
      if (isRemoteCaIssued(envelope.data)) return;
      const event = parseIssuedEvent(envelope.data);
      if ('invalid' in event) {
        this.logger.error({ event_id: envelope.id, problem: event.invalid }, 'issued event refused');
        return;
      }
      let stored = false;
      await consumeOnce(
        this.repository.dataSource,
        'revocation',
        ISSUED_CONSUMER,
        envelope,
        async (manager) => {
          stored = await this.repository.insert(manager, event);
        },
      );
      if (stored) for (const listener of this.listeners) listener.issued(event);
    });
  }
}
