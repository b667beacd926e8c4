/** A running scan's endpoints_done is written every this many endpoints (and at the end). */
export const SCAN_PROGRESS_EVERY = 256;
/** ... and at least this often while any endpoint finishes, so a slow scan still shows it lives. */
export const SCAN_HEARTBEAT_MS = 60_000;
/** The longest wait for a connection slot: the lowest allowed rate is 1 connection a second. */
const LONGEST_RATE_SLOT_MS = 1_000;

/** Whether a worker that just finished endpoint number `done` writes the scan's progress. */
export function progressWriteDue(done: number, lastWrittenAt: Date, now: Date): boolean {
  return done % SCAN_PROGRESS_EVERY === 0 || now.getTime() - lastWrittenAt.getTime() >= SCAN_HEARTBEAT_MS;
}

/**
 * How long a running scan's progress may stand still before the replica running it counts as
 * lost. A live scan finishes an endpoint at least every probe timeout plus one rate slot, so it
 * writes progress at least every heartbeat plus that; three times it leaves room for slow DNS
 * and a slow database before a live scan could be taken for a lost one.
 */
export function scanLostAfterMs(probeTimeoutMs: number): number {
  return 3 * (SCAN_HEARTBEAT_MS + probeTimeoutMs + LONGEST_RATE_SLOT_MS);
}

/** Running scans whose last progress is before this instant have lost their replica. */
export function lostScanCutoff(now: Date, probeTimeoutMs: number): Date {
  return new Date(now.getTime() - scanLostAfterMs(probeTimeoutMs));
}
