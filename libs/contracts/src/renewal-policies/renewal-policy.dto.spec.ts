import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { RENEWAL_POLICY_LIMITS } from './renewal-policy-limits';
import {
  CreateRenewalPolicyRequest,
  ListRenewalPoliciesRequest,
  RenewalPolicyChanges,
  UpdateRenewalPolicyRequest,
} from './renewal-policy.dto';

type Dto = new () => object;

/** The messages class-validator reports for a plain payload turned into the DTO class. */
async function messagesFor(type: Dto, payload: Record<string, unknown>): Promise<string[]> {
  const errors = await validate(plainToInstance(type, payload));
  return errors.flatMap((e) => Object.values(e.constraints ?? {}));
}

const minimal = { name: 'Web servers', max_retries: 3 };

describe(CreateRenewalPolicyRequest.name, () => {
  it('accepts a name and max_retries alone, leaving the defaulted fields out', async () => {
    expect(await messagesFor(CreateRenewalPolicyRequest, minimal)).toEqual([]);
  });

  it('accepts every field at its lower and upper bound', async () => {
    const low = {
      name: 'x',
      max_retries: 0,
      renewal_window_days: 1,
      retry_interval_seconds: 60,
      alert_thresholds_days: [],
    };
    const high = {
      name: 'x'.repeat(255),
      max_retries: 10,
      renewal_window_days: 365,
      retry_interval_seconds: 86400,
      alert_thresholds_days: Array.from({ length: 32 }, (_, i) => 365 - i),
    };
    expect(await messagesFor(CreateRenewalPolicyRequest, low)).toEqual([]);
    expect(await messagesFor(CreateRenewalPolicyRequest, high)).toEqual([]);
    expect(
      await messagesFor(CreateRenewalPolicyRequest, { ...minimal, alert_thresholds_days: [0, 365] }),
    ).toEqual([]);
  });

  it('requires name and max_retries (max_retries has no default)', async () => {
    expect(await messagesFor(CreateRenewalPolicyRequest, { max_retries: 1 })).toEqual(
      expect.arrayContaining(['name must be a string']),
    );
    expect(await messagesFor(CreateRenewalPolicyRequest, { name: 'Web' })).toEqual(
      expect.arrayContaining(['max_retries must be an integer']),
    );
  });

  it.each([
    [{ name: '' }, 'name must be 1 to 255 characters'],
    [{ name: 'x'.repeat(256) }, 'name must be 1 to 255 characters'],
    [{ name: 42 }, 'name must be a string'],
    [{ max_retries: -1 }, 'max_retries must be between 0 and 10'],
    [{ max_retries: 11 }, 'max_retries must be between 0 and 10'],
    [{ max_retries: 1.5 }, 'max_retries must be an integer'],
    [{ max_retries: '3' }, 'max_retries must be an integer'],
    [{ renewal_window_days: 0 }, 'renewal_window_days must be between 1 and 365'],
    [{ renewal_window_days: 366 }, 'renewal_window_days must be between 1 and 365'],
    [{ retry_interval_seconds: 59 }, 'retry_interval_seconds must be between 60 and 86400'],
    [{ retry_interval_seconds: 86401 }, 'retry_interval_seconds must be between 60 and 86400'],
    [{ alert_thresholds_days: 30 }, 'alert_thresholds_days must be an array of integers'],
    [{ alert_thresholds_days: [-1] }, 'each alert_thresholds_days entry must be between 0 and 365'],
    [{ alert_thresholds_days: [366] }, 'each alert_thresholds_days entry must be between 0 and 365'],
    [{ alert_thresholds_days: [7.5] }, 'each alert_thresholds_days entry must be an integer'],
    [{ alert_thresholds_days: ['7'] }, 'each alert_thresholds_days entry must be an integer'],
    [
      { alert_thresholds_days: Array.from({ length: 33 }, (_, i) => i) },
      'alert_thresholds_days holds at most 32 entries',
    ],
  ])('refuses %j with "%s"', async (change, message) => {
    expect(await messagesFor(CreateRenewalPolicyRequest, { ...minimal, ...change })).toContain(message);
  });

  it('refuses repeated alert thresholds', async () => {
    const messages = await messagesFor(CreateRenewalPolicyRequest, {
      ...minimal,
      alert_thresholds_days: [30, 7, 30],
    });
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('alert_thresholds_days');
  });

  // Regression: ArrayUnique(undefined, { message }) drops its options when the first argument
  // is not a function (class-validator 0.15 reads the options from the first argument), so the API
  // answers with class-validator's default "All alert_thresholds_days's elements must be unique".
  //
  it('refuses repeated alert thresholds with its own message', async () => {
    expect(
      await messagesFor(CreateRenewalPolicyRequest, { ...minimal, alert_thresholds_days: [30, 30] }),
    ).toEqual(['alert_thresholds_days must not repeat a value']);
  });

  it('uses the bounds of RENEWAL_POLICY_LIMITS', () => {
    expect(RENEWAL_POLICY_LIMITS).toMatchObject({
      name: { min: 1, max: 255 },
      renewalWindowDays: { min: 1, max: 365, default: 30 },
      maxRetries: { min: 0, max: 10 },
      retryIntervalSeconds: { min: 60, max: 86400, default: 3600 },
      alertThresholdDays: { min: 0, max: 365, maxEntries: 32, default: [30, 14, 7, 0] },
    });
  });
});

describe(RenewalPolicyChanges.name, () => {
  it('accepts an empty change set: every field is optional', async () => {
    expect(await messagesFor(RenewalPolicyChanges, {})).toEqual([]);
  });

  it('applies the same bounds as creation', async () => {
    expect(await messagesFor(RenewalPolicyChanges, { max_retries: 11 })).toEqual([
      'max_retries must be between 0 and 10',
    ]);
    expect(await messagesFor(RenewalPolicyChanges, { name: '' })).toEqual([
      'name must be 1 to 255 characters',
    ]);
    expect(await messagesFor(RenewalPolicyChanges, { alert_thresholds_days: [400] })).toEqual([
      'each alert_thresholds_days entry must be between 0 and 365',
    ]);
    expect(await messagesFor(RenewalPolicyChanges, { alert_thresholds_days: [1, 1] })).toHaveLength(1);
  });
});

describe(UpdateRenewalPolicyRequest.name, () => {
  it('needs a non-empty id on top of the changes', async () => {
    expect(await messagesFor(UpdateRenewalPolicyRequest, { id: 'rp-web', max_retries: 2 })).toEqual([]);
    expect((await messagesFor(UpdateRenewalPolicyRequest, { max_retries: 2 })).length).toBeGreaterThan(0);
    expect((await messagesFor(UpdateRenewalPolicyRequest, { id: '' })).length).toBeGreaterThan(0);
  });
});

describe(ListRenewalPoliciesRequest.name, () => {
  it('inherits the pagination rules', async () => {
    expect(await messagesFor(ListRenewalPoliciesRequest, { page: '2', per_page: '10' })).toEqual([]);
    expect(await messagesFor(ListRenewalPoliciesRequest, { per_page: '501' })).toEqual([
      'per_page must be at most 500',
    ]);
  });
});
