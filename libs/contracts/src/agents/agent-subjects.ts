import { EventContract, RequestContract, shape } from '../messaging/contract';
import { Page } from '../pagination/page';
import {
  CreateTargetRequest,
  ListTargetsRequest,
  TargetDeleted,
  TargetDto,
  TargetIdRequest,
  TargetTestResult,
  UpdateTargetRequest,
} from '../targets/target.dto';
import {
  AgentDto,
  AgentHeartbeatRequest,
  AgentIdRequest,
  AgentIssuanceDependencies,
  AgentRegistered,
  AgentRegisteredEvent,
  AgentRetiredEvent,
  AgentRetirement,
  AgentSummary,
  AgentSummaryRequest,
  CountAgentDependenciesRequest,
  ListAgentsRequest,
  ListRetiredAgentsRequest,
  RegisterAgentRequest,
  RetireAgentRequest,
  RetiredAgentKeyAnswer,
  RetiredAgentKeyRequest,
} from './agent.dto';

/** Agents and targets (deployment-dispatch), and what issuance counts for a retirement (ADR 0026). */
export const agentRequestContracts = {
  'deployment-dispatch.v1.list-agents': { request: ListAgentsRequest, response: shape<Page<AgentDto>>() },
  'deployment-dispatch.v1.list-retired-agents': {
    request: ListRetiredAgentsRequest,
    response: shape<Page<AgentDto>>(),
  },
  'deployment-dispatch.v1.get-agent': { request: AgentIdRequest, response: shape<AgentDto>() },
  'deployment-dispatch.v1.get-agent-summary': {
    request: AgentSummaryRequest,
    response: shape<AgentSummary>(),
  },
  'deployment-dispatch.v1.register-agent': {
    request: RegisterAgentRequest,
    response: shape<AgentRegistered>(),
  },
  'deployment-dispatch.v1.agent-heartbeat': { request: AgentHeartbeatRequest, response: shape<AgentDto>() },
  'deployment-dispatch.v1.retire-agent': { request: RetireAgentRequest, response: shape<AgentRetirement>() },
  'deployment-dispatch.v1.identify-retired-agent-key': {
    request: RetiredAgentKeyRequest,
    response: shape<RetiredAgentKeyAnswer>(),
  },
  'deployment-dispatch.v1.list-targets': { request: ListTargetsRequest, response: shape<Page<TargetDto>>() },
  'deployment-dispatch.v1.get-target': { request: TargetIdRequest, response: shape<TargetDto>() },
  'deployment-dispatch.v1.create-target': { request: CreateTargetRequest, response: shape<TargetDto>() },
  'deployment-dispatch.v1.update-target': { request: UpdateTargetRequest, response: shape<TargetDto>() },
  'deployment-dispatch.v1.delete-target': { request: TargetIdRequest, response: shape<TargetDeleted>() },
  'deployment-dispatch.v1.test-target': { request: TargetIdRequest, response: shape<TargetTestResult>() },
  'issuance.v1.count-agent-dependencies': {
    request: CountAgentDependenciesRequest,
    response: shape<AgentIssuanceDependencies>(),
  },
} satisfies Record<string, RequestContract<object, unknown>>;

export const agentEventContracts = {
  'deployment-dispatch.v1.agent.registered': { payload: shape<AgentRegisteredEvent>() },
  'deployment-dispatch.v1.agent.retired': { payload: shape<AgentRetiredEvent>() },
  'deployment-dispatch.v1.target.created': { payload: shape<TargetDto>() },
  'deployment-dispatch.v1.target.updated': { payload: shape<TargetDto>() },
  'deployment-dispatch.v1.target.deleted': { payload: shape<TargetDeleted>() },
} satisfies Record<string, EventContract<unknown>>;
