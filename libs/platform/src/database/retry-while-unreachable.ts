import { isDatabaseUnreachable } from './database-unreachable';

export interface UnreachableRetry {
  /** No retry starts after this much time since the first try; the last error is thrown. */
  giveUpAfterMs: number;
  /** The first wait; each next one doubles up to `maxDelayMs`. */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** Told before each wait (to log it). */
  onRetry?: (error: unknown, delayMs: number) => void;
}

/**
 * Runs `work` again, with bounded exponential backoff, while it fails because the database cannot
 * be reached (isDatabaseUnreachable); any other error, or the deadline passing, is thrown. For
 * work that must not be left half done while the process lives (a claimed job's result).
 */
export async function retryWhileDatabaseUnreachable<T>(
  work: () => Promise<T>,
  { giveUpAfterMs, firstDelayMs = 200, maxDelayMs = 5000, onRetry }: UnreachableRetry,
): Promise<T> {
  const deadline = Date.now() + giveUpAfterMs;
  let delay = firstDelayMs;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!isDatabaseUnreachable(error) || Date.now() + delay > deadline) throw error;
      onRetry?.(error, delay);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, maxDelayMs);
    }
  }
}
