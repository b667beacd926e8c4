import { EventEnvelope, EventOf, EventSubject } from '@certlane/contracts';
import { addToOutbox, SqlExecutor } from '../messaging/outbox';
import { OutboxRelay } from '../messaging/outbox-relay';

/** What a service's code uses to emit durable events: write in the transaction, then kick the relay. */
export class ServiceOutbox {
  constructor(
    readonly schema: string,
    readonly relay: OutboxRelay,
  ) {}

  add<E extends EventSubject>(
    executor: SqlExecutor,
    subject: E,
    data: EventOf<E>,
    actorId?: string,
  ): Promise<EventEnvelope<EventOf<E>>> {
    return addToOutbox(executor, this.schema, subject, data, actorId);
  }

  /** Call after the transaction that wrote events has committed. */
  committed(): void {
    this.relay.kick();
  }
}
