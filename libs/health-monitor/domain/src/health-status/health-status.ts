/** Endpoint health-check statuses (spec 2.13). */
export const HEALTH_STATUSES = ['healthy', 'degraded', 'down', 'cert_mismatch'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

/** Spec 3 and 8: degraded after 2 consecutive failures, down after 5. */
export const DEGRADED_AFTER_FAILURES = 2;
export const DOWN_AFTER_FAILURES = 5;

export interface HealthState {
  readonly status: HealthStatus;
  readonly consecutiveFailures: number;
  /** Set by an operator; silences reminders until the status changes (ADR 0057). */
  readonly acknowledged: boolean;
}

export const INITIAL_HEALTH_STATE: HealthState = {
  status: 'healthy',
  consecutiveFailures: 0,
  acknowledged: false,
};

/**
 * What one probe found, already judged: a completed handshake serving `fingerprint`, or a failure
 * (refused, timed out, handshake error, expired certificate; see judgeProbe).
 */
export type ProbeVerdict = { kind: 'served'; fingerprint: string } | { kind: 'failed'; error: string };

export type HealthTrigger =
  { kind: 'probe'; verdict: ProbeVerdict; expectedFingerprint: string | null } | { kind: 'acknowledge' };

export interface HealthChange {
  readonly from: HealthStatus;
  readonly to: HealthStatus;
}

export type HealthTransition =
  | { ok: true; state: HealthState; change: HealthChange | null }
  | { ok: false; code: 'health_check_not_alerting'; message: string };

/** Fingerprints compare as lowercase hex without separators. */
export function normalizeFingerprint(value: string): string {
  return value.replace(/[:\s-]/g, '').toLowerCase();
}

function afterFailure(state: HealthState): HealthStatus {
  const failures = state.consecutiveFailures + 1;
  if (failures >= DOWN_AFTER_FAILURES) return 'down';
  if (failures >= DEGRADED_AFTER_FAILURES) return 'degraded';
  // One failure is not yet evidence: a mismatch stays a mismatch, healthy stays healthy.
  return state.status;
}

function settle(state: HealthState, status: HealthStatus, consecutiveFailures: number): HealthTransition {
  const changed = status !== state.status;
  return {
    ok: true,
    state: { status, consecutiveFailures, acknowledged: changed ? false : state.acknowledged },
    change: changed ? { from: state.status, to: status } : null,
  };
}

/** The health-check state machine (spec 3): pure, total over every (status, trigger) pair. */
export function nextHealthState(state: HealthState, trigger: HealthTrigger): HealthTransition {
  switch (trigger.kind) {
    case 'acknowledge':
      if (state.status === 'healthy') {
        return {
          ok: false,
          code: 'health_check_not_alerting',
          message: 'a healthy check has nothing to acknowledge',
        };
      }
      return { ok: true, state: { ...state, acknowledged: true }, change: null };
    case 'probe': {
      const { verdict, expectedFingerprint } = trigger;
      if (verdict.kind === 'failed') {
        return settle(state, afterFailure(state), state.consecutiveFailures + 1);
      }
      const mismatch =
        expectedFingerprint !== null &&
        normalizeFingerprint(expectedFingerprint) !== normalizeFingerprint(verdict.fingerprint);
      return settle(state, mismatch ? 'cert_mismatch' : 'healthy', 0);
    }
  }
}
