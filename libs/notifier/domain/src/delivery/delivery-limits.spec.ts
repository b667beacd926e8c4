import { deliveryLimits, KIND_LIMITS, sendIntervalMs, slotDecision } from './delivery-limits';

describe('deliveryLimits', () => {
  it('gives Slack one send per second, one at a time, by default', () => {
    expect(deliveryLimits('slack', {})).toEqual({ per_second: 1, concurrency: 1 });
  });

  it('gives every kind its defaults', () => {
    for (const [kind, limits] of Object.entries(KIND_LIMITS))
      expect(deliveryLimits(kind, {})).toEqual(limits);
  });

  it('applies max_per_second and max_concurrent, null lifting the rate limit', () => {
    expect(deliveryLimits('webhook', { max_per_second: 50, max_concurrent: 8 })).toEqual({
      per_second: 50,
      concurrency: 8,
    });
    expect(deliveryLimits('slack', { max_per_second: null })).toEqual({ per_second: null, concurrency: 1 });
    expect(deliveryLimits('slack', { max_per_second: 0.5 })).toEqual({ per_second: 0.5, concurrency: 1 });
  });

  it.each([
    [{ max_per_second: 0 }],
    [{ max_per_second: -1 }],
    [{ max_per_second: 1001 }],
    [{ max_per_second: '1' }],
    [{ max_concurrent: 0 }],
    [{ max_concurrent: 17 }],
    [{ max_concurrent: 1.5 }],
  ])('refuses %j', (settings) => {
    expect(deliveryLimits('webhook', settings)).toHaveProperty('invalid');
  });
});

describe('slotDecision', () => {
  const now = new Date('2026-11-25T00:00:00.000Z');
  const at = (ms: number) => new Date(now.getTime() + ms);

  it('sends at once when the slot has come', () => {
    expect(slotDecision(at(-5), now, 2000)).toEqual({ kind: 'send', waitMs: 0 });
    expect(slotDecision(now, now, 2000)).toEqual({ kind: 'send', waitMs: 0 });
  });

  it('waits for a slot within the longest wait', () => {
    expect(slotDecision(at(800), now, 2000)).toEqual({ kind: 'send', waitMs: 800 });
    expect(slotDecision(at(2000), now, 2000)).toEqual({ kind: 'send', waitMs: 2000 });
  });

  it('gives the notification back until a later slot (a Retry-After, a long queue)', () => {
    expect(slotDecision(at(2001), now, 2000)).toEqual({ kind: 'defer', until: at(2001) });
  });

  it('spaces sends by the rate', () => {
    expect(sendIntervalMs(1)).toBe(1000);
    expect(sendIntervalMs(3)).toBe(334);
    expect(sendIntervalMs(0.5)).toBe(2000);
  });
});
