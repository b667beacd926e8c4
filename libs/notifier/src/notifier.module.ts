import { DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@certlane/platform';
import { DeadNotificationGauge } from './delivery/dead-gauge';
import { DeliverySweep } from './delivery/delivery-sweep';
import { NotifierThrottle } from './delivery/notifier-throttle';
import { CertificateLookup } from './events/certificate-lookup';
import { NotificationEventConsumer } from './events/event-consumer';
import { NotificationHandlers } from './notifications/notification.handlers';
import { NotificationRepository } from './notifications/notification.repository';
import { NotifierDirectory } from './notifiers/notifier.directory';
import { NotifierHandlers } from './notifiers/notifier.handlers';
import { RoutingRuleHandlers } from './notifiers/routing-rule.handlers';
import { ContactHandlers } from './notifiers/contact.handlers';
import { DigestHandlers } from './digest/digest.handlers';
import { DigestLoop } from './digest/digest-loop';
import { DigestService } from './digest/digest.service';

/**
 * The notifier service (ADR 0056): turns certificate, renewal, revocation and deployment events
 * into notifications routed by rules, and delivers them through notifiers with retry and
 * dead-letter handling (spec 3).
 */
@Module({})
export class NotifierModule {
  static forRoot(): DynamicModule {
    return {
      module: NotifierModule,
      imports: [ServiceCoreModule.forService({ service: 'notifier' })],
      providers: [
        NotificationRepository,
        NotifierDirectory,
        NotifierThrottle,
        DeliverySweep,
        CertificateLookup,
        NotificationEventConsumer,
        DeadNotificationGauge,
        NotificationHandlers,
        NotifierHandlers,
        RoutingRuleHandlers,
        ContactHandlers,
        DigestService,
        DigestHandlers,
        DigestLoop,
      ],
    };
  }
}
