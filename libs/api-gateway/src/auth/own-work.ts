import { agentActorId, CertlaneError, ErrorCode } from '@certlane/contracts';
import { Actor } from './actor';

/**
 * An agent sees and touches only its own work (ADR 0027): the caller's actor id must be
 * `agent.<id>` (the actor of the agent's API key), or the caller an admin (support). Checked
 * before the body is read, so another agent learns nothing from validation errors either.
 */
export function assertOwnWorkOf(actor: Actor | undefined, agentId: string): void {
  if (actor && (actor.admin || actor.id === agentActorId(agentId))) return;
  throw new CertlaneError(
    ErrorCode.Forbidden,
    `only agent ${JSON.stringify(agentId)} (API key actor ${agentActorId(agentId)}) or an admin may use its work routes`,
    { agent_id: agentId },
  );
}
