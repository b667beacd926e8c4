import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { CertlaneLogger, LOGGER, MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { AgentService } from './agent.service';

/** Durable consumer that revokes a retired agent's API key (shared by every replica). */
export const AGENT_KEY_REVOCATION_CONSUMER = 'deployment-dispatch-agent-key-revocation';

/** Serves the agent subjects of libs/contracts on the bus, and revokes the keys of retired agents. */
@Injectable()
export class AgentHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    private readonly agents: AgentService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('deployment-dispatch.v1.list-agents', (request) => this.agents.list(request, false)),
      this.bus.handle('deployment-dispatch.v1.list-retired-agents', (request) =>
        this.agents.list(request, true),
      ),
      this.bus.handle('deployment-dispatch.v1.get-agent', (request) => this.agents.get(request.id)),
      this.bus.handle('deployment-dispatch.v1.get-agent-summary', () => this.agents.summary()),
      this.bus.handle('deployment-dispatch.v1.register-agent', (request, context) =>
        this.agents.register(request, context),
      ),
      this.bus.handle('deployment-dispatch.v1.agent-heartbeat', (request, context) =>
        this.agents.heartbeat(request, context),
      ),
      this.bus.handle('deployment-dispatch.v1.retire-agent', (request, context) =>
        this.agents.retire(request, context),
      ),
      this.bus.handle('deployment-dispatch.v1.identify-retired-agent-key', (request) =>
        this.agents.identifyRetiredKey(request),
      ),
      // Idempotent: deleting a key twice is "not found", which counts as done. A failure is
      // retried (the event comes back after 1 s) until the auth service confirms.
      this.bus.consume(
        'deployment-dispatch.v1.agent.retired',
        AGENT_KEY_REVOCATION_CONSUMER,
        async (envelope) => {
          try {
            await this.agents.revokeKey(envelope.data.agent_id, envelope.data.api_key_id);
          } catch (error) {
            this.logger.warn(
              { err: error, agent_id: envelope.data.agent_id },
              'agent key revocation failed; retrying',
            );
            throw error;
          }
        },
      ),
    ]);
  }
}
