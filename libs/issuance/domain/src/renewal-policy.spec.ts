import { CreateRenewalPolicyRequest, RENEWAL_POLICY_LIMITS, RenewalPolicyChanges } from '@certlane/contracts';
import { applyRenewalPolicyChanges, nameKey, newRenewalPolicy, RenewalPolicyFields } from './renewal-policy';

const create = (fields: Partial<CreateRenewalPolicyRequest>): CreateRenewalPolicyRequest =>
  Object.assign(new CreateRenewalPolicyRequest(), { name: 'Web', max_retries: 3, ...fields });
const changes = (fields: Partial<RenewalPolicyChanges>): RenewalPolicyChanges =>
  Object.assign(new RenewalPolicyChanges(), fields);

describe(newRenewalPolicy.name, () => {
  it('fills the defaults of spec 2.8: window 30 days, retry every 3600 s, alerts at 30, 14, 7 and 0 days', () => {
    expect(newRenewalPolicy(create({}))).toEqual({
      name: 'Web',
      max_retries: 3,
      renewal_window_days: 30,
      retry_interval_seconds: 3600,
      alert_thresholds_days: [30, 14, 7, 0],
    });
  });

  it('keeps every given value, including max_retries 0', () => {
    expect(
      newRenewalPolicy(
        create({
          name: 'Edge',
          max_retries: 0,
          renewal_window_days: 10,
          retry_interval_seconds: 60,
          alert_thresholds_days: [5],
        }),
      ),
    ).toEqual({
      name: 'Edge',
      max_retries: 0,
      renewal_window_days: 10,
      retry_interval_seconds: 60,
      alert_thresholds_days: [5],
    });
  });

  it('keeps an explicitly empty threshold list instead of the default', () => {
    expect(newRenewalPolicy(create({ alert_thresholds_days: [] })).alert_thresholds_days).toEqual([]);
  });

  it('copies the default thresholds: changing one policy changes neither the default nor another policy', () => {
    const first = newRenewalPolicy(create({}));
    const second = newRenewalPolicy(create({}));
    expect(first.alert_thresholds_days).not.toBe(RENEWAL_POLICY_LIMITS.alertThresholdDays.default);
    expect(first.alert_thresholds_days).not.toBe(second.alert_thresholds_days);
    first.alert_thresholds_days.push(99);
    first.alert_thresholds_days[0] = 1;
    expect(RENEWAL_POLICY_LIMITS.alertThresholdDays.default).toEqual([30, 14, 7, 0]);
    expect(second.alert_thresholds_days).toEqual([30, 14, 7, 0]);
    expect(newRenewalPolicy(create({})).alert_thresholds_days).toEqual([30, 14, 7, 0]);
  });

  it("copies the request's thresholds rather than sharing the array", () => {
    const thresholds = [20, 10];
    const policy = newRenewalPolicy(create({ alert_thresholds_days: thresholds }));
    thresholds.push(1);
    expect(policy.alert_thresholds_days).toEqual([20, 10]);
  });
});

describe(applyRenewalPolicyChanges.name, () => {
  const current: RenewalPolicyFields = {
    name: 'Web',
    renewal_window_days: 30,
    max_retries: 3,
    retry_interval_seconds: 3600,
    alert_thresholds_days: [30, 14, 7, 0],
  };

  it('keeps every field when the change set is empty', () => {
    expect(applyRenewalPolicyChanges(current, changes({}))).toEqual(current);
  });

  it('replaces only the fields present and keeps the absent ones', () => {
    expect(applyRenewalPolicyChanges(current, changes({ max_retries: 6, renewal_window_days: 20 }))).toEqual({
      ...current,
      max_retries: 6,
      renewal_window_days: 20,
    });
    expect(applyRenewalPolicyChanges(current, changes({ name: 'Web servers' }))).toEqual({
      ...current,
      name: 'Web servers',
    });
  });

  it('applies falsy values: max_retries 0 and an empty threshold list', () => {
    expect(
      applyRenewalPolicyChanges(current, changes({ max_retries: 0, alert_thresholds_days: [] })),
    ).toEqual({
      ...current,
      max_retries: 0,
      alert_thresholds_days: [],
    });
  });

  it('replaces every field when all are given', () => {
    const all = {
      name: 'New',
      renewal_window_days: 1,
      max_retries: 10,
      retry_interval_seconds: 86400,
      alert_thresholds_days: [1],
    };
    expect(applyRenewalPolicyChanges(current, changes(all))).toEqual(all);
  });

  it('copies new thresholds and leaves the current policy untouched', () => {
    const snapshot = structuredClone(current);
    const thresholds = [3, 2];
    const updated = applyRenewalPolicyChanges(current, changes({ alert_thresholds_days: thresholds }));
    thresholds.push(1);
    expect(updated.alert_thresholds_days).toEqual([3, 2]);
    expect(current).toEqual(snapshot);
  });
});

describe(nameKey.name, () => {
  it('compares names regardless of case', () => {
    expect(nameKey('Standard')).toBe(nameKey('standard'));
    expect(nameKey('Standard')).not.toBe(nameKey('Standard 2'));
  });
});
