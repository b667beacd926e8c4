import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { AgentDto, ResolvedPage } from '@certlane/contracts';
import { agentStatus } from '@certlane/deployment-dispatch-domain';
import { GroupCommit, PreparedQuery } from '@certlane/platform';
import { DataSource, EntityManager } from 'typeorm';
import { returningRows } from '../returning';

/** An agent row as read for responses: never the key hash (it is not even selected). */
export interface AgentRow {
  id: string;
  name: string;
  hostname: string;
  sentinel: boolean;
  os: string;
  architecture: string;
  ip_address: string;
  version: string;
  last_heartbeat_at: Date | null;
  registered_at: Date;
  retired_at: Date | null;
  retired_reason: string | null;
  api_key_id: string | null;
}

const COLUMNS = `id, name, hostname, sentinel, os, architecture, ip_address, version, last_heartbeat_at,
  registered_at, retired_at, retired_reason, api_key_id`;

/**
 * Heartbeats, the hottest write, in one named prepared statement (see PreparedQuery) for however
 * many arrived together (GroupCommit below). The commit is asynchronous
 * (`synchronous_commit` off for this transaction only, set in FROM so it stays one statement):
 * a heartbeat is liveness, rewritten a minute later, so losing the last fraction of a second of
 * them in a database crash costs nothing, while waiting for the WAL flush put disk latency
 * (hundreds of ms here at times) into every heartbeat's answer.
 */
const HEARTBEATS = new PreparedQuery<AgentRow>(
  'deployment_dispatch_agent_heartbeats',
  `UPDATE agents a SET last_heartbeat_at = now(),
     version = COALESCE(f.version, a.version), hostname = COALESCE(f.hostname, a.hostname),
     os = COALESCE(f.os, a.os), architecture = COALESCE(f.architecture, a.architecture),
     ip_address = COALESCE(f.ip_address, a.ip_address)
   FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
       AS f(id, version, hostname, os, architecture, ip_address),
     (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
   WHERE a.id = f.id AND a.retired_at IS NULL
   RETURNING ${COLUMNS.replace(/(\w+)/g, 'a.$1')}`,
);

export function agentDto(row: AgentRow, now = new Date()): AgentDto {
  return {
    id: row.id,
    name: row.name,
    hostname: row.hostname,
    status: agentStatus(row, now),
    last_heartbeat_at: row.last_heartbeat_at?.toISOString() ?? null,
    registered_at: row.registered_at.toISOString(),
    os: row.os,
    architecture: row.architecture,
    ip_address: row.ip_address,
    version: row.version,
    sentinel: row.sentinel,
    retired_at: row.retired_at?.toISOString() ?? null,
    retired_reason: row.retired_reason,
  };
}

export interface HeartbeatFacts {
  version?: string;
  hostname?: string;
  os?: string;
  architecture?: string;
  ip_address?: string;
}

/** Storage of agents in schema deployment_dispatch (raw SQL). */
@Injectable()
export class AgentRepository {
  /**
   * Heartbeats group-committed: a fleet sends hundreds a second, and those that arrive while one
   * statement runs share the next one (one commit and WAL flush instead of one each).
   */
  private readonly heartbeats = new GroupCommit<{ id: string; facts: HeartbeatFacts }, AgentRow | null>(
    (batch) => this.heartbeatBatch(batch),
  );

