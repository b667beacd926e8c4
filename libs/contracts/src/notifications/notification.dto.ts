import { IsIn, IsOptional, IsString, IsUUID, Matches, MaxLength } from 'class-validator';
import { PageQuery } from '../pagination/page';

/** Delivery states of a notification (spec 2.11, 3). */
export const NOTIFICATION_STATUS_VALUES = ['pending', 'sent', 'failed', 'dead', 'read'] as const;
export type NotificationStatusValue = (typeof NOTIFICATION_STATUS_VALUES)[number];

/** GET /api/v1/notifications: newest first, filtered by status, event type or certificate. */
export class ListNotificationsRequest extends PageQuery {
  @IsOptional()
  @IsIn(NOTIFICATION_STATUS_VALUES as unknown as string[], {
    message: `status must be one of ${NOTIFICATION_STATUS_VALUES.join(', ')}`,
  })
  status?: NotificationStatusValue;

  @IsOptional()
  @IsString()
  @Matches(/^[a-z]+\.[a-z_]+$/, { message: 'event_type must be an event type such as certificate.expiring' })
  event_type?: string;

  @IsOptional()
  @IsString()
  @MaxLength(255)
  certificate_id?: string;
}

export class NotificationIdRequest {
  @IsUUID('4', { message: 'id must be a notification id (UUID)' })
  id!: string;
}

/** A notification as the API shows it (docs/notifications.md). */
export interface NotificationDto {
  id: string;
  event_type: string;
  severity: 'info' | 'warning' | 'critical';
  title: string;
  certificate_id: string | null;
  notifier_id: string;
  status: NotificationStatusValue;
  retry_count: number;
  next_retry_at: string | null;
  last_error: string | null;
  sent_at: string | null;
  created_at: string;
  details: Record<string, string | number | null>;
}
