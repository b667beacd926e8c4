import {
  DeliveryState,
  DeliveryTrigger,
  NOTIFICATION_STATUSES,
  NotificationStatus,
  nextDeliveryState,
} from './delivery-state';
import { backoffMs, retryAfterMs } from './retry-backoff';

const NOW = new Date('2026-11-24T12:00:00.000Z');
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

const state = (status: NotificationStatus, retry_count = 0): DeliveryState => ({
  status,
  retry_count,
  next_retry_at: status === 'failed' ? at(-1) : null,
  last_error: status === 'failed' || status === 'dead' ? 'HTTP 502' : null,
});

const triggers: Record<DeliveryTrigger['kind'], DeliveryTrigger> = {
  delivered: { kind: 'delivered' },
  delivery_failed: { kind: 'delivery_failed', error: 'HTTP 500' },
  notifier_missing: { kind: 'notifier_missing' },
  requeue: { kind: 'requeue' },
  mark_read: { kind: 'mark_read' },
};

const outcome = (from: DeliveryState, trigger: DeliveryTrigger): string => {
  const result = nextDeliveryState(from, trigger, NOW);
  return result.ok ? result.state.status : `refused:${result.refusal}`;
};

/** Expected status per trigger, for each from-status (failed with retry_count 1). */
const table: Record<NotificationStatus, Record<DeliveryTrigger['kind'], string>> = {
  pending: {
    delivered: 'sent',
    delivery_failed: 'failed',
    notifier_missing: 'sent',
    requeue: 'refused:notification_not_dead',
    mark_read: 'refused:notification_not_readable',
  },
  failed: {
    delivered: 'sent',
    delivery_failed: 'failed',
    notifier_missing: 'sent',
    requeue: 'refused:notification_not_dead',
    mark_read: 'refused:notification_not_readable',
  },
  sent: {
    delivered: 'refused:notification_not_deliverable',
    delivery_failed: 'refused:notification_not_deliverable',
    notifier_missing: 'refused:notification_not_deliverable',
    requeue: 'refused:notification_not_dead',
    mark_read: 'read',
  },
  dead: {
    delivered: 'refused:notification_not_deliverable',
    delivery_failed: 'refused:notification_not_deliverable',
    notifier_missing: 'refused:notification_not_deliverable',
    requeue: 'pending',
    mark_read: 'refused:notification_not_readable',
  },
  read: {
    delivered: 'refused:notification_not_deliverable',
    delivery_failed: 'refused:notification_not_deliverable',
    notifier_missing: 'refused:notification_not_deliverable',
    requeue: 'refused:notification_not_dead',
    mark_read: 'read',
  },
};

