/**
 * A signed answer is not served within this time of its nextUpdate: relying parties allow a few
 * minutes of clock skew (OpenSSL's default is 5), so one that expires sooner may be refused, and
 * the HTTP caches in front would keep it only seconds.
 */
export const STALE_ANSWER_MARGIN_MS = 5 * 60_000;
/** While re-signing fails, an answer served stale is tried again after this long. */
export const STALE_ANSWER_RETRY_MS = 30_000;

/** A cached answer past its refresh time whose re-signing failed, and what the replica knows. */
export interface StaleAnswerCase {
  now: number;
  /** The answer's thisUpdate and nextUpdate (epoch ms). */
  signedAt: number;
  nextUpdate: number;
  /**
   * The failure is an outage (the database, issuance or the bus did not answer), not a gap in what
   * the replica knows (a backlog of revocation events it did not hear, or heard and dropped).
   */
  outage: boolean;
  /** Since when the replica hears every revocation on the fan-out (it started, or reconnected). */
  listeningSince: number;
  /** Events published before `listeningSince` may still be missing from the table (backlog gate closed). */
  backlog: boolean;
  /** A revocation (or release) of the serial was heard that the consumer has not recorded yet. */
  heardUnrecorded: boolean;
}

/**
 * Until when (epoch ms) a cached answer past its refresh time is served instead of `tryLater`
 * while re-signing fails, or undefined when it must not be. Must-staple servers and hard-fail
 * clients treat `tryLater` as a failure, while the answer is still valid: it says what the table
 * said when it was signed, and a revocation of its serial since then would have been heard (it
 * was signed while the replica listened) and would have re-signed it or, failing that, removed
 * it from the cache. Not when the replica may have missed revocations (a backlog) or heard one it
 * has not seen recorded, and never within STALE_ANSWER_MARGIN_MS of its nextUpdate. Served until
 * the next attempt (the fast lane serves it meanwhile).
 */
export function staleAnswerUntil(stale: StaleAnswerCase): number | undefined {
  if (!stale.outage || stale.backlog || stale.heardUnrecorded) return undefined;
  if (stale.signedAt < stale.listeningSince) return undefined;
  const last = stale.nextUpdate - STALE_ANSWER_MARGIN_MS;
  if (last <= stale.now) return undefined;
  return Math.min(stale.now + STALE_ANSWER_RETRY_MS, last);
}
