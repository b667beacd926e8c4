import {
  lostScanCutoff,
  progressWriteDue,
  SCAN_HEARTBEAT_MS,
  SCAN_PROGRESS_EVERY,
  scanLostAfterMs,
} from './scan-liveness';

const at = (ms: number) => new Date(Date.UTC(2026, 5, 1) + ms);

describe('progressWriteDue', () => {
  it('writes every SCAN_PROGRESS_EVERY endpoints', () => {
    expect(progressWriteDue(SCAN_PROGRESS_EVERY, at(0), at(1))).toBe(true);
    expect(progressWriteDue(SCAN_PROGRESS_EVERY + 1, at(0), at(1))).toBe(false);
  });

  it('writes once a heartbeat has passed since the last write, however few endpoints finished', () => {
    expect(progressWriteDue(3, at(0), at(SCAN_HEARTBEAT_MS - 1))).toBe(false);
    expect(progressWriteDue(3, at(0), at(SCAN_HEARTBEAT_MS))).toBe(true);
  });
});

describe('scanLostAfterMs', () => {
  it('exceeds the longest a live scan goes without writing progress (heartbeat, probe timeout, rate slot)', () => {
    expect(scanLostAfterMs(10_000)).toBeGreaterThan(SCAN_HEARTBEAT_MS + 10_000 + 1_000);
  });

  it('grows with the probe timeout', () => {
    expect(scanLostAfterMs(30_000)).toBeGreaterThan(scanLostAfterMs(10_000));
  });

  it('puts the cutoff that long before now', () => {
    expect(lostScanCutoff(at(1_000_000), 10_000)).toEqual(at(1_000_000 - scanLostAfterMs(10_000)));
  });
});
