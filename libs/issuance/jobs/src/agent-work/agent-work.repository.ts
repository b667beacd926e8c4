import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { AGENT_WORK_LIMIT, AgentWorkItem, JobStatus, JobType, KeyAlgorithmName } from '@certlane/contracts';
import { GroupCommit, PreparedQuery } from '@certlane/platform';
import { DataSource } from 'typeorm';

interface WorkRow {
  id: string;
  type: JobType;
  status: JobStatus;
  certificate_id: string;
  target_id: string;
  version_id: string | null;
  attempts: number;
  max_attempts: number;
  created_at: Date;
  common_name: string;
  sans: string[];
  key_algorithm: KeyAlgorithmName;
}

/** Open jobs of one agent that the agent acts on (isAgentWork in libs/issuance/domain). */
const WORK_FILTER = `((j.type = 'Deployment' AND j.status = 'Pending')
  OR (j.type IN ('Issuance', 'Renewal') AND j.status = 'AwaitingCSR'))`;

/**
 * The ids of agent $1's jobs in the given open statuses: the jobs whose agent_id is the agent
 * (index jobs_agent_open) and the jobs of the certificates whose agent_id is the agent (index
 * certificates_agent, then jobs_certificate_open). Both are index scans over open jobs only.
 */
function mine(statuses: string): string {
  return `SELECT j.id FROM jobs j WHERE j.agent_id = $1 AND j.status IN (${statuses})
          UNION
          SELECT j.id FROM certificates c JOIN jobs j ON j.certificate_id = c.id
           WHERE c.agent_id = $1 AND c.agent_id <> '' AND j.status IN (${statuses})`;
}

/**
 * The poll of one agent, a named prepared statement (planned once per connection, then a generic
 * plan): what a batch of one runs, cheaper than POLL_MANY's per-agent ranking (ADR 0027).
 */
const POLL = new PreparedQuery<WorkRow>(
  'issuance-agent-work-poll',
  `WITH mine AS (${mine("'Pending', 'AwaitingCSR'")})
   SELECT j.id, j.type, j.status, j.certificate_id, j.target_id, j.version_id, j.attempts,
          j.max_attempts, j.created_at, c.common_name, c.sans, c.key_algorithm
     FROM mine JOIN jobs j ON j.id = mine.id JOIN certificates c ON c.id = j.certificate_id
    WHERE ${WORK_FILTER}
    ORDER BY j.created_at, j.id
    LIMIT ${AGENT_WORK_LIMIT}`,
);

/**
 * The polls of many agents at once (`$1`, an array of agent ids), a named prepared statement: each
 * agent's open jobs as the single-agent form of `mine` finds them, tagged with the agent (a job of
 * two agents, by its own agent_id and by its certificate's, is each one's), oldest first and at
 * most AGENT_WORK_LIMIT per agent (ADR 0027, ADR 0036).
 */
const POLL_MANY = new PreparedQuery<WorkRow & { owner: string }>(
  'issuance-agent-work-poll-many',
  `WITH mine AS (
     SELECT j.id, j.agent_id AS owner FROM jobs j
      WHERE j.agent_id = ANY($1::text[]) AND j.status IN ('Pending', 'AwaitingCSR')
     UNION
     SELECT j.id, c.agent_id AS owner FROM certificates c JOIN jobs j ON j.certificate_id = c.id
      WHERE c.agent_id = ANY($1::text[]) AND c.agent_id <> '' AND j.status IN ('Pending', 'AwaitingCSR')
   ), work AS (
     SELECT mine.owner, j.id, j.type, j.status, j.certificate_id, j.target_id, j.version_id, j.attempts,
            j.max_attempts, j.created_at, c.common_name, c.sans, c.key_algorithm,
            row_number() OVER (PARTITION BY mine.owner ORDER BY j.created_at, j.id) AS rank
       FROM mine JOIN jobs j ON j.id = mine.id JOIN certificates c ON c.id = j.certificate_id
      WHERE ${WORK_FILTER}
   )
   SELECT * FROM work WHERE rank <= ${AGENT_WORK_LIMIT} ORDER BY owner, created_at, id`,
);

