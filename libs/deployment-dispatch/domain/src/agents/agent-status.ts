import { AgentStatus } from '@certlane/contracts';

/** How often an agent heartbeats (the agent's default; ADR 0026). */
export const AGENT_HEARTBEAT_INTERVAL_SECONDS = 60;
/** Online while the last heartbeat is younger than two intervals: one missed heartbeat is tolerated. */
export const AGENT_ONLINE_WITHIN_SECONDS = 2 * AGENT_HEARTBEAT_INTERVAL_SECONDS;
/** Degraded until five minutes without a heartbeat; Offline after that, or when it never sent one. */
export const AGENT_DEGRADED_WITHIN_SECONDS = 5 * 60;

/**
 * An agent's status, derived when it is read (never stored, so it cannot go stale): Retired once
 * retired; otherwise by the age of its last heartbeat. A heartbeat time in the future (clock
 * step on the server) counts as age 0.
 */
export function agentStatus(
  agent: { last_heartbeat_at: Date | null; retired_at: Date | null },
  now: Date,
): AgentStatus {
  if (agent.retired_at) return 'Retired';
  if (!agent.last_heartbeat_at) return 'Offline';
  const ageSeconds = Math.max(0, (now.getTime() - agent.last_heartbeat_at.getTime()) / 1000);
  if (ageSeconds < AGENT_ONLINE_WITHIN_SECONDS) return 'Online';
  if (ageSeconds < AGENT_DEGRADED_WITHIN_SECONDS) return 'Degraded';
  return 'Offline';
}

/**
 * The heartbeat times that separate the statuses at `now`, for counting in SQL with the same
 * rules as agentStatus: Online after `onlineAfter`, Degraded after `degradedAfter`, Offline else.
 */
export function agentStatusCutoffs(now: Date): { onlineAfter: Date; degradedAfter: Date } {
  return {
    onlineAfter: new Date(now.getTime() - AGENT_ONLINE_WITHIN_SECONDS * 1000),
    degradedAfter: new Date(now.getTime() - AGENT_DEGRADED_WITHIN_SECONDS * 1000),
  };
}