describe('nextDeliveryState', () => {
  for (const status of NOTIFICATION_STATUSES)
    for (const [kind, trigger] of Object.entries(triggers))
      it(`${status} x ${kind} -> ${table[status][kind as DeliveryTrigger['kind']]}`, () => {
        expect(outcome(state(status, status === 'failed' ? 1 : 0), trigger)).toBe(
          table[status][kind as DeliveryTrigger['kind']],
        );
      });

  it('pending, delivery failure: retry_count 1, next retry in 2^1 minutes, last_error set', () => {
    const result = nextDeliveryState(state('pending'), triggers.delivery_failed, NOW);
    expect(result).toEqual({
      ok: true,
      state: { status: 'failed', retry_count: 1, next_retry_at: at(2), last_error: 'HTTP 500' },
    });
  });

  it('failed, delivery failures: backoff 4, 8, 16 minutes, then dead on the 5th attempt', () => {
    let current = nextDeliveryState(state('pending'), triggers.delivery_failed, NOW);
    const waits: number[] = [];
    const statuses: string[] = [];
    for (let attempt = 2; attempt <= 5; attempt++) {
      if (!current.ok) throw new Error('refused');
      current = nextDeliveryState(
        current.state,
        { kind: 'delivery_failed', error: `attempt ${attempt}` },
        NOW,
      );
      if (!current.ok) throw new Error('refused');
      statuses.push(current.state.status);
      if (current.state.next_retry_at)
        waits.push((current.state.next_retry_at.getTime() - NOW.getTime()) / 60_000);
    }
    expect(statuses).toEqual(['failed', 'failed', 'failed', 'dead']);
    expect(waits).toEqual([4, 8, 16]);
    expect(current).toEqual({
      ok: true,
      state: { status: 'dead', retry_count: 4, next_retry_at: null, last_error: 'attempt 5' },
    });
  });

  it('failed with retry_count 3 is retried once more (4th attempt fails -> failed, not dead)', () => {
    const result = nextDeliveryState(state('failed', 3), triggers.delivery_failed, NOW);
    expect(result.ok && result.state.status).toBe('failed');
    expect(result.ok && result.state.retry_count).toBe(4);
  });

  it('failed, retry succeeds: sent with retry_count unchanged', () => {
    const result = nextDeliveryState(state('failed', 3), triggers.delivered, NOW);
    expect(result.ok && result.state).toMatchObject({ status: 'sent', retry_count: 3, next_retry_at: null });
  });

  it('failed, notifier missing: sent, so the sweep is not wedged', () => {
    const result = nextDeliveryState(state('failed', 2), triggers.notifier_missing, NOW);
    expect(result.ok && result.state).toMatchObject({ status: 'sent', retry_count: 2, next_retry_at: null });
  });

  it('dead, requeue: pending with retry_count 0, next_retry_at null, last_error null', () => {
    const result = nextDeliveryState(state('dead', 4), triggers.requeue, NOW);
    expect(result).toEqual({
      ok: true,
      state: { status: 'pending', retry_count: 0, next_retry_at: null, last_error: null },
    });
  });

  it("honours a receiver's Retry-After when it is later than the backoff", () => {
    const result = nextDeliveryState(
      state('pending'),
      { kind: 'delivery_failed', error: 'HTTP 429', retryAfterSeconds: 600 },
      NOW,
    );
    expect(result.ok && result.state.next_retry_at).toEqual(at(10));
    const shorter = nextDeliveryState(
      state('pending'),
      { kind: 'delivery_failed', error: 'HTTP 429', retryAfterSeconds: 1 },
      NOW,
    );
    expect(shorter.ok && shorter.state.next_retry_at).toEqual(at(2));
  });

  it("caps a receiver's Retry-After at the hour of spec 8 (a huge one made an Invalid Date that failed the whole batch)", () => {
    for (const seconds of [7200, 9_999_999_999_999, Number.MAX_SAFE_INTEGER]) {
      const result = nextDeliveryState(
        state('pending'),
        { kind: 'delivery_failed', error: 'HTTP 429', retryAfterSeconds: seconds },
        NOW,
      );
      expect(result.ok && result.state.next_retry_at).toEqual(at(60));
    }
  });

  it('a final refusal (the receiver refused the message itself) is dead at the first attempt', () => {
    const result = nextDeliveryState(
      state('pending'),
      { kind: 'delivery_failed', error: 'HTTP 400: invalid routing key', final: true },
      NOW,
    );
    expect(result.ok && result.state).toEqual({
      status: 'dead',
      retry_count: 0,
      next_retry_at: null,
      last_error: 'HTTP 400: invalid routing key',
    });
  });

  it('caps last_error at 1000 characters', () => {
    const result = nextDeliveryState(
      state('pending'),
      { kind: 'delivery_failed', error: 'x'.repeat(5000) },
      NOW,
    );
    expect(result.ok && result.state.last_error?.length).toBe(1000);
  });
});

describe('retryAfterMs', () => {
  it('is the seconds in ms, at most one hour, and nothing for a value that is not a positive number', () => {
    expect([1, 600, 3600, 3601, 1e15].map(retryAfterMs)).toEqual([
      1000, 600_000, 3_600_000, 3_600_000, 3_600_000,
    ]);
    expect([0, -5, Number.NaN, Number.POSITIVE_INFINITY].map(retryAfterMs)).toEqual([0, 0, 0, 0]);
  });
});

describe('backoffMs', () => {
  it('is 2^n minutes capped at one hour', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 60].map((n) => backoffMs(n) / 60_000)).toEqual([
      2, 4, 8, 16, 32, 60, 60, 60,
    ]);
  });

  it('refuses a negative or fractional count', () => {
    expect(() => backoffMs(-1)).toThrow(RangeError);
    expect(() => backoffMs(1.5)).toThrow(RangeError);
  });
});
