import {
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateBy,
} from 'class-validator';
import { CertificateFields } from '../certificates/certificate.dto';
import { PageQuery } from '../pagination/page';

/** Policy rule types (spec 2.6), TitleCase exact. */
export const POLICY_RULE_TYPES = [
  'AllowedIssuers',
  'AllowedDomains',
  'RequiredMetadata',
  'AllowedEnvironments',
  'RenewalLeadTime',
  'CertificateLifetime',
] as const;
export type PolicyRuleType = (typeof POLICY_RULE_TYPES)[number];

/** Rule and violation severities (spec 2.6, 2.7); Warning is the default on create. */
export const POLICY_SEVERITIES = ['Warning', 'Error', 'Critical'] as const;
export type PolicySeverity = (typeof POLICY_SEVERITIES)[number];
export const DEFAULT_POLICY_SEVERITY: PolicySeverity = 'Warning';

/** The longest config text stored (a JSON object or the raw text given). */
export const POLICY_CONFIG_MAX_CHARS = 65_536;

/**
 * A rule's config as stored and returned: the JSON object, or, when the stored text does not
 * parse as a JSON object, that text as given (the rule is then skipped; see `config_error`).
 */
export type PolicyConfig = Record<string, unknown> | string | null;

/** A policy rule as the API returns it (docs/decisions/0028-policy-rules-and-renewal-scheduling.md). */
export interface PolicyRuleDto {
  id: string;
  name: string;
  type: PolicyRuleType;
  severity: PolicySeverity;
  config: PolicyConfig;
  /** Why the stored config is skipped at evaluation (malformed JSON); null when it is usable. */
  config_error: string | null;
  enabled: boolean;
  description: string;
  created_at: string;
  updated_at: string;
}

export const IS_POLICY_CONFIG = 'isPolicyConfig';

/** PolicyConfig as JSON Schema, for the API description (ADR 0049). */
export const POLICY_CONFIG_JSON_SCHEMA = {
  description: `A JSON object, or its JSON text (at most ${POLICY_CONFIG_MAX_CHARS} characters), or null.`,
  anyOf: [
    { type: 'object', additionalProperties: true },
    { type: 'string', maxLength: POLICY_CONFIG_MAX_CHARS },
    { type: 'null' },
  ],
} as const;

/** An object or a string (raw JSON text, stored verbatim), either at most POLICY_CONFIG_MAX_CHARS long; or null. */
const IsPolicyConfig = () =>
  ValidateBy({
    name: IS_POLICY_CONFIG,
    validator: {
      validate: (value: unknown) =>
        value === null ||
        (typeof value === 'string' && value.length <= POLICY_CONFIG_MAX_CHARS) ||
        // An object is stored as its JSON text, which the store bounds too (a CHECK constraint).
        (typeof value === 'object' &&
          !Array.isArray(value) &&
          JSON.stringify(value).length <= POLICY_CONFIG_MAX_CHARS),
      defaultMessage: () =>
        `config must be a JSON object or a string of JSON text of at most ${POLICY_CONFIG_MAX_CHARS} characters, or null`,
    },
  });

const TypeField = () =>
  IsIn(POLICY_RULE_TYPES as unknown as string[], {
    message: `type must be one of ${POLICY_RULE_TYPES.join(', ')}`,
  });
const SeverityField = () =>
  IsIn(POLICY_SEVERITIES as unknown as string[], {
    message: `severity must be one of ${POLICY_SEVERITIES.join(', ')}`,
  });

/** The body of PUT /api/v1/policies/{id}: fields left out keep their stored value. */
export class PolicyRuleChanges {
  @IsOptional()
  @IsString()
  @Length(1, 255)
  name?: string;

  @IsOptional()
  @TypeField()
  type?: PolicyRuleType;

  @IsOptional()
  @SeverityField()
  severity?: PolicySeverity;

