import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import {
  AuditAction,
  CertlaneError,
  ErrorCode,
  ListNotificationsRequest,
  NotificationDto,
  Page,
  RequestContext,
  resolvePage,
} from '@certlane/contracts';
import { DeliveryTrigger, nextDeliveryState } from '@certlane/notifier-domain';
import { MESSAGE_BUS, MessageBus, outboxToken, ServiceOutbox } from '@certlane/platform';
import { NotificationRepository, NotificationRow } from './notification.repository';
import { notifierAudit } from '../notifier-audit';

const iso = (value: Date | null | undefined): string | null => (value ? new Date(value).toISOString() : null);

export function notificationDto(row: NotificationRow): NotificationDto {
  return {
    id: row.id,
    event_type: row.event_type,
    severity: row.severity,
    title: row.title,
    certificate_id: row.certificate_id,
    notifier_id: row.notifier_id,
    status: row.status,
    retry_count: row.retry_count,
    next_retry_at: iso(row.next_retry_at),
    last_error: row.last_error,
    sent_at: iso(row.sent_at),
    created_at: iso(row.created_at)!,
    details: row.event.details,
  };
}

/** The notifier.v1.* subjects behind /api/v1/notifications (spec 4.8; ADR 0056). */
@Injectable()
export class NotificationHandlers implements OnApplicationBootstrap {
  /** The clock; tests move it. */
  now: () => Date = () => new Date();

  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly notifications: NotificationRepository,
    @Inject(outboxToken('notifier')) private readonly outbox: ServiceOutbox,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('notifier.v1.list-notifications', (request) => this.list(request)),
      this.bus.handle('notifier.v1.get-notification', async ({ id }) => notificationDto(await this.find(id))),
      this.bus.handle('notifier.v1.mark-notification-read', ({ id }, context) =>
        this.apply(id, { kind: 'mark_read' }, AuditAction.NotificationRead, context),
      ),
      this.bus.handle('notifier.v1.requeue-notification', ({ id }, context) =>
        this.apply(id, { kind: 'requeue' }, AuditAction.NotificationRequeued, context),
      ),
    ]);
  }

  private async list(request: ListNotificationsRequest): Promise<Page<NotificationDto>> {
    const page = resolvePage(request);
    const { rows, total } = await this.notifications.page(request, page.per_page, page.offset);
    return { data: rows.map(notificationDto), total, page: page.page, per_page: page.per_page };
  }

  private async find(id: string): Promise<NotificationRow> {
    const row = await this.notifications.get(this.notifications.dataSource, id);
    if (!row) throw new CertlaneError(ErrorCode.NotificationNotFound, `notification ${id} not found`);
    return row;
  }

  /** Requeue or mark read through the state machine, on the locked row, audited in the same transaction. */
  private async apply(
    id: string,
    trigger: DeliveryTrigger,
    action: string,
    context: RequestContext | undefined,
  ): Promise<NotificationDto> {
    const dto = await this.notifications.dataSource.transaction(async (manager) => {
      const row = await this.notifications.get(manager, id, true);
      if (!row) throw new CertlaneError(ErrorCode.NotificationNotFound, `notification ${id} not found`);
      const now = this.now();
      const outcome = nextDeliveryState(row, trigger, now);
      if (!outcome.ok) {
        const code =
          outcome.refusal === 'notification_not_dead'
            ? ErrorCode.NotificationNotDead
            : ErrorCode.NotificationNotReadable;
        throw new CertlaneError(code, `notification ${id} is ${row.status}`, { status: row.status });
      }
      await this.notifications.saveStates(manager, [{ id, state: outcome.state }], now);
      await this.outbox.audit(
        manager,
        notifierAudit(
          'notification',
          action,
          id,
          context,
          { from: row.status, to: outcome.state.status },
          'cert_lifecycle',
        ),
      );
      return notificationDto({ ...row, ...outcome.state });
    });
    this.outbox.committed();
    return dto;
  }
}
