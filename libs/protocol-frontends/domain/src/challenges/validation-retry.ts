import { AcmeProblemType } from '../problems/acme-problem';

/** Delays before the 2nd and 3rd attempt; a 4th failure is final. */
export const VALIDATION_RETRY_DELAYS_MS = [2_000, 10_000] as const;

/**
 * Whether a failed validation is tried again (issue 19 point 4: retries before `invalid`): only
 * failures that may be passing (the connection, DNS), never a wrong answer, which the client has
 * to fix. `attempts` counts the attempts made, this one included. Returns the delay or null.
 */
export function validationRetryDelay(problem: AcmeProblemType, attempts: number): number | null {
  if (problem !== 'connection' && problem !== 'dns') return null;
  return VALIDATION_RETRY_DELAYS_MS[attempts - 1] ?? null;
}