  /** Left out: kept. `null`: cleared (the rule then reports its missing-field violation). */
  @IsOptional()
  @IsPolicyConfig()
  config?: PolicyConfig;

  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;
}

/** POST /api/v1/policies. */
export class CreatePolicyRuleRequest {
  @IsString()
  @Length(1, 255)
  name!: string;

  @TypeField()
  type!: PolicyRuleType;

  /** Default Warning (spec 2.6). */
  @IsOptional()
  @SeverityField()
  severity?: PolicySeverity;

  @IsOptional()
  @IsPolicyConfig()
  config?: PolicyConfig;

  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;
}

export class UpdatePolicyRuleRequest extends PolicyRuleChanges {
  @IsString()
  @MaxLength(128)
  id!: string;
}

export class PolicyRuleIdRequest {
  @IsString()
  @MaxLength(128)
  id!: string;
}

export class ListPolicyRulesRequest extends PageQuery {}

export class ListPolicyViolationsRequest extends PageQuery {
  @IsString()
  @MaxLength(128)
  id!: string;
}

export interface PolicyRuleDeleted {
  id: string;
}

/** A stored violation (spec 2.7): one open row per rule and certificate. */
export interface PolicyViolationDto {
  id: string;
  rule_id: string;
  rule_type: PolicyRuleType;
  certificate_id: string;
  severity: PolicySeverity;
  /** Machine-readable: `<field>_missing` for empty config, otherwise what the rule found. */
  code: string;
  message: string;
  detected_at: string;
  last_evaluated_at: string;
}

/** GET /api/v1/policies/violations/summary: no parameters. */
export class PolicyViolationSummaryRequest {}

/**
 * GET /api/v1/policies/violations/summary: the open (unresolved) violations of every rule,
 * counted in SQL: the dashboard's number, by severity and by how many rules and certificates.
 */
export interface PolicyViolationSummary {
  open: number;
  by_severity: Record<PolicySeverity, number>;
  /** Rules with at least one open violation. */
  rules: number;
  /** Certificates with at least one open violation. */
  certificates: number;
  generated_at: string;
}

/** A proposed certificate for the dry run: certificate fields plus optional validity. */
export class EvaluatePoliciesRequest extends CertificateFields {
  @IsString()
  @Length(1, 253)
  common_name!: string;

  @IsOptional()
  @IsISO8601({ strict: true })
  not_before?: string;

  @IsOptional()
  @IsISO8601({ strict: true })
  not_after?: string;

  /** Validity in days from not_before (or now); ignored when not_after is given. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(36500)
  validity_days?: number;
}

/** One finding of the dry run. */
export interface PolicyFinding {
  rule_id: string;
  rule_name: string;
  rule_type: PolicyRuleType;
  severity: PolicySeverity;
  code: string;
  message: string;
}

export interface PolicyEvaluationResult {
  violations: PolicyFinding[];
  /** Enabled rules whose stored config is malformed: skipped, the others still evaluated. */
  skipped_rules: { rule_id: string; reason: string }[];
  evaluated_rules: number;
}

/** Operations trigger of one renewal sweep (bus only, not routed by the gateway). */
export class RunRenewalSweepRequest {}

export interface RenewalSweepResult {
  jobs_created: number;
  jobs_retried: number;
  expiry_warnings: number;
  /** `issuance.v1.ca.expiry-warning` events sent (ADR 0077). */
  ca_expiry_warnings: number;
  /** Due certificates left without a job: no issuer, or no agent in agent key generation (ADR 0042, 0043). */
  not_renewable: number;
  duration_ms: number;
}

/** Sent once per certificate, expiry date and alert threshold (renewal policy alert_thresholds_days). */
export interface CertificateExpiryWarning {
  certificate_id: string;
  common_name: string;
  environment: string;
  owner_id: string;
  team_id: string;
  renewal_policy_id: string;
  status: string;
  expires_at: string;
  threshold_days: number;
  days_remaining: number;
}