const workItem = (row: WorkRow): AgentWorkItem => ({
  job_id: row.id,
  type: row.type,
  status: row.status,
  certificate_id: row.certificate_id,
  common_name: row.common_name,
  sans: row.sans,
  key_algorithm: row.key_algorithm,
  target_id: row.target_id,
  version_id: row.type === 'Deployment' ? row.version_id : null,
  attempts: row.attempts,
  max_attempts: row.max_attempts,
  created_at: row.created_at.toISOString(),
});

/**
 * The reads of the agent work protocol (ADR 0027). An agent's jobs are those whose `agent_id` is
 * the agent and those of certificates whose `agent_id` is the agent; the writes go through the
 * StatusTransitions like every other job change.
 */
@Injectable()
export class AgentWorkRepository {
  constructor(@InjectDataSource('issuance') readonly dataSource: DataSource) {}

  /**
   * Polls that arrive while one is being read are read together, in one statement (POLL_MANY):
   * under a fleet's load one query per round trip instead of one per agent.
   */
  private readonly polls = new GroupCommit<string, AgentWorkItem[]>((agentIds) => this.workOf(agentIds));

  /** The agent's open jobs that it acts on, oldest first (the poll of spec 4.7). */
  work(agentId: string): Promise<AgentWorkItem[]> {
    return this.polls.write(agentId);
  }

  /** The polls of several agents, each agent's jobs at its index (an agent asked twice, twice). */
  async workOf(agentIds: readonly string[]): Promise<AgentWorkItem[][]> {
    const distinct = [...new Set(agentIds)];
    if (distinct.length === 1) {
      const items = (await POLL.rows(this.dataSource, [distinct[0]])).map(workItem);
      return agentIds.map(() => items);
    }
    const rows = await POLL_MANY.rows(this.dataSource, [distinct]);
    const byAgent = new Map<string, AgentWorkItem[]>();
    for (const row of rows) {
      const items = byAgent.get(row.owner) ?? [];
      items.push(workItem(row));
      byAgent.set(row.owner, items);
    }
    return agentIds.map((id) => byAgent.get(id) ?? []);
  }

  /**
   * The Issuance/Renewal jobs of the agent awaiting a CSR, oldest first, for one certificate or
   * (certificateId undefined) for all of the agent's certificates, with each job's common name.
   */
  async awaitingCsr(
    agentId: string,
    certificateId?: string,
  ): Promise<{ id: string; certificate_id: string; common_name: string }[]> {
    const values: unknown[] = [agentId];
    let certificate = '';
    if (certificateId !== undefined) {
      values.push(certificateId);
      certificate = 'AND j.certificate_id = $2';
    }
    return this.dataSource.query(
      `WITH mine AS (${mine("'AwaitingCSR'")})
       SELECT j.id, j.certificate_id, c.common_name
         FROM mine JOIN jobs j ON j.id = mine.id JOIN certificates c ON c.id = j.certificate_id
        WHERE j.type IN ('Issuance', 'Renewal') ${certificate}
        ORDER BY j.created_at, j.id
        LIMIT ${AGENT_WORK_LIMIT}`,
      values,
    );
  }

  /**
   * Is the certificate the agent's: its `agent_id`, or a job of the agent on it. With
   * `openJobsOnly` (releasing a private key) only a job not yet finished counts: an agent that
   * once deployed the certificate to a target since moved elsewhere reads no more of its keys.
   */
  async certificateIsAgents(
    agentId: string,
    certificateId: string,
    options: { openJobsOnly?: boolean } = {},
  ): Promise<boolean> {
    const open = options.openJobsOnly ? `AND j.status NOT IN ('Completed', 'Failed', 'Cancelled')` : '';
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM certificates c
        WHERE c.id = $2
          AND (c.agent_id = $1
               OR EXISTS (SELECT 1 FROM jobs j WHERE j.certificate_id = c.id AND j.agent_id = $1 ${open}))`,
      [agentId, certificateId],
    );
    return rows.length > 0;
  }
}
