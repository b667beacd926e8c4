import { DEFAULT_ACME_LIFETIMES } from '../expiry/expiry';
import { retentionCutoff, MIN_RETENTION_DAYS, nextRetentionPass } from './retention';

describe('retention of protocol records', () => {
  const now = new Date('2026-11-29T12:00:00Z');

  it('keeps everything when the retention is 0 days', () => {
    expect(retentionCutoff(now, 0)).toBeNull();
  });

  it('purges what ended more than the retention ago', () => {
    expect(retentionCutoff(now, 90)).toEqual(new Date('2026-08-31T12:00:00Z'));
    expect(retentionCutoff(now, 8)).toEqual(new Date('2026-11-21T12:00:00Z'));
  });

  it('never lets an order be purged before it could have ended and been read', () => {
    expect(MIN_RETENTION_DAYS * 24 * 3600_000).toBeGreaterThan(DEFAULT_ACME_LIFETIMES.pendingMs);
    expect(MIN_RETENTION_DAYS).toBe(8);
  });

  it('runs the next pass at once while a batch came back full, else after the interval', () => {
    expect(nextRetentionPass(now, { filledABatch: true }, 3600_000)).toEqual(now);
    expect(nextRetentionPass(now, { filledABatch: false }, 3600_000)).toEqual(
      new Date('2026-11-29T13:00:00Z'),
    );
  });
});
