import { POLICY_RULE_TYPES, PolicyRuleType, PolicySeverity } from '@certlane/contracts';
import { evaluatePolicyRule, evaluatePolicyRules, PolicyRuleInput, PolicySubject } from './evaluate-policy';
import { domainAllowed, domainOf } from './domain-match';
import { configProblem, configText, parsePolicyConfig, POLICY_CONFIG_FIELD } from './policy-config';

const DAY = 86_400_000;
const T0 = new Date('2026-01-01T00:00:00Z');

const subject = (over: Partial<PolicySubject> = {}): PolicySubject => ({
  common_name: 'www.example.com',
  sans: ['api.example.com'],
  environment: 'production',
  issuer_id: 'iss-local',
  tags: { team: 'web', cost_center: '42' },
  renewal_window_days: 30,
  not_before: T0,
  not_after: new Date(T0.getTime() + 90 * DAY),
  ...over,
});

const rule = (
  type: PolicyRuleType,
  config: unknown,
  severity: PolicySeverity = 'Error',
): PolicyRuleInput => ({
  id: `pol-${type}`,
  type,
  severity,
  config: typeof config === 'string' || config === null ? (config as string | null) : JSON.stringify(config),
});

const outcome = (type: PolicyRuleType, config: unknown, over: Partial<PolicySubject> = {}) =>
  evaluatePolicyRule(rule(type, config), subject(over));

/** A configuration that passes the default subject, per type. */
const PASSING: Record<PolicyRuleType, Record<string, unknown>> = {
  AllowedIssuers: { allowed: ['iss-local'] },
  AllowedDomains: { allowed: ['example.com'] },
  RequiredMetadata: { required_keys: ['team'] },
  AllowedEnvironments: { allowed: ['production'] },
  RenewalLeadTime: { lead_time_days: 30 },
  CertificateLifetime: { max_days: 90 },
};

describe('evaluatePolicyRule', () => {
  describe.each(POLICY_RULE_TYPES.map((type) => [type]))('%s', (type) => {
    const field = POLICY_CONFIG_FIELD[type];

    it('passes a certificate inside the rule', () => {
      expect(outcome(type, PASSING[type])).toEqual({ outcome: 'pass' });
    });

    it.each([
      ['null config', null],
      ['empty text', ''],
      ['blank text', '   '],
      ['JSON null', 'null'],
      ['an empty object', {}],
      ['the field absent', { other: 1 }],
      ['the field null', { [field]: null }],
    ])('reports the missing-field violation for %s, with the rule severity', (_label, config) => {
      expect(evaluatePolicyRule(rule(type, config, 'Critical'), subject())).toEqual({
        outcome: 'violation',
        severity: 'Critical',
        code: `${field}_missing`,
        message: `rule ${type} has no ${field} in its config`,
      });
    });

    it.each([
      ['text that is not JSON', '{"allowed": ['],
      ['JSON that is not an object', '["a"]'],
      ['a JSON string', '"a"'],
      ['a JSON number', '42'],
    ])('skips the rule for malformed config: %s', (_label, config) => {
      expect(outcome(type, config)).toMatchObject({ outcome: 'skipped', reason: expect.any(String) });
    });

    it('skips the rule when the field has the wrong type', () => {
      const wrong = field.endsWith('_days') ? { [field]: 'thirty' } : { [field]: 'not-a-list' };
      expect(outcome(type, wrong)).toMatchObject({ outcome: 'skipped' });
      expect(outcome(type, { [field]: field.endsWith('_days') ? -1 : [1] })).toMatchObject({
        outcome: 'skipped',
      });
    });
  });

  it('AllowedIssuers flags an issuer outside the list', () => {
    expect(outcome('AllowedIssuers', { allowed: ['iss-vault'] })).toMatchObject({
      outcome: 'violation',
      code: 'issuer_not_allowed',
      message: expect.stringContaining('"iss-local"'),
    });
    expect(outcome('AllowedIssuers', { allowed: [] })).toMatchObject({ code: 'issuer_not_allowed' });
  });

  it('AllowedDomains checks the common name and every SAN, naming those outside', () => {
    const result = outcome(
      'AllowedDomains',
      { allowed: ['example.com'] },
      { sans: ['www.other.org', 'x.example.com'] },
    );
    expect(result).toMatchObject({ outcome: 'violation', code: 'domain_not_allowed' });
    expect((result as { message: string }).message).toContain('"www.other.org"');
    expect((result as { message: string }).message).not.toContain('x.example.com"');
    expect(
      outcome('AllowedDomains', { allowed: ['*.example.com'] }, { common_name: 'example.com', sans: [] }),
    ).toMatchObject({ code: 'domain_not_allowed' });
    expect(
      outcome('AllowedDomains', { allowed: ['example.com'] }, { sans: ['10.0.0.1', 'ops@example.com'] }),
    ).toEqual({ outcome: 'pass' });
  });

  it('RequiredMetadata flags keys absent from the tags or empty', () => {
    expect(outcome('RequiredMetadata', { required_keys: ['team', 'owner', 'cost_center'] })).toMatchObject({
      code: 'metadata_missing',
      message: 'required metadata "owner" missing from the tags',
    });
    expect(outcome('RequiredMetadata', { required_keys: ['team'] }, { tags: { team: ' ' } })).toMatchObject({
      code: 'metadata_missing',
    });
    expect(outcome('RequiredMetadata', { required_keys: [] })).toEqual({ outcome: 'pass' });
  });

  it('AllowedEnvironments flags an environment outside the list, the empty one included', () => {
    expect(outcome('AllowedEnvironments', { allowed: ['staging'] })).toMatchObject({
      code: 'environment_not_allowed',
    });
    expect(outcome('AllowedEnvironments', { allowed: ['production'] }, { environment: '' })).toMatchObject({
      code: 'environment_not_allowed',
    });
  });

  it('RenewalLeadTime flags a renewal window shorter than the lead time', () => {
    expect(outcome('RenewalLeadTime', { lead_time_days: 31 })).toMatchObject({
      code: 'renewal_lead_time_too_short',
      message: expect.stringContaining('30 days'),
    });
    expect(outcome('RenewalLeadTime', { lead_time_days: 30 })).toEqual({ outcome: 'pass' });
    expect(outcome('RenewalLeadTime', { lead_time_days: 31 }, { renewal_window_days: null })).toEqual({
      outcome: 'pass',
    });
  });

  it('CertificateLifetime flags a validity span above max_days, and passes without a version', () => {
    expect(outcome('CertificateLifetime', { max_days: 89 })).toMatchObject({
      code: 'lifetime_exceeded',
      message: 'the validity of 90 days exceeds the maximum of 89 days',
    });
    expect(outcome('CertificateLifetime', { max_days: 90 })).toEqual({ outcome: 'pass' });
    expect(outcome('CertificateLifetime', { max_days: 1 }, { not_before: null, not_after: null })).toEqual({
      outcome: 'pass',
    });
  });

  it('evaluatePolicyRules skips a malformed rule and still evaluates the others', () => {
    const results = evaluatePolicyRules(
      [rule('AllowedIssuers', '{oops'), rule('AllowedEnvironments', { allowed: ['dev'] }, 'Warning')],
      subject(),
    );
    expect(results.map((r) => r.outcome.outcome)).toEqual(['skipped', 'violation']);
    expect(results[1].outcome).toMatchObject({ severity: 'Warning' });
  });
});

