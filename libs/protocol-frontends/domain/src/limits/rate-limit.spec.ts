import { checkRateLimit } from './rate-limit';

const now = new Date('2026-11-24T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const rule = { limit: 3, windowMs: 3600_000 };

describe('checkRateLimit', () => {
  it('allows events while fewer than the limit are in the window', () => {
    expect(checkRateLimit('orders', rule, [], now).ok).toBe(true);
    expect(checkRateLimit('orders', rule, [ago(10), ago(5)], now).ok).toBe(true);
  });

  it('ignores events older than the window', () => {
    expect(checkRateLimit('orders', rule, [ago(3600_001), ago(3600_000), ago(10), ago(5)], now).ok).toBe(
      true,
    );
  });

  it('RFC 8555 6.6: past the limit the answer is rateLimited, retry when the oldest event leaves the window', () => {
    const result = checkRateLimit('orders', rule, [ago(1800_000), ago(60_000), ago(1000)], now);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problem.toDocument()).toMatchObject({
        type: 'urn:ietf:params:acme:error:rateLimited',
        status: 429,
      });
      expect(result.retryAfterSeconds).toBe(1800);
    }
  });

  it('waits at least a second', () => {
    const result = checkRateLimit('orders', rule, [ago(3600_000 - 1), ago(2), ago(1)], now);
    expect(!result.ok && result.retryAfterSeconds).toBe(1);
  });
});
