import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { auditSubject, SERVICE_NAMES } from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { auditEntryFromEnvelope } from './audit-entry';
import { AuditStore } from './audit-store';

/** Durable consumer name for one service's audit subject. */
export const auditConsumerName = (service: string) => `auth-audit-store-${service}`;

/**
 * Stores the audit records of every service: one durable JetStream consumer per
 * `<service>.v1.audit.recorded` subject, shared by the auth replicas. An event is acknowledged
 * once it is stored (or found stored already: the envelope id deduplicates redeliveries); a
 * failure leaves it unacknowledged, so it comes again.
 */
@Injectable()
export class AuditIngestion implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly store: AuditStore,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all(
      SERVICE_NAMES.map((service) =>
        this.bus.consume(auditSubject(service), auditConsumerName(service), async (envelope) => {
          await this.store.append([auditEntryFromEnvelope(service, envelope)]);
        }),
      ),
    );
  }
}
