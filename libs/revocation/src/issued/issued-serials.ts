import { Inject, Injectable } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { canonicalSerial } from '../serials/canonical-serial';
import { parseIssuedEvent } from './issued-event';
import { IssuedRepository } from './issued.repository';

/**
 * Which CA of an issuer issued a serial (ADR 0023): the issued_certificates table the consumer of
 * `issuance.v1.certificate.issued` fills, and on a miss the issuance service itself
 * (`issuance.v1.get-issued-certificate`), whose answer is stored so it is asked once. Issuance
 * records a certificate before anyone holds it, so its answer is authoritative: a serial it does
 * not know was never issued. Concurrent misses for one serial share one request.
 */
@Injectable()
export class IssuedSerials {
  private readonly inFlight = new Map<string, Promise<string | null>>();

  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly repository: IssuedRepository,
  ) {}

  /** The issuing CA's id, or null when the issuer never issued the serial; throws when issuance is unreachable. */
  async caOf(issuerId: string, serialHex: string): Promise<string | null> {
    const serial = canonicalSerial(serialHex);
    const known = await this.repository.caOf(issuerId, serial);
    if (known !== undefined) return known;
    const key = `${issuerId} ${serial}`;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.ask(issuerId, serial).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async ask(issuerId: string, serial: string): Promise<string | null> {
    const { certificate } = await this.bus.request('issuance.v1.get-issued-certificate', {
      issuer_id: issuerId,
      serial_hex: serial,
    });
    if (!certificate) return null;
    const event = parseIssuedEvent(certificate);
    if ('invalid' in event) return null;
    await this.repository.insert(this.repository.dataSource.manager, event);
    return event.ca_id;
  }
}
