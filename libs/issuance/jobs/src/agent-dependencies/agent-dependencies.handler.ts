import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { AgentIssuanceDependencies } from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { DataSource } from 'typeorm';

/** Job statuses that still need their agent (ADR 0026). */
export const OPEN_JOB_STATUSES = ['Pending', 'AwaitingCSR', 'Running', 'AwaitingApproval'] as const;

/**
 * `issuance.v1.count-agent-dependencies`: what blocks an agent's retirement on the issuance side
 * (spec 2.4): its certificates that are neither Archived nor Revoked, and the open jobs assigned
 * to it or to its certificates. Two indexed counts (certificates_agent, jobs_agent_open /
 * jobs_certificate).
 */
@Injectable()
export class AgentDependenciesHandler implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @InjectDataSource('issuance') private readonly dataSource: DataSource,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.handle('issuance.v1.count-agent-dependencies', (request) => this.count(request.agent_id));
  }

  async count(agentId: string): Promise<AgentIssuanceDependencies> {
    const [row] = await this.dataSource.query(
      `SELECT
         (SELECT count(*)::int FROM certificates
           WHERE agent_id = $1 AND status NOT IN ('Archived', 'Revoked')) AS active_certificates,
         (SELECT count(*)::int FROM jobs
           WHERE status = ANY($2::text[])
             AND (agent_id = $1 OR certificate_id IN (SELECT id FROM certificates WHERE agent_id = $1))
         ) AS pending_jobs`,
      [agentId, [...OPEN_JOB_STATUSES]],
    );
    return { active_certificates: row.active_certificates, pending_jobs: row.pending_jobs };
  }
}
