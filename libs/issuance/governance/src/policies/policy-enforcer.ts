import { Injectable } from '@nestjs/common';
import { evaluatePolicyRule, isPolicyExempt, PolicyRuleInput } from '@certlane/issuance-domain';
import { EntityManager } from 'typeorm';
import { PolicyRepository, StoredPolicySubject, ViolationWrite } from './policy.repository';

type Executor = Pick<EntityManager, 'query'>;

/**
 * Evaluates the enabled policy rules on stored certificates and keeps their violations current:
 * in the caller's transaction on certificate create, update and issuance, and in batches by the
 * sweep. A rule whose config is malformed is skipped: its open violations are left as they are.
 * Revoked, archived and expired certificates raise none, and every open one of theirs is resolved.
 */
@Injectable()
export class PolicyEnforcer {
  constructor(readonly repository: PolicyRepository) {}

  /** Re-evaluates the given certificates (the caller holds their row locks). */
  async evaluateCertificates(executor: Executor, certificateIds: string[]): Promise<number> {
    const rules = await this.repository.lockEnabledRules(executor);
    if (rules.length === 0) return 0;
    return this.write(executor, await this.repository.subjects(executor, certificateIds), rules);
  }

  /** Evaluates `rules` on `subjects` and replaces their violations; returns the open findings. */
  async write(
    executor: Executor,
    subjects: StoredPolicySubject[],
    rules: PolicyRuleInput[],
  ): Promise<number> {
    const findings: ViolationWrite[] = [];
    const evaluated = new Set<string>();
    const exempt = subjects.filter((subject) => isPolicyExempt(subject.status));
    const live = subjects.filter((subject) => !isPolicyExempt(subject.status));
    for (const subject of live) {
      for (const rule of rules) {
        const outcome = evaluatePolicyRule(rule, subject);
        if (outcome.outcome === 'skipped') continue;
        evaluated.add(rule.id);
        if (outcome.outcome === 'violation') {
          findings.push({
            rule_id: rule.id,
            certificate_id: subject.id,
            severity: outcome.severity,
            code: outcome.code,
            message: outcome.message,
          });
        }
      }
    }
    await this.repository.replaceViolations(
      executor,
      live.map((subject) => subject.id),
      [...evaluated],
      findings,
    );
    if (exempt.length > 0) {
      await this.repository.replaceViolations(
        executor,
        exempt.map((subject) => subject.id),
        rules.map((rule) => rule.id),
        [],
      );
    }
    return findings.length;
  }
}
