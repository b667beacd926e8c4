import { PolicyRuleType } from '@certlane/contracts';

/** The config key each rule type reads (spec 2.6). */
export const POLICY_CONFIG_FIELD: Readonly<Record<PolicyRuleType, string>> = {
  AllowedIssuers: 'allowed',
  AllowedDomains: 'allowed',
  RequiredMetadata: 'required_keys',
  AllowedEnvironments: 'allowed',
  RenewalLeadTime: 'lead_time_days',
  CertificateLifetime: 'max_days',
};

/** What a stored config text is. */
export type ParsedPolicyConfig =
  /** null, blank text, `null` or `{}`: the type's missing-field violation. */
  | { kind: 'empty' }
  | { kind: 'object'; value: Record<string, unknown> }
  /** Not JSON, or JSON that is not an object: the rule is skipped. */
  | { kind: 'malformed'; error: string };

export function parsePolicyConfig(text: string | null): ParsedPolicyConfig {
  if (text === null || text.trim() === '') return { kind: 'empty' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { kind: 'malformed', error: `config is not valid JSON: ${(error as Error).message}` };
  }
  if (value === null) return { kind: 'empty' };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { kind: 'malformed', error: 'config is JSON but not an object' };
  }
  const object = value as Record<string, unknown>;
  return Object.keys(object).length === 0 ? { kind: 'empty' } : { kind: 'object', value: object };
}

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');
const isNonNegativeInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0;

/**
 * The value of the type's field: `missing` when absent (or null), `invalid` when it has the wrong
 * type (an array of strings for lists, a non-negative integer for day counts).
 */
export function configField(
  type: PolicyRuleType,
  config: Record<string, unknown>,
):
  | { kind: 'missing' }
  | { kind: 'invalid'; error: string }
  | { kind: 'list'; value: string[] }
  | { kind: 'days'; value: number } {
  const field = POLICY_CONFIG_FIELD[type];
  const value = config[field];
  if (value === undefined || value === null) return { kind: 'missing' };
  if (type === 'RenewalLeadTime' || type === 'CertificateLifetime') {
    return isNonNegativeInteger(value)
      ? { kind: 'days', value }
      : { kind: 'invalid', error: `${field} must be a non-negative integer` };
  }
  return isStringArray(value)
    ? { kind: 'list', value }
    : { kind: 'invalid', error: `${field} must be an array of strings` };
}

/**
 * What the API refuses (400): an object config whose field has the wrong type. An absent field or
 * an empty object is accepted (the rule then reports its missing-field violation, spec 2.6);
 * a string config is stored verbatim and checked at evaluation (malformed text skips the rule).
 */
export function configProblem(type: PolicyRuleType, config: unknown): string | null {
  if (config === null || config === undefined || typeof config === 'string') return null;
  const field = configField(type, config as Record<string, unknown>);
  return field.kind === 'invalid' ? field.error : null;
}

/** The text stored for a config given to the API. */
export function configText(config: unknown): string | null {
  if (config === null || config === undefined) return null;
  return typeof config === 'string' ? config : JSON.stringify(config);
}
