import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { EventEnvelope } from '@certlane/contracts';
import {
  fromCaExpiryWarning,
  fromCaRevoked,
  fromDiscoveryFound,
  fromExpiryWarning,
  fromHealthStatusChange,
  fromJobStatusChange,
  fromRevocation,
  NotificationEvent,
  needsCertificateLookup,
  planDeliveries,
  withCertificateAttributes,
} from '@certlane/notifier-domain';
import { CertlaneLogger, consumeManyOnce, LOGGER, MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { DeliverySweep } from '../delivery/delivery-sweep';
import { NotificationRepository } from '../notifications/notification.repository';
import { CertificateLookup } from './certificate-lookup';
import {
  parseCaExpiryWarning,
  parseCaRevoked,
  parseDiscoveryFound,
  parseExpiryWarning,
  parseHealthStatusChanged,
  parseJobStatusChanged,
  parseRevoked,
} from './event-parsers';

/** Durable JetStream consumers, shared by every replica of the notifier. */
export const NOTIFIER_CONSUMERS = {
  expiry: 'notifier-expiry-warning',
  revoked: 'notifier-certificate-revoked',
  jobs: 'notifier-job-status',
  health: 'notifier-health-status',
  discovery: 'notifier-discovery-found',
  caExpiry: 'notifier-ca-expiry-warning',
  caRevoked: 'notifier-ca-revoked',
} as const;

type Mapped = NotificationEvent | null | { invalid: string };

/**
 * Expiry warnings taken from JetStream and stored together (one transaction, one INSERT): a
 * renewal sweep announces thousands at once (issue 22's benchmark).
 */
export const EXPIRY_WARNING_BATCH = 1000;

/**
 * Turns the other services' events into notifications (ADR 0056): each envelope id goes into the
 * inbox in the transaction that stores the planned notifications, and the notifications' dedup
 * keys absorb a second copy of the same fact, so a JetStream redelivery after a crash adds
 * nothing. Invalid payloads are logged and acknowledged.
 */
@Injectable()
export class NotificationEventConsumer implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    private readonly notifications: NotificationRepository,
    private readonly sweep: DeliverySweep,
    private readonly certificates: CertificateLookup,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.consumeBatch(
      'issuance.v1.certificate.expiry-warning',
      NOTIFIER_CONSUMERS.expiry,
      (envelopes) =>
        this.handleMany(NOTIFIER_CONSUMERS.expiry, envelopes, (envelope) => {
          const event = parseExpiryWarning(envelope.data);
          return 'invalid' in event ? event : fromExpiryWarning(event, new Date(envelope.occurred_at));
        }),
      EXPIRY_WARNING_BATCH,
    );
    await this.bus.consume('issuance.v1.certificate.revoked', NOTIFIER_CONSUMERS.revoked, (envelope) =>
      this.handle(NOTIFIER_CONSUMERS.revoked, envelope, () => {
        const event = parseRevoked(envelope.data);
        return 'invalid' in event ? event : fromRevocation(event);
      }),
    );
    await this.bus.consume('issuance.v1.job.status-changed', NOTIFIER_CONSUMERS.jobs, (envelope) =>
      this.handle(NOTIFIER_CONSUMERS.jobs, envelope, () => {
        const event = parseJobStatusChanged(envelope.data);
        return 'invalid' in event ? event : fromJobStatusChange(event);
      }),
    );
    await this.bus.consume(
      'health-monitor.v1.health-check.status-changed',
      NOTIFIER_CONSUMERS.health,
      (envelope) =>
        this.handle(NOTIFIER_CONSUMERS.health, envelope, () => {
          const event = parseHealthStatusChanged(envelope.data);
          return 'invalid' in event ? event : fromHealthStatusChange(event);
        }),
    );
    await this.bus.consume(
      'health-monitor.v1.discovered-certificate.found',
      NOTIFIER_CONSUMERS.discovery,
      (envelope) =>
        this.handle(NOTIFIER_CONSUMERS.discovery, envelope, () => {
          const event = parseDiscoveryFound(envelope.data);
          return 'invalid' in event ? event : fromDiscoveryFound(event);
        }),
    );
    await this.bus.consume('issuance.v1.ca.expiry-warning', NOTIFIER_CONSUMERS.caExpiry, (envelope) =>
      this.handle(NOTIFIER_CONSUMERS.caExpiry, envelope, () => {
        const event = parseCaExpiryWarning(envelope.data);
        return 'invalid' in event ? event : fromCaExpiryWarning(event, new Date(envelope.occurred_at));
      }),
    );
    await this.bus.consume('issuance.v1.ca.revoked', NOTIFIER_CONSUMERS.caRevoked, (envelope) =>
      this.handle(NOTIFIER_CONSUMERS.caRevoked, envelope, () => {
        const event = parseCaRevoked(envelope.data);
        return 'invalid' in event ? event : fromCaRevoked(event);
      }),
    );
  }

  private handle(consumer: string, envelope: EventEnvelope<unknown>, map: () => Mapped): Promise<void> {
    return this.handleMany(consumer, [envelope], map);
  }

  /**
   * Maps each event (invalid ones logged and dropped), then, in one transaction, records the
   * envelopes in the inbox and stores the planned notifications of those not seen before.
   */
  private async handleMany<T extends EventEnvelope<unknown>>(
    consumer: string,
    envelopes: readonly T[],
    map: (envelope: T) => Mapped,
  ): Promise<void> {
    const events = new Map<string, NotificationEvent>();
    for (const envelope of envelopes) {
      const mapped = map(envelope);
      if (mapped === null) continue;
      if ('invalid' in mapped) {
        this.logger.error(
          { event_id: envelope.id, subject: envelope.subject, problem: mapped.invalid },
          'event refused',
        );
        continue;
      }
      events.set(envelope.id, await this.withRoutingAttributes(mapped));
    }
    const wanted = envelopes.filter((envelope) => events.has(envelope.id));
    let stored = 0;
    await consumeManyOnce(
      this.notifications.dataSource,
      'notifier',
      consumer,
      wanted,
      async (manager, fresh) => {
        const batch = fresh.map((envelope) => events.get(envelope.id)!);
        const rules = await this.notifications.enabledRules(manager);
        const contacts = await this.notifications.contacts(
          manager,
          batch.map((event) => event.owner_id),
          batch.map((event) => event.team_id),
        );
        stored = await this.notifications.insertPlannedMany(
          manager,
          batch.map((event) => ({ event, plans: planDeliveries(rules, event, contacts) })),
        );
      },
    );
    if (stored > 0) this.sweep.kick();
  }

  /** Owner, team, environment and issuer of the event's certificate, for routing rules. */
  private async withRoutingAttributes(event: NotificationEvent): Promise<NotificationEvent> {
    if (!needsCertificateLookup(event)) return event;
    const certificate = await this.certificates.attributes(event.certificate_id!);
    return certificate ? withCertificateAttributes(event, certificate) : event;
  }
}
