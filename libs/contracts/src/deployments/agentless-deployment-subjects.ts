import { RequestContract, shape } from '../messaging/contract';
import { JobDto } from '../jobs/job.dto';
import {
  AgentlessDeploymentStart,
  FinishAgentlessDeploymentRequest,
  StartAgentlessDeploymentRequest,
} from './agentless-deployment.dto';

/** Agentless deployments (ADR 0031): served by issuance, called by deployment-dispatch. */
export const agentlessDeploymentRequestContracts = {
  'issuance.v1.start-agentless-deployment': {
    request: StartAgentlessDeploymentRequest,
    response: shape<AgentlessDeploymentStart>(),
  },
  'issuance.v1.finish-agentless-deployment': {
    request: FinishAgentlessDeploymentRequest,
    response: shape<JobDto>(),
  },
} satisfies Record<string, RequestContract<object, unknown>>;
