import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { CertificateRevoked, EventEnvelope } from '@certlane/contracts';
import { consumeOnce, LOGGER, CertlaneLogger, MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { IssuedSerials } from '../issued/issued-serials';
import { RevocationRepository } from './revocation.repository';
import { parseRevokedEvent } from './revoked-event';

/** Durable JetStream consumer name, shared by every replica of the revocation service. */
export const REVOCATION_CONSUMER = 'revocation-revocations';

/**
 * Told after a revocation has been committed (the CRL and OCSP publishers), with the CA that
 * issued the certificate when known (null: not known yet, resolved later by the CRL sweep).
 */
export interface RevocationListener {
  revoked(event: CertificateRevoked, caId?: string | null): void;
}
export const REVOCATION_LISTENERS = Symbol('REVOCATION_LISTENERS');

/**
 * Keeps the revocations table from `issuance.v1.certificate.revoked`. Idempotent twice over: the
 * envelope id goes into the inbox in the same transaction (a redelivery is skipped), and the
 * (issuer, serial) primary key ignores a second event about the same certificate. Listeners are
 * told after the commit, so what they publish is what a restart would rebuild.
 */
@Injectable()
export class RevocationConsumer implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    private readonly repository: RevocationRepository,
    private readonly issued: IssuedSerials,
    @Inject(REVOCATION_LISTENERS) private readonly listeners: RevocationListener[],
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.consume('issuance.v1.certificate.revoked', REVOCATION_CONSUMER, async (envelope) => {
      const event = parseRevokedEvent(envelope.data);
      if ('invalid' in event) {
        // Redelivering it would not make it valid: log and acknowledge.
        this.logger.error({ event_id: envelope.id, problem: event.invalid }, 'revocation event refused');
        return;
      }
      const change =
        event.reason === 'removeFromCRL'
          ? await this.releaseHold(envelope, event)
          : await this.record(envelope, event);
      if (!change) return;
      this.logger.info(
        {
          issuer_id: event.issuer_id,
          ca_id: change.caId,
          serial_hex: event.serial_hex,
          reason: event.reason,
        },
        event.reason === 'removeFromCRL' ? 'certificate hold released' : 'certificate revocation recorded',
      );
      for (const listener of this.listeners) listener.revoked(event, change.caId);
    });
  }

  /** Stores a revocation with the CA that issued it; undefined when it was already stored. */
  private async record(
    envelope: EventEnvelope<unknown>,
    event: CertificateRevoked,
  ): Promise<{ caId: string | null } | undefined> {
    // Which CA issued it (its CRL lists it): known here, or asked of issuance. Unreachable:
    // stored without a CA and resolved by the CRL sweep, so the stream never waits on issuance.
    const caId = await this.issued.caOf(event.issuer_id, event.serial_hex).then(
      (ca) => ca ?? '',
      (error: unknown) => {
        this.logger.warn({ err: error, issuer_id: event.issuer_id }, 'CA of a revoked serial not known yet');
        return null;
      },
    );
    let stored = false;
    await consumeOnce(
      this.repository.dataSource,
      'revocation',
      REVOCATION_CONSUMER,
      envelope,
      async (manager) => {
        stored = await this.repository.insert(manager, envelope.id, event, caId);
      },
    );
    return stored ? { caId } : undefined;
  }

  /**
   * removeFromCRL (RFC 5280 5.3.1, ADR 0037): the serial's certificateHold is dropped, so the
   * listeners rebuild the CRL without it and answer good in OCSP. A serial not on hold is left
   * alone (issuance releases only holds; a revocation for another reason is final). This
   * consumer takes one message at a time, so a hold and its release are applied in order.
   */
  private async releaseHold(
    envelope: EventEnvelope<unknown>,
    event: CertificateRevoked,
  ): Promise<{ caId: string | null } | undefined> {
    let released: { ca_id: string | null } | undefined;
    const fresh = await consumeOnce(
      this.repository.dataSource,
      'revocation',
      REVOCATION_CONSUMER,
      envelope,
      async (manager) => {
        released = await this.repository.releaseHold(manager, event);
      },
    );
    if (!fresh) return undefined;
    if (!released) {
      this.logger.warn(
        { issuer_id: event.issuer_id, serial_hex: event.serial_hex },
        'removeFromCRL for a serial not on hold; nothing changed',
      );
      return undefined;
    }
    return { caId: released.ca_id };
  }
}
