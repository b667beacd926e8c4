import { Inject, Injectable } from '@nestjs/common';
import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { bearerToken } from './api-key-verifier';
import { Credentials } from './authenticator';
import { PrincipalCache } from './principal-cache';

/**
 * A retired agent's key is revoked at retirement (ADR 0026), so authentication refuses it. On the
 * agent's heartbeat (a declared route with `retiredAgent`) that refusal is turned into 410 when the key is the one the retired agent was
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
