/** Pure timing rules of the agent loop (ADR 0030); `random` is injected (0 <= random() < 1). */

/** The share of an interval the jitter spreads over: 30 s polls land between 24 and 36 s. */
export const JITTER_FRACTION = 0.2;

/** `intervalMs` spread uniformly over +-fraction, so a fleet started together drifts apart. */
export function jittered(intervalMs: number, random: () => number, fraction = JITTER_FRACTION): number {
  const spread = intervalMs * fraction;
  return Math.max(0, Math.round(intervalMs - spread + 2 * spread * random()));
}

/**
 * The wait after `failures` consecutive failures (1 = the first): the interval doubled per
 * failure, capped at `capMs`, then "full jitter" over its upper half (between half and all of it),
 * so agents failing together against a server that is down do not retry in step.
 */
export function backoffDelay(failures: number, baseMs: number, capMs: number, random: () => number): number {
  if (failures <= 0) return jittered(baseMs, random);
  const exponent = Math.min(failures - 1, 30);
  const ceiling = Math.min(capMs, baseMs * 2 ** exponent);
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

/**
 * The waits between the attempts of one call worth repeating at once (a job's final status
 * report): `retries` waits, the nth as `backoffDelay` after n failures. Bounded by construction.
 */
export function retryDelays(retries: number, baseMs: number, capMs: number, random: () => number): number[] {
  return Array.from({ length: Math.max(0, retries) }, (_, i) => backoffDelay(i + 1, baseMs, capMs, random));
}
