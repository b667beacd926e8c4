import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { SYSTEM_ACTOR } from '@certlane/contracts';
import { CertlaneLogger, LOGGER, MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { JobService } from '../jobs/job.service';

/** Durable consumer of issuance that withdraws a retired agent's waiting jobs (shared by every replica). */
export const AGENT_RETIRED_JOBS_CONSUMER = 'issuance-agent-retired-jobs';

/** The last_error of a job cancelled because its agent was retired. */
export function agentRetiredReason(agentId: string, reason: string | null | undefined): string {
  return `agent ${JSON.stringify(agentId)} was retired${reason ? `: ${reason}` : ''}`;
}

/**
 * `deployment-dispatch.v1.agent.retired`: the agent's Pending, AwaitingCSR and AwaitingApproval
 * jobs are cancelled with the retirement as their reason (ADR 0042), so none waits for an agent
 * that will never come. A failure is retried (the event comes back) until it goes through.
 */
@Injectable()
export class AgentRetirementHandler implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    private readonly jobs: JobService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.consume(
      'deployment-dispatch.v1.agent.retired',
      AGENT_RETIRED_JOBS_CONSUMER,
      async (envelope) => {
        const { agent_id: agentId, reason } = envelope.data;
        try {
          const withdrawn = await this.jobs.withdrawAgentJobs(agentId, agentRetiredReason(agentId, reason), {
            actor_id: SYSTEM_ACTOR,
            request_id: `agent-retired:${agentId}`.slice(0, 128),
          });
          if (withdrawn.length > 0) {
            this.logger.info(
              { agent_id: agentId, job_ids: withdrawn },
              'cancelled the jobs of a retired agent',
            );
          }
        } catch (error) {
          this.logger.warn(
            { err: error, agent_id: agentId },
            'cancelling a retired agent’s jobs failed; retrying',
          );
          throw error;
        }
      },
    );
  }
}
