import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  CertificateStatus,
  Page,
  PolicyRuleDto,
  PolicyRuleType,
  PolicySeverity,
  PolicyViolationDto,
  ResolvedPage,
} from '@certlane/contracts';
import { parsePolicyConfig, PolicyRuleInput, PolicySubject } from '@certlane/issuance-domain';
import { DataSource, EntityManager } from 'typeorm';
import { pageOf } from '@certlane/issuance-data-access';
import { ViolationCountRow } from './violation-summary';

type Executor = Pick<EntityManager, 'query'>;

export interface PolicyRuleRow {
  id: string;
  name: string;
  type: PolicyRuleType;
  severity: PolicySeverity;
  config: string | null;
  enabled: boolean;
  description: string;
  created_at: Date;
  updated_at: Date;
}

export type PolicyRuleFields = Omit<PolicyRuleRow, 'id' | 'created_at' | 'updated_at'>;

interface ViolationRow {
  id: string;
  rule_id: string;
  rule_type: PolicyRuleType;
  certificate_id: string;
  severity: PolicySeverity;
  code: string;
  message: string;
  detected_at: Date;
  last_evaluated_at: Date;
}

/** A certificate as the rules see it, with the id it is stored under. */
export interface StoredPolicySubject extends PolicySubject {
  id: string;
  status: CertificateStatus;
}

/** A finding to store: one open violation per rule and certificate. */
export interface ViolationWrite {
  rule_id: string;
  certificate_id: string;
  severity: PolicySeverity;
  code: string;
  message: string;
}

const RULE_COLUMNS = 'id, name, type, severity, config, enabled, description, created_at, updated_at';

