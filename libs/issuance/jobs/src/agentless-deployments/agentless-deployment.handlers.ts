import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { AgentlessDeploymentService } from './agentless-deployment.service';

/** Serves the agentless deployment subjects (ADR 0031) for deployment-dispatch. */
@Injectable()
export class AgentlessDeploymentHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly deployments: AgentlessDeploymentService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('issuance.v1.start-agentless-deployment', (request, context) =>
        this.deployments.start(request, context),
      ),
      this.bus.handle('issuance.v1.finish-agentless-deployment', (request, context) =>
        this.deployments.finish(request, context),
      ),
    ]);
  }
}
