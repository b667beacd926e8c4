import { ACME_PROBLEM_TYPES } from '../problems/acme-problem';
import { validationRetryDelay, VALIDATION_RETRY_DELAYS_MS } from './validation-retry';

describe('validationRetryDelay', () => {
  it.each(['connection', 'dns'] as const)('retries a %s failure twice, then gives up', (type) => {
    expect(validationRetryDelay(type, 1)).toBe(VALIDATION_RETRY_DELAYS_MS[0]);
    expect(validationRetryDelay(type, 2)).toBe(VALIDATION_RETRY_DELAYS_MS[1]);
    expect(validationRetryDelay(type, 3)).toBeNull();
  });

  it.each(ACME_PROBLEM_TYPES.filter((t) => t !== 'connection' && t !== 'dns').map((t) => [t]))(
    'never retries %s (the answer was wrong, not absent)',
    (type) => {
      expect(validationRetryDelay(type, 1)).toBeNull();
    },
  );
});
