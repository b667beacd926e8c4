import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { AgentlessDeploymentRunner } from './agentless-deployment.runner';

/** Durable consumer of new jobs, shared by every replica (ADR 0031). */
export const AGENTLESS_DEPLOYMENT_CONSUMER = 'deployment-dispatch-agentless-deployments';

@Injectable()
export class AgentlessDeploymentHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly runner: AgentlessDeploymentRunner,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Idempotent: a redelivered event finds the job no longer Pending and claims nothing.
    await this.bus.consume('issuance.v1.job.created', AGENTLESS_DEPLOYMENT_CONSUMER, (envelope) =>
      this.runner.onJobCreated(envelope.data),
    );
  }
}
