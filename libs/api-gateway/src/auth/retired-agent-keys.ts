import { Inject, Injectable, SetMetadata } from '@nestjs/common';
import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { bearerToken } from './api-key-verifier';
import { Credentials } from './authenticator';
import { PrincipalCache } from './principal-cache';

export const RETIRED_AGENT_ROUTE = 'certlane:retired-agent-route';

/**
 * Marks the route a retired agent still reaches with its own (revoked) key: the heartbeat of
 * `/agents/:id`, which answers it 410 `agent_retired` so the agent exits (spec 3, 4.7; ADR 0042).
 */
export const RetiredAgentAnswered = (): MethodDecorator => SetMetadata(RETIRED_AGENT_ROUTE, true);

/**
 * A retired agent's key is revoked at retirement (ADR 0026), so authentication refuses it. On the
 * agent's heartbeat that refusal is turned into 410 when the key is the one the retired agent was
 * registered with: deployment-dispatch keeps every agent's key hash, and answers by it. Any other
 * refused key keeps its 401, as does every other route, and so does this one when
 * deployment-dispatch cannot answer (the key is not valid either way).
 */
@Injectable()
export class RetiredAgentKeys {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: Pick<MessageBus, 'request'>) {}

  /** The error to answer instead of `refusal` on agent `agentId`'s heartbeat. */
  async refusalFor(
    refusal: unknown,
    credentials: Credentials,
    agentId: string | undefined,
  ): Promise<unknown> {
    if (!(refusal instanceof CertlaneError && refusal.code === ErrorCode.Unauthenticated)) return refusal;
    const token = bearerToken(credentials.authorization);
    if (!token || !agentId) return refusal;
    try {
      const answer = await this.bus.request(
        'deployment-dispatch.v1.identify-retired-agent-key',
        { id: agentId, key_hash: PrincipalCache.keyOf(token) },
        { context: { request_id: credentials.requestId } },
      );
      if (!answer.retired) return refusal;
    } catch {
      return refusal;
    }
    return new CertlaneError(ErrorCode.AgentRetired, `agent ${JSON.stringify(agentId)} is retired`);
  }
}
