import { AgentDependencyCounts, SENTINEL_AGENT_IDS } from '@certlane/contracts';

export function isSentinelAgent(id: string): boolean {
  return (SENTINEL_AGENT_IDS as readonly string[]).includes(id);
}

export function hasDependencies(counts: AgentDependencyCounts): boolean {
  return counts.active_targets > 0 || counts.active_certificates > 0 || counts.pending_jobs > 0;
}

/** What DELETE /api/v1/agents/{id} does (spec 3 agent rows, 4.7), in the order the rules apply. */
export type RetirementDecision =
  /** 403: a sentinel agent, with or without force. */
  | { outcome: 'sentinel' }
  /** 400: force without a (non-blank) reason. */
  | { outcome: 'reason_required' }
  /** 204: nothing changes and nothing is audited. */
  | { outcome: 'already_retired' }
  /** 409 with the counts. */
  | { outcome: 'blocked'; counts: AgentDependencyCounts }
  /** 200: retire; `cascade` retires the agent's targets too and adds agent_retirement_cascaded. */
  | { outcome: 'retire'; cascade: boolean; reason: string | null };

export interface RetirementInput {
  id: string;
  retired: boolean;
  force: boolean;
  reason?: string;
  counts: AgentDependencyCounts;
}

export function decideRetirement(input: RetirementInput): RetirementDecision {
  if (isSentinelAgent(input.id)) return { outcome: 'sentinel' };
  const reason = input.reason?.trim() ? input.reason.trim() : null;
  if (input.force && !reason) return { outcome: 'reason_required' };
  if (input.retired) return { outcome: 'already_retired' };
  const blocked = hasDependencies(input.counts);
  if (blocked && !input.force) return { outcome: 'blocked', counts: input.counts };
  return { outcome: 'retire', cascade: input.force && blocked, reason };
}
