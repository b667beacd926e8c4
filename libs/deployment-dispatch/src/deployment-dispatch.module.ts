import { DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@certlane/platform';
// Agents and targets (ADR 0026).
import { AgentHandlers } from './agents/agent.handlers';
import { AgentRepository } from './agents/agent.repository';
import { AgentService } from './agents/agent.service';
import { ConnectionProbe } from './targets/connection-probe';
import { TargetHandlers } from './targets/target.handlers';
import { TargetRepository } from './targets/target.repository';
import { TargetSecrets } from './targets/target-secrets';
import { TargetService } from './targets/target.service';
// Agentless SSH deployments (ADR 0031).
import { AgentlessDeploymentHandlers } from './deployments/agentless-deployment.handlers';
import { AgentlessDeploymentRunner } from './deployments/agentless-deployment.runner';

/**
 * The deployment-dispatch service: owns schema `deployment_dispatch` (agents, targets; the four
 * sentinel agents come from the baseline seed), answers `deployment-dispatch.v1.*`, and runs the
 * agentless SSH deployments (ADR 0031).
 */
@Module({})
export class DeploymentDispatchModule {
  static forRoot(): DynamicModule {
    return {
      module: DeploymentDispatchModule,
      imports: [ServiceCoreModule.forService({ service: 'deployment-dispatch' })],
      providers: [
        // Agents and targets (ADR 0026).
        AgentRepository,
        AgentService,
        AgentHandlers,
        TargetSecrets,
        TargetRepository,
        ConnectionProbe,
        TargetService,
        TargetHandlers,
        // Agentless SSH deployments (ADR 0031).
        AgentlessDeploymentRunner,
        AgentlessDeploymentHandlers,
      ],
    };
  }
}
