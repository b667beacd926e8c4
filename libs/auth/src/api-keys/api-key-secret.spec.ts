import { CertlaneError } from '@certlane/contracts';
import { hashApiKey, presentedKeyHash } from './api-key-secret';

describe('presentedKeyHash (ADR 0013 amendment)', () => {
  const key = 'cd'.repeat(32);

  it('takes the SHA-256 the gateway sends, or hashes the key an older gateway sends', () => {
    expect(presentedKeyHash({ key_hash: hashApiKey(key) })).toBe(hashApiKey(key));
    expect(presentedKeyHash({ key })).toBe(hashApiKey(key));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a request with both or neither (validation_failed on key_hash)', () => {
    for (const request of [{}, { key, key_hash: hashApiKey(key) }]) {
      let refused: unknown;
      try {
        presentedKeyHash(request);
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(CertlaneError);
      expect(CertlaneError.refusesField(refused, 'key_hash')).toBe(true);
    }
  });
});
