import { AcmeProblemType } from '../problems/acme-problem';

/** Delays before the 2nd and 3rd attempt; the 3rd failure is final. */
export const VALIDATION_RETRY_DELAYS_MS = [2_000, 10_000] as const;

/**
 * RFC 8555 8.2: a client asks for a retry by posting its response again, and the server "SHOULD
 * retry a request immediately" but "SHOULD rate-limit such requests". A challenge waiting for its
 * next attempt takes one at once when asked this long after the failure; each such attempt counts
 * toward the few above, so a client cannot ask for more than those.
 */
export const EARLY_RETRY_SPACING_MS = 1_000;

/**
 * Whether a failed validation is tried again (issue 19 point 4: retries before `invalid`): only
 * failures that may be passing (the connection, DNS), never a wrong answer, which the client has
 * to fix. `attempts` counts the attempts made, this one included. Returns the delay or null.
 */
export function validationRetryDelay(problem: AcmeProblemType, attempts: number): number | null {
  if (problem !== 'connection' && problem !== 'dns') return null;
  return VALIDATION_RETRY_DELAYS_MS[attempts - 1] ?? null;
}
