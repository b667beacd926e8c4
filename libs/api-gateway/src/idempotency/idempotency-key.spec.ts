import { ErrorCode } from '@certlane/contracts';
import { idempotentResourceId, parseIdempotencyKey, requestFingerprint } from './idempotency-key';

const codeOf = (run: () => unknown) => {
  try {
    run();
    return 'accepted';
  } catch (error) {
    return (error as { code: string }).code;
  }
};

describe('Idempotency-Key header', () => {
  it('reads the key of an sf-string, unescaping quotes and backslashes', () => {
    expect(parseIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"')).toBe(
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    expect(parseIdempotencyKey('"a \\"b\\" \\\\c"')).toBe('a "b" \\c');
  });

  it('accepts an unquoted token', () => {
    expect(parseIdempotencyKey('order-42')).toBe('order-42');
  });

  it.each([
    ['an empty quoted key', '""'],
    ['an empty header', ''],
    ['a key over 255 characters', `"${'k'.repeat(256)}"`],
    ['an unquoted key with a space', 'two words'],
    ['a non-ASCII key', '"clé"'],
    ['an unbalanced quote', '"abc'],
  ])('refuses %s with 400 idempotency_key_invalid', (_name, header) => {
    expect(codeOf(() => parseIdempotencyKey(header))).toBe(ErrorCode.IdempotencyKeyInvalid);
  });

  it('refuses a header sent twice', () => {
    expect(codeOf(() => parseIdempotencyKey(['"a"', '"b"']))).toBe(ErrorCode.IdempotencyKeyInvalid);
  });
});

describe('requestFingerprint', () => {
  it('is the same for the same payload in another key order', () => {
    expect(requestFingerprint({}, { a: 1, b: { c: [1, 2], d: 'x' } })).toBe(
      requestFingerprint({}, { b: { d: 'x', c: [1, 2] }, a: 1 }),
    );
  });

  it('differs when the body or the query differs', () => {
    const base = requestFingerprint({ force: 'true' }, { reason: 'keyCompromise' });
    expect(requestFingerprint({ force: 'true' }, { reason: 'superseded' })).not.toBe(base);
    expect(requestFingerprint({}, { reason: 'keyCompromise' })).not.toBe(base);
  });
});

describe('idempotentResourceId', () => {
  it('is stable per actor and key, and differs between actors', () => {
    const id = idempotentResourceId('mc', 'u-1', 'k');
    expect(id).toMatch(/^mc-[0-9a-f]{24}$/);
    expect(idempotentResourceId('mc', 'u-1', 'k')).toBe(id);
    expect(idempotentResourceId('mc', 'u-2', 'k')).not.toBe(id);
  });
});