export function policyRuleDto(row: PolicyRuleRow): PolicyRuleDto {
  const parsed = parsePolicyConfig(row.config);
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    severity: row.severity,
    config:
      parsed.kind === 'object'
        ? parsed.value
        : parsed.kind === 'empty'
          ? row.config === null
            ? null
            : {}
          : row.config,
    config_error: parsed.kind === 'malformed' ? parsed.error : null,
    enabled: row.enabled,
    description: row.description,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function violationDto(row: ViolationRow): PolicyViolationDto {
  return {
    id: row.id,
    rule_id: row.rule_id,
    rule_type: row.rule_type,
    certificate_id: row.certificate_id,
    severity: row.severity,
    code: row.code,
    message: row.message,
    detected_at: row.detected_at.toISOString(),
    last_evaluated_at: row.last_evaluated_at.toISOString(),
  };
}

const SUBJECT_SELECT = `SELECT c.id, c.status, c.common_name, c.sans, c.environment, coalesce(c.issuer_id, '') AS issuer_id, c.tags,
    c.not_before, c.expires_at AS not_after, rp.renewal_window_days
  FROM certificates c LEFT JOIN renewal_policies rp ON rp.id = c.renewal_policy_id`;

/** Policy rules and violations in schema issuance (raw SQL). */
@Injectable()
export class PolicyRepository {
  constructor(@InjectDataSource('issuance') readonly dataSource: DataSource) {}

  async list(page: ResolvedPage): Promise<Page<PolicyRuleDto>> {
    const [rows, [{ total }]] = await Promise.all([
      this.dataSource.query(
        `SELECT ${RULE_COLUMNS} FROM policy_rules ORDER BY created_at, id LIMIT $1 OFFSET $2`,
        [page.per_page, page.offset],
      ) as Promise<PolicyRuleRow[]>,
      this.dataSource.query('SELECT count(*)::int AS total FROM policy_rules') as Promise<
        { total: number }[]
      >,
    ]);
    return pageOf(rows.map(policyRuleDto), total, page);
  }

  async find(
    id: string,
    executor: Executor = this.dataSource.manager,
    lock = false,
  ): Promise<PolicyRuleRow | null> {
    const rows: PolicyRuleRow[] = await executor.query(
      `SELECT ${RULE_COLUMNS} FROM policy_rules WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ?? null;
  }

  async insert(executor: Executor, id: string, fields: PolicyRuleFields): Promise<PolicyRuleRow> {
    const rows: PolicyRuleRow[] = await executor.query(
      `INSERT INTO policy_rules (id, name, type, severity, config, enabled, description)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${RULE_COLUMNS}`,
      [id, fields.name, fields.type, fields.severity, fields.config, fields.enabled, fields.description],
    );
    return rows[0];
  }

  async update(executor: Executor, id: string, fields: PolicyRuleFields): Promise<PolicyRuleRow> {
    const [rows]: [PolicyRuleRow[], number] = await executor.query(
      `UPDATE policy_rules SET name = $2, type = $3, severity = $4, config = $5, enabled = $6, description = $7,
         updated_at = now() WHERE id = $1 RETURNING ${RULE_COLUMNS}`,
      [id, fields.name, fields.type, fields.severity, fields.config, fields.enabled, fields.description],
    );
    return rows[0];
  }

  /** Violations take their rule's severity: open ones follow an edit of it. */
  async setOpenSeverity(executor: Executor, ruleId: string, severity: PolicySeverity): Promise<void> {
    await executor.query(
      `UPDATE policy_violations SET severity = $2 WHERE rule_id = $1 AND resolved_at IS NULL AND severity <> $2`,
      [ruleId, severity],
    );
  }

  /** Closes every open violation of a rule (it was disabled, or its type changed). */
  async resolveAllOf(executor: Executor, ruleId: string): Promise<void> {
    await executor.query(
      `UPDATE policy_violations SET resolved_at = now() WHERE rule_id = $1 AND resolved_at IS NULL`,
      [ruleId],
    );
  }

  async delete(executor: Executor, id: string): Promise<boolean> {
    const [, affected]: [unknown, number] = await executor.query('DELETE FROM policy_rules WHERE id = $1', [
      id,
    ]);
    return affected > 0;
  }

  /** The rules evaluation runs: enabled ones, in a stable order. */
  enabledRules(
    executor: Executor = this.dataSource.manager,
  ): Promise<(PolicyRuleInput & { name: string })[]> {
    return executor.query(
      'SELECT id, name, type, severity, config FROM policy_rules WHERE enabled ORDER BY id',
    ) as Promise<(PolicyRuleInput & { name: string })[]>;
  }

  /**
   * The enabled rules, share-locked for the caller's transaction before it writes violations: a
   * rule being disabled, retyped or reconfigured concurrently is waited for and then read as
   * committed, so no violation is written for a rule that has just been disabled.
   */
  lockEnabledRules(executor: Executor): Promise<(PolicyRuleInput & { name: string })[]> {
    return executor.query(
      'SELECT id, name, type, severity, config FROM policy_rules WHERE enabled ORDER BY id FOR SHARE',
    ) as Promise<(PolicyRuleInput & { name: string })[]>;
  }

  /** The open violations of every rule, counted once (the partial index holds only open ones). */
  async violationSummary(): Promise<ViolationCountRow[]> {
    return this.dataSource.query(
      `SELECT severity, count(*)::int AS open, count(DISTINCT rule_id)::int AS rules,
         count(DISTINCT certificate_id)::int AS certificates
       FROM policy_violations WHERE resolved_at IS NULL GROUP BY GROUPING SETS ((severity), ())`,
    );
  }

  async listViolations(ruleId: string, page: ResolvedPage): Promise<Page<PolicyViolationDto>> {
    const [rows, [{ total }]] = await Promise.all([
      this.dataSource.query(
        `SELECT v.id, v.rule_id, r.type AS rule_type, v.certificate_id, v.severity, v.code, v.message,
           v.detected_at, v.last_evaluated_at
         FROM policy_violations v JOIN policy_rules r ON r.id = v.rule_id
         WHERE v.rule_id = $1 AND v.resolved_at IS NULL
         ORDER BY v.detected_at DESC, v.id DESC LIMIT $2 OFFSET $3`,
        [ruleId, page.per_page, page.offset],
      ) as Promise<ViolationRow[]>,
      this.dataSource.query(
        'SELECT count(*)::int AS total FROM policy_violations WHERE rule_id = $1 AND resolved_at IS NULL',
        [ruleId],
      ) as Promise<{ total: number }[]>,
    ]);
    return pageOf(rows.map(violationDto), total, page);
  }

  subjects(executor: Executor, certificateIds: string[]): Promise<StoredPolicySubject[]> {
    return executor.query(`${SUBJECT_SELECT} WHERE c.id = ANY($1::text[]) ORDER BY c.id`, [certificateIds]);
  }

  /**
   * The sweep's batch: certificates in (after, end] (to the last one when `end` is null), other
   * than Archived ones, share-locked with SKIP LOCKED: a row a writer holds is skipped, since the
   * writer evaluates it in its own transaction.
   */
  subjectBatch(executor: Executor, after: string, end: string | null): Promise<StoredPolicySubject[]> {
    return executor.query(
      `${SUBJECT_SELECT} WHERE c.id > $1 AND ($2::text IS NULL OR c.id <= $2) AND c.status <> 'Archived'
       ORDER BY c.id FOR SHARE OF c SKIP LOCKED`,
      [after, end],
    );
  }

  /** The id that ends the batch of `limit` ids after `after`; null when fewer remain. */
  async batchEnd(after: string, limit: number): Promise<string | null> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM certificates WHERE id > $1 ORDER BY id OFFSET $2 LIMIT 1`,
      [after, limit - 1],
    );
    return rows[0]?.id ?? null;
  }

  /**
   * Writes the outcome of evaluating `evaluated` rules on `certificateIds`: each finding opens (or
   * refreshes) the one open violation of its rule and certificate; every other open violation of
   * those rules on those certificates is resolved. Set-based, in the caller's transaction.
   */
  async replaceViolations(
    executor: Executor,
    certificateIds: string[],
    evaluatedRuleIds: string[],
    findings: ViolationWrite[],
  ): Promise<void> {
    if (certificateIds.length === 0 || evaluatedRuleIds.length === 0) return;
    const sorted = [...findings].sort(
      (a, b) => a.rule_id.localeCompare(b.rule_id) || a.certificate_id.localeCompare(b.certificate_id),
    );
    await executor.query(
      `UPDATE policy_violations v SET resolved_at = now(), last_evaluated_at = now()
       WHERE v.resolved_at IS NULL AND v.certificate_id = ANY($1::text[]) AND v.rule_id = ANY($2::text[])
         AND NOT EXISTS (SELECT 1 FROM unnest($3::text[], $4::text[]) AS f(rule_id, certificate_id)
                          WHERE f.rule_id = v.rule_id AND f.certificate_id = v.certificate_id)`,
      [certificateIds, evaluatedRuleIds, sorted.map((f) => f.rule_id), sorted.map((f) => f.certificate_id)],
    );
    if (sorted.length === 0) return;
    await executor.query(
      `INSERT INTO policy_violations (id, rule_id, certificate_id, severity, code, message)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
       ON CONFLICT (rule_id, certificate_id) WHERE resolved_at IS NULL DO UPDATE SET
         severity = EXCLUDED.severity,
         message = EXCLUDED.message,
         detected_at = CASE WHEN policy_violations.code = EXCLUDED.code THEN policy_violations.detected_at ELSE now() END,
         code = EXCLUDED.code,
         last_evaluated_at = now()`,
      [
        sorted.map(() => `pv-${randomUUID()}`),
        sorted.map((f) => f.rule_id),
        sorted.map((f) => f.certificate_id),
        sorted.map((f) => f.severity),
        sorted.map((f) => f.code),
        sorted.map((f) => f.message),
      ],
    );
  }

  /** The renewal window of a renewal policy, or null when it does not exist. */
  async renewalWindowDays(id: string): Promise<number | null> {
    const rows: { renewal_window_days: number }[] = await this.dataSource.query(
      'SELECT renewal_window_days FROM renewal_policies WHERE id = $1',
      [id],
    );
    return rows[0]?.renewal_window_days ?? null;
  }
}
