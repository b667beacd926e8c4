import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { Metrics, METRICS } from '@certlane/platform';
import { Gauge } from 'prom-client';
import { NotificationRepository } from '../notifications/notification.repository';

/** Spec 6.4: `service_notification_dead_total`, the dead notifications now, read at scrape time. */
@Injectable()
export class DeadNotificationGauge implements OnModuleInit {
  constructor(
    @Inject(METRICS) private readonly metrics: Metrics,
    private readonly notifications: NotificationRepository,
  ) {}

  onModuleInit(): void {
    const notifications = this.notifications;
    new Gauge({
      name: 'service_notification_dead_total',
      help: 'Notifications that failed their 5 delivery attempts and wait for a requeue',
      registers: [this.metrics.registry],
      async collect() {
        this.set(await notifications.deadCount());
      },
    });
  }
}
