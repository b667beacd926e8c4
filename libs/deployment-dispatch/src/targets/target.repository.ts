import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { CertlaneError, ErrorCode, ResolvedPage, TargetDto, TargetType } from '@certlane/contracts';
import { redactTargetConfig } from '@certlane/deployment-dispatch-domain';
import { DataSource, EntityManager } from 'typeorm';
import { isUniqueViolation } from '@certlane/platform';
import { returningRows } from '../returning';

export interface TargetRow {
  id: string;
  name: string;
  kind: TargetType;
  agent_id: string | null;
  config_sealed: string;
  config_public: Record<string, unknown>;
  endpoint: string | null;
  retired_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'id, name, kind, agent_id, config_sealed, config_public, endpoint, retired_at, created_at, updated_at';

export function targetDto(row: TargetRow): TargetDto {
  return {
    id: row.id,
    name: row.name,
    type: row.kind,
    agent_id: row.agent_id,
    // The stored public shadow is already redacted; redact again so a bug there cannot leak.
    config: redactTargetConfig(row.config_public ?? {}),
    endpoint: row.endpoint,
    retired_at: row.retired_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export interface TargetFilter {
  agent_id?: string;
  type?: TargetType;
  include_retired: boolean;
}

export type TargetWrite = Pick<
  TargetRow,
  'name' | 'agent_id' | 'config_sealed' | 'config_public' | 'endpoint'
>;

/** Storage of targets in schema deployment_dispatch (raw SQL; every list filter has an index). */
@Injectable()
export class TargetRepository {
  constructor(@InjectDataSource('deployment-dispatch') readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async list(page: ResolvedPage, filter: TargetFilter): Promise<{ rows: TargetRow[]; total: number }> {
    const conditions: string[] = [];
    const values: unknown[] = [];
    if (filter.agent_id !== undefined) {
      values.push(filter.agent_id);
      conditions.push(`agent_id = $${values.length}`);
    }
    if (filter.type !== undefined) {
      values.push(filter.type);
      conditions.push(`kind = $${values.length}`);
    }
    if (!filter.include_retired) conditions.push('retired_at IS NULL');
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    const rows: TargetRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM targets ${where} ORDER BY id LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
      [...values, page.per_page, page.offset],
    );
    const [{ total }] = await this.dataSource.query(
      `SELECT count(*)::int AS total FROM targets ${where}`,
      values,
    );
    return { rows, total };
  }

  async find(
    id: string,
    manager: EntityManager = this.dataSource.manager,
    lock = false,
  ): Promise<TargetRow | null> {
    const rows: TargetRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM targets WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ?? null;
  }

  /**
   * The agent a target is assigned to, locked for share: a retirement (which locks the agent's row
   * for update) waits for this transaction, and this one sees a retirement that committed first.
   */
  async lockAgent(manager: EntityManager, agentId: string): Promise<{ retired: boolean } | null> {
    const rows: { retired_at: Date | null }[] = await manager.query(
      'SELECT retired_at FROM agents WHERE id = $1 FOR SHARE',
      [agentId],
    );
    return rows.length === 0 ? null : { retired: rows[0].retired_at !== null };
  }

  async agentState(agentId: string): Promise<{ retired: boolean; last_heartbeat_at: Date | null } | null> {
    const rows: { retired_at: Date | null; last_heartbeat_at: Date | null }[] = await this.dataSource.query(
      'SELECT retired_at, last_heartbeat_at FROM agents WHERE id = $1',
      [agentId],
    );
    return rows.length === 0
      ? null
      : { retired: rows[0].retired_at !== null, last_heartbeat_at: rows[0].last_heartbeat_at };
  }

  async insert(manager: EntityManager, id: string, kind: TargetType, write: TargetWrite): Promise<TargetRow> {
    try {
      const rows: TargetRow[] = await manager.query(
        `INSERT INTO targets (id, name, kind, agent_id, config_sealed, config_public, endpoint)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
        [
          id,
          write.name,
          kind,
          write.agent_id,
          write.config_sealed,
          JSON.stringify(write.config_public),
          write.endpoint,
        ],
      );
      return rows[0];
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new CertlaneError(ErrorCode.TargetExists, `target ${JSON.stringify(id)} already exists`);
      }
      throw error;
    }
  }

  async update(manager: EntityManager, id: string, write: TargetWrite): Promise<TargetRow> {
    const rows = returningRows<TargetRow>(
      await manager.query(
        `UPDATE targets SET name = $2, agent_id = $3, config_sealed = $4, config_public = $5, endpoint = $6,
         updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
        [
          id,
          write.name,
          write.agent_id,
          write.config_sealed,
          JSON.stringify(write.config_public),
          write.endpoint,
        ],
      ),
    );
    return rows[0];
  }

  async delete(manager: EntityManager, id: string): Promise<boolean> {
    const rows = returningRows<{ id: string }>(
      await manager.query('DELETE FROM targets WHERE id = $1 RETURNING id', [id]),
    );
    return rows.length > 0;
  }
}
