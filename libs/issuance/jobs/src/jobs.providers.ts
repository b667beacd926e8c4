import { Provider } from '@nestjs/common';
import { AgentDependenciesHandler } from './agent-dependencies/agent-dependencies.handler';
import { AgentRetirementHandler } from './agent-dependencies/agent-retirement.handler';
import { AgentWorkHandlers } from './agent-work/agent-work.handlers';
import { AgentWorkRepository } from './agent-work/agent-work.repository';
import { AgentWorkService } from './agent-work/agent-work.service';
import { AgentlessDeploymentHandlers } from './agentless-deployments/agentless-deployment.handlers';
import { AgentlessDeploymentService } from './agentless-deployments/agentless-deployment.service';
import { BulkHandlers } from './bulk/bulk.handlers';
import { BulkRepository } from './bulk/bulk.repository';
import { BulkService } from './bulk/bulk.service';
import { EnrollmentExpirySweep } from './expiry/enrollment-expiry-sweep';
import { ExpiryLoop } from './expiry/expiry-loop';
import { ExpirySweep } from './expiry/expiry-sweep';
import { JobHandlers } from './jobs/job.handlers';
import { JobService } from './jobs/job.service';
import { StaleJobReaper } from './jobs/stale-job-reaper';
import { RenewalScheduler } from './renewals/renewal-scheduler';
import { RenewalHandlers } from './renewals/renewal.handlers';
import { RenewalRepository } from './renewals/renewal.repository';

/** Job routes, agent work, agentless deployments, agent retirement, renewals, expiry (certificates and enrollment approvals) and bulk operations (ADR 0024, 0026, 0027, 0031, 0065). */
export const JOBS_PROVIDERS: Provider[] = [
  BulkRepository,
  BulkService,
  BulkHandlers,
  JobService,
  JobHandlers,
  ExpirySweep,
  ExpiryLoop,
  EnrollmentExpirySweep,
  StaleJobReaper,
  AgentWorkRepository,
  AgentWorkService,
  AgentWorkHandlers,
  AgentlessDeploymentService,
  AgentlessDeploymentHandlers,
  AgentDependenciesHandler,
  AgentRetirementHandler,
  RenewalRepository,
  RenewalScheduler,
  RenewalHandlers,
];
