import { backoffMs, MAX_DELIVERY_ATTEMPTS, retryAfterMs } from './retry-backoff';

export const NOTIFICATION_STATUSES = ['pending', 'sent', 'failed', 'dead', 'read'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/** The delivery fields of a notification event (spec 2.11). */
export interface DeliveryState {
  status: NotificationStatus;
  retry_count: number;
  next_retry_at: Date | null;
  last_error: string | null;
}

/**
 * What can happen to a notification: an attempt succeeded or failed (a failure may carry the
 * receiver's Retry-After, in seconds), the retry sweep found its notifier deleted, an operator
 * requeued it or marked it read.
 */
export type DeliveryTrigger =
  | { kind: 'delivered' }
  /** `final`: the receiver refused the message itself, so no retry can deliver it. */
  | { kind: 'delivery_failed'; error: string; retryAfterSeconds?: number; final?: boolean }
  | { kind: 'notifier_missing' }
  | { kind: 'requeue' }
  | { kind: 'mark_read' };

export type DeliveryRefusal =
  'notification_not_deliverable' | 'notification_not_dead' | 'notification_not_readable';

export type DeliveryOutcome = { ok: true; state: DeliveryState } | { ok: false; refusal: DeliveryRefusal };

/** last_error is stored and shown; a receiver's answer must not grow it without bound. */
export const MAX_LAST_ERROR_LENGTH = 1000;

const refuse = (refusal: DeliveryRefusal): DeliveryOutcome => ({ ok: false, refusal });
const to = (state: DeliveryState): DeliveryOutcome => ({ ok: true, state });

function failure(
  from: DeliveryState,
  trigger: { error: string; retryAfterSeconds?: number; final?: boolean },
  now: Date,
): DeliveryOutcome {
  const error = trigger.error.slice(0, MAX_LAST_ERROR_LENGTH);
  // The attempt that just failed is attempt retry_count + 1; the 5th one is the last (spec 3, 8).
  // A refusal of the message itself is the last at once: repeating it cannot deliver it.
  if (trigger.final || from.retry_count + 1 >= MAX_DELIVERY_ATTEMPTS)
    return to({ status: 'dead', retry_count: from.retry_count, next_retry_at: null, last_error: error });
  const retryCount = from.retry_count + 1;
  const wait = Math.max(backoffMs(retryCount), retryAfterMs(trigger.retryAfterSeconds ?? 0));
  return to({
    status: 'failed',
    retry_count: retryCount,
    next_retry_at: new Date(now.getTime() + wait),
    last_error: error,
  });
}

/**
 * The notification state machine of spec 3 (ADR 0056):
 * - pending or failed, delivered -> sent (retry_count unchanged);
 * - pending or failed, delivery failure -> failed (retry_count + 1, next_retry_at = now + 2^n
 *   minutes capped at 1 hour, or the receiver's Retry-After when later, up to that hour,
 *   last_error), or dead when that was the 5th attempt or the receiver refused the message
 *   itself (`final`; next_retry_at cleared, last_error kept);
 * - pending or failed, notifier missing -> sent, so a deleted notifier cannot wedge the sweep;
 * - dead, requeue -> pending with retry_count 0, next_retry_at and last_error null;
 * - sent (or read), mark read -> read.
 * Every other pair is refused and leaves the notification as it was.
 */
export function nextDeliveryState(from: DeliveryState, trigger: DeliveryTrigger, now: Date): DeliveryOutcome {
  const deliverable = from.status === 'pending' || from.status === 'failed';
  switch (trigger.kind) {
    case 'delivered':
    case 'notifier_missing':
      if (!deliverable) return refuse('notification_not_deliverable');
      return to({ ...from, status: 'sent', next_retry_at: null });
    case 'delivery_failed':
      if (!deliverable) return refuse('notification_not_deliverable');
      return failure(from, trigger, now);
    case 'requeue':
      if (from.status !== 'dead') return refuse('notification_not_dead');
      return to({ status: 'pending', retry_count: 0, next_retry_at: null, last_error: null });
    case 'mark_read':
      if (from.status !== 'sent' && from.status !== 'read') return refuse('notification_not_readable');
      return to({ ...from, status: 'read' });
    default:
      return assertNever(trigger);
  }
}

function assertNever(value: never): never {
  throw new Error(`unknown delivery trigger ${JSON.stringify(value)}`);
}
