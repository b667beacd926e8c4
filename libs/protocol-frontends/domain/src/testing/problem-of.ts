import { AcmeProblem } from '../problems/acme-problem';

/** The AcmeProblem `fn` throws (specs): any other error is rethrown, and no throw fails. */
export function problemOf(fn: () => unknown): AcmeProblem {
  try {
    fn();
  } catch (error) {
    if (error instanceof AcmeProblem) return error;
    throw error;
  }
  throw new Error('no problem was thrown');
}
