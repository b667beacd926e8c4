import { CreateRenewalPolicyRequest, RENEWAL_POLICY_LIMITS, RenewalPolicyChanges } from '@certlane/contracts';

/** The stored fields of a renewal policy (timestamps excluded). */
export interface RenewalPolicyFields {
  name: string;
  renewal_window_days: number;
  max_retries: number;
  retry_interval_seconds: number;
  alert_thresholds_days: number[];
}

/** Fills the defaults of spec 2.8 into a validated create request. */
export function newRenewalPolicy(request: CreateRenewalPolicyRequest): RenewalPolicyFields {
  return {
    name: request.name,
    renewal_window_days: request.renewal_window_days ?? RENEWAL_POLICY_LIMITS.renewalWindowDays.default,
    max_retries: request.max_retries,
    retry_interval_seconds:
      request.retry_interval_seconds ?? RENEWAL_POLICY_LIMITS.retryIntervalSeconds.default,
    alert_thresholds_days: [
      ...(request.alert_thresholds_days ?? RENEWAL_POLICY_LIMITS.alertThresholdDays.default),
    ],
  };
}

/** PUT semantics: fields present in the request replace the stored ones; absent fields are kept. */
export function applyRenewalPolicyChanges(
  current: RenewalPolicyFields,
  changes: RenewalPolicyChanges,
): RenewalPolicyFields {
  return {
    name: changes.name ?? current.name,
    renewal_window_days: changes.renewal_window_days ?? current.renewal_window_days,
    max_retries: changes.max_retries ?? current.max_retries,
    retry_interval_seconds: changes.retry_interval_seconds ?? current.retry_interval_seconds,
    alert_thresholds_days: changes.alert_thresholds_days
      ? [...changes.alert_thresholds_days]
      : current.alert_thresholds_days,
  };
}

/** Names are unique regardless of case: "Standard" and "standard" clash (enforced by a unique index on lower(name)). */
export function nameKey(name: string): string {
  return name.toLowerCase();
}