  constructor(@InjectDataSource('deployment-dispatch') readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async list(page: ResolvedPage, retired: boolean): Promise<{ rows: AgentRow[]; total: number }> {
    const where = retired ? 'retired_at IS NOT NULL' : 'retired_at IS NULL';
    const order = retired ? 'retired_at DESC, id' : 'registered_at, id';
    const rows: AgentRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM agents WHERE ${where} ORDER BY ${order} LIMIT $1 OFFSET $2`,
      [page.per_page, page.offset],
    );
    const [{ total }] = await this.dataSource.query(
      `SELECT count(*)::int AS total FROM agents WHERE ${where}`,
    );
    return { rows, total };
  }

  /** The fleet by status (sentinels apart), with the cutoffs of agentStatusCutoffs. */
  async summary(cutoffs: {
    onlineAfter: Date;
    degradedAfter: Date;
  }): Promise<{ total: number; online: number; degraded: number; retired: number }> {
    const [row] = await this.dataSource.query(
      `SELECT count(*) FILTER (WHERE retired_at IS NULL)::int AS total,
         count(*) FILTER (WHERE retired_at IS NULL AND last_heartbeat_at > $1)::int AS online,
         count(*) FILTER (WHERE retired_at IS NULL AND last_heartbeat_at <= $1 AND last_heartbeat_at > $2)::int
           AS degraded,
         count(*) FILTER (WHERE retired_at IS NOT NULL)::int AS retired
       FROM agents WHERE NOT sentinel`,
      [cutoffs.onlineAfter, cutoffs.degradedAfter],
    );
    return row;
  }

  async find(
    id: string,
    manager: EntityManager = this.dataSource.manager,
    lock = false,
  ): Promise<AgentRow | null> {
    const rows: AgentRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM agents WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** Whether the id is taken (by any agent, retired too) or the name by an agent that is not retired. */
  async taken(id: string, name: string): Promise<'id' | 'name' | null> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM agents WHERE id = $1 OR (lower(name) = lower($2) AND retired_at IS NULL) LIMIT 2`,
      [id, name],
    );
    if (rows.some((row) => row.id === id)) return 'id';
    return rows.length > 0 ? 'name' : null;
  }

  async insert(
    manager: EntityManager,
    agent: { id: string; name: string; hostname: string; apiKeyHash: string; apiKeyId: string },
  ): Promise<AgentRow> {
    const rows: AgentRow[] = await manager.query(
      `INSERT INTO agents (id, name, hostname, api_key_hash, api_key_id) VALUES ($1, $2, $3, $4, $5)
       RETURNING ${COLUMNS}`,
      [agent.id, agent.name, agent.hostname, agent.apiKeyHash, agent.apiKeyId],
    );
    return rows[0];
  }

  /**
   * The heartbeat: one statement on the hot path. Null when no agent that is not retired has the
   * id (the caller tells unknown from retired with `find`).
   */
  heartbeat(id: string, facts: HeartbeatFacts): Promise<AgentRow | null> {
    return this.heartbeats.write({ id, facts });
  }

  private async heartbeatBatch(batch: { id: string; facts: HeartbeatFacts }[]): Promise<(AgentRow | null)[]> {
    const column = (pick: (facts: HeartbeatFacts) => string | undefined) =>
      batch.map(({ facts }) => pick(facts) ?? null);
    const rows = await HEARTBEATS.rows(this.dataSource, [
      batch.map(({ id }) => id),
      column((f) => f.version),
      column((f) => f.hostname),
      column((f) => f.os),
      column((f) => f.architecture),
      column((f) => f.ip_address),
    ]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return batch.map(({ id }) => byId.get(id) ?? null);
  }

  /** Targets of the agent that are not retired. */
  async activeTargetCount(id: string, manager: EntityManager = this.dataSource.manager): Promise<number> {
    const [{ n }] = await manager.query(
      'SELECT count(*)::int AS n FROM targets WHERE agent_id = $1 AND retired_at IS NULL',
      [id],
    );
    return n;
  }

  async retire(manager: EntityManager, id: string, reason: string | null): Promise<AgentRow> {
    const rows = returningRows<AgentRow>(
      await manager.query(
        `UPDATE agents SET retired_at = now(), retired_reason = $2, updated_at = now() WHERE id = $1
       RETURNING ${COLUMNS}`,
        [id, reason],
      ),
    );
    return rows[0];
  }

  /** Retires the agent's active targets (force); never deletes them. Returns their ids. */
  async retireTargetsOf(manager: EntityManager, id: string): Promise<string[]> {
    const rows = returningRows<{ id: string }>(
      await manager.query(
        `UPDATE targets SET retired_at = now(), updated_at = now() WHERE agent_id = $1 AND retired_at IS NULL
       RETURNING id`,
        [id],
      ),
    );
    return rows.map((row) => row.id).sort();
  }

  /** Whether `keyHash` is the key retired agent `id` was registered with (the hash outlives the key). */
  async isRetiredAgentKey(id: string, keyHash: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      'SELECT 1 FROM agents WHERE id = $1 AND api_key_hash = $2 AND retired_at IS NOT NULL',
      [id, keyHash],
    );
    return rows.length > 0;
  }

  async markKeyRevoked(id: string): Promise<void> {
    await this.dataSource.query(
      'UPDATE agents SET api_key_revoked_at = now() WHERE id = $1 AND api_key_revoked_at IS NULL',
      [id],
    );
  }
}
