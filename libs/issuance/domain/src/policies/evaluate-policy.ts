import { PolicyRuleType, PolicySeverity } from '@certlane/contracts';
import { domainAllowed, domainOf } from './domain-match';
import { configField, parsePolicyConfig, POLICY_CONFIG_FIELD } from './policy-config';

const DAY_MS = 86_400_000;

/** What a rule looks at: a stored certificate, or a proposed one (the dry run). */
export interface PolicySubject {
  common_name: string;
  sans: readonly string[];
  environment: string;
  issuer_id: string;
  tags: Readonly<Record<string, string>>;
  /** The window of the certificate's renewal policy, in days; null when unknown. */
  renewal_window_days: number | null;
  /** Validity of the current (or proposed) version; null before the first issuance. */
  not_before: Date | null;
  not_after: Date | null;
}

/** A rule as stored: the config is the stored text, which may not parse. */
export interface PolicyRuleInput {
  id: string;
  type: PolicyRuleType;
  severity: PolicySeverity;
  config: string | null;
}

export type RuleOutcome =
  | { outcome: 'pass' }
  | { outcome: 'violation'; severity: PolicySeverity; code: string; message: string }
  /** Malformed config: this rule only is skipped (spec 2.6). */
  | { outcome: 'skipped'; reason: string };

const PASS: RuleOutcome = { outcome: 'pass' };

const list = (values: readonly string[]) => values.map((v) => JSON.stringify(v)).join(', ');

/** Evaluates one rule against one certificate: pure, one function per type below. */
export function evaluatePolicyRule(rule: PolicyRuleInput, subject: PolicySubject): RuleOutcome {
  const violation = (code: string, message: string): RuleOutcome => ({
    outcome: 'violation',
    severity: rule.severity,
    code,
    message,
  });
  const parsed = parsePolicyConfig(rule.config);
  if (parsed.kind === 'malformed') return { outcome: 'skipped', reason: parsed.error };
  const fieldName = POLICY_CONFIG_FIELD[rule.type];
  const missing = () =>
    violation(`${fieldName}_missing`, `rule ${rule.type} has no ${fieldName} in its config`);
  if (parsed.kind === 'empty') return missing();
  const field = configField(rule.type, parsed.value);
  if (field.kind === 'missing') return missing();
  if (field.kind === 'invalid') return { outcome: 'skipped', reason: `config ${field.error}` };

  switch (rule.type) {
    case 'AllowedIssuers':
      return allowedIssuers(field.kind === 'list' ? field.value : [], subject, violation);
    case 'AllowedDomains':
      return allowedDomains(field.kind === 'list' ? field.value : [], subject, violation);
    case 'RequiredMetadata':
      return requiredMetadata(field.kind === 'list' ? field.value : [], subject, violation);
    case 'AllowedEnvironments':
      return allowedEnvironments(field.kind === 'list' ? field.value : [], subject, violation);
    case 'RenewalLeadTime':
      return renewalLeadTime(field.kind === 'days' ? field.value : 0, subject, violation);
    case 'CertificateLifetime':
      return certificateLifetime(field.kind === 'days' ? field.value : 0, subject, violation);
  }
}

type Violation = (code: string, message: string) => RuleOutcome;

function allowedIssuers(allowed: string[], subject: PolicySubject, violation: Violation): RuleOutcome {
  return allowed.includes(subject.issuer_id)
    ? PASS
    : violation(
        'issuer_not_allowed',
        `issuer ${JSON.stringify(subject.issuer_id)} is not one of the allowed issuers (${list(allowed)})`,
      );
}

function allowedDomains(allowed: string[], subject: PolicySubject, violation: Violation): RuleOutcome {
  const names = [...new Set([subject.common_name, ...subject.sans])];
  const outside = names.filter((name) => {
    const domain = domainOf(name);
    return domain !== null && !domainAllowed(domain, allowed);
  });
  return outside.length === 0
    ? PASS
    : violation(
        'domain_not_allowed',
        `${list(outside)} ${outside.length === 1 ? 'is' : 'are'} outside the allowed domains (${list(allowed)})`,
      );
}

function requiredMetadata(required: string[], subject: PolicySubject, violation: Violation): RuleOutcome {
  const absent = required.filter((key) => {
    const value = subject.tags[key];
    return typeof value !== 'string' || value.trim() === '';
  });
  return absent.length === 0
    ? PASS
    : violation('metadata_missing', `required metadata ${list(absent)} missing from the tags`);
}

function allowedEnvironments(allowed: string[], subject: PolicySubject, violation: Violation): RuleOutcome {
  return allowed.includes(subject.environment)
    ? PASS
    : violation(
        'environment_not_allowed',
        `environment ${JSON.stringify(subject.environment)} is not one of ${list(allowed)}`,
      );
}

/** The renewal policy must start renewing at least `leadDays` before expiry. */
function renewalLeadTime(leadDays: number, subject: PolicySubject, violation: Violation): RuleOutcome {
  if (subject.renewal_window_days === null || subject.renewal_window_days >= leadDays) return PASS;
  return violation(
    'renewal_lead_time_too_short',
    `the renewal window of ${subject.renewal_window_days} days is shorter than the required lead time of ${leadDays} days`,
  );
}

/** The current version's validity span (not_after - not_before) must not exceed `maxDays`. */
function certificateLifetime(maxDays: number, subject: PolicySubject, violation: Violation): RuleOutcome {
  if (!subject.not_before || !subject.not_after) return PASS;
  const spanMs = subject.not_after.getTime() - subject.not_before.getTime();
  if (spanMs <= maxDays * DAY_MS) return PASS;
  const days = Math.round((spanMs / DAY_MS) * 100) / 100;
  return violation(
    'lifetime_exceeded',
    `the validity of ${days} days exceeds the maximum of ${maxDays} days`,
  );
}

/** Every rule against one certificate: the violations, and the rules skipped for malformed config. */
export function evaluatePolicyRules(
  rules: readonly PolicyRuleInput[],
  subject: PolicySubject,
): { rule: PolicyRuleInput; outcome: RuleOutcome }[] {
  return rules.map((rule) => ({ rule, outcome: evaluatePolicyRule(rule, subject) }));
}