describe('domain matching', () => {
  it.each([
    ['example.com', ['example.com'], true],
    ['a.b.example.com', ['example.com'], true],
    ['EXAMPLE.com.', ['example.COM'], true],
    ['badexample.com', ['example.com'], false],
    ['example.com', ['.example.com'], false],
    ['a.example.com', ['.example.com'], true],
    ['a.example.com', ['*.example.com'], true],
    ['*.example.com', ['*.example.com'], true],
    ['*.example.com', ['example.com'], true],
    ['example.com', ['*.example.com'], false],
    ['example.org', [], false],
    ['example.org', [''], false],
  ])('%s against %j: %s', (name, patterns, expected) => {
    expect(domainAllowed(name, patterns)).toBe(expected);
  });

  it.each([
    ['www.example.com', 'www.example.com'],
    ['ops@Mail.Example.com', 'mail.example.com'],
    ['https://api.example.com:8443/x', 'api.example.com'],
    ['10.1.2.3', null],
    ['2001:db8::1', null],
    ['', null],
  ])('domainOf(%s) = %s', (name, expected) => {
    expect(domainOf(name)).toBe(expected);
  });
});

describe('policy config', () => {
  it('parses objects, and tells empty from malformed', () => {
    expect(parsePolicyConfig('{"allowed":["a"]}')).toEqual({ kind: 'object', value: { allowed: ['a'] } });
    expect(parsePolicyConfig(null)).toEqual({ kind: 'empty' });
    expect(parsePolicyConfig('{}')).toEqual({ kind: 'empty' });
    expect(parsePolicyConfig('{')).toMatchObject({ kind: 'malformed' });
    expect(parsePolicyConfig('[]')).toMatchObject({ kind: 'malformed' });
  });

  it('refuses an object config whose field has the wrong type, accepts empty and string configs', () => {
    expect(configProblem('RequiredMetadata', { required_keys: 'team' })).toBe(
      'required_keys must be an array of strings',
    );
    expect(configProblem('CertificateLifetime', { max_days: 1.5 })).toBe(
      'max_days must be a non-negative integer',
    );
    expect(configProblem('CertificateLifetime', {})).toBeNull();
    expect(configProblem('CertificateLifetime', null)).toBeNull();
    expect(configProblem('CertificateLifetime', '{not json')).toBeNull();
    expect(configProblem('AllowedDomains', { allowed: ['example.com'] })).toBeNull();
  });

  it('stores objects as JSON and strings verbatim', () => {
    expect(configText({ a: 1 })).toBe('{"a":1}');
    expect(configText('{oops')).toBe('{oops');
    expect(configText(null)).toBeNull();
    expect(configText(undefined)).toBeNull();
  });
});
