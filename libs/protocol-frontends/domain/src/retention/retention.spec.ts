import { DEFAULT_ACME_LIFETIMES } from '../expiry/expiry';
import { acmeRetentionCutoff, MIN_ACME_RETENTION_DAYS, nextAcmeRetentionPass } from './retention';

describe('ACME retention', () => {
  const now = new Date('2026-11-29T12:00:00Z');

  it('keeps everything when the retention is 0 days', () => {
    expect(acmeRetentionCutoff(now, 0)).toBeNull();
  });

  it('purges what ended more than the retention ago', () => {
    expect(acmeRetentionCutoff(now, 90)).toEqual(new Date('2026-08-31T12:00:00Z'));
    expect(acmeRetentionCutoff(now, 8)).toEqual(new Date('2026-11-21T12:00:00Z'));
  });

  it('never lets an order be purged before it could have ended and been read', () => {
    expect(MIN_ACME_RETENTION_DAYS * 24 * 3600_000).toBeGreaterThan(DEFAULT_ACME_LIFETIMES.pendingMs);
    expect(MIN_ACME_RETENTION_DAYS).toBe(8);
  });

  it('runs the next pass at once while a batch came back full, else after the interval', () => {
    expect(nextAcmeRetentionPass(now, { filledABatch: true }, 3600_000)).toEqual(now);
    expect(nextAcmeRetentionPass(now, { filledABatch: false }, 3600_000)).toEqual(
      new Date('2026-11-29T13:00:00Z'),
    );
  });
});
