import { idempotencyDecision } from './idempotency-decision';

describe('idempotencyDecision', () => {
  const fingerprint = 'a'.repeat(64);

  it('refuses the same key with another payload, whatever its state', () => {
    expect(idempotencyDecision({ fingerprint: 'b'.repeat(64), status: 201, held: false }, fingerprint)).toBe(
      'reused',
    );
    expect(idempotencyDecision({ fingerprint: 'b'.repeat(64), status: null, held: true }, fingerprint)).toBe(
      'reused',
    );
  });

  it('replays a stored answer', () => {
    expect(idempotencyDecision({ fingerprint, status: 201, held: false }, fingerprint)).toBe('replay');
  });

  it('answers in use while the first attempt still holds the key', () => {
    expect(idempotencyDecision({ fingerprint, status: null, held: true }, fingerprint)).toBe('in-use');
  });

  it('runs again when the first attempt was lost without an answer', () => {
    expect(idempotencyDecision({ fingerprint, status: null, held: false }, fingerprint)).toBe('take-over');
  });
});
