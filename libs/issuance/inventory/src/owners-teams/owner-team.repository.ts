import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { OwnerDto, ResolvedPage, TeamDto } from '@certlane/contracts';
import { DataSource, EntityManager } from 'typeorm';

export interface TeamRow {
  id: string;
  name: string;
  description: string;
  created_at: Date;
  updated_at: Date;
}

export interface OwnerRow {
  id: string;
  name: string;
  email: string;
  team_id: string | null;
  created_at: Date;
  updated_at: Date;
}

const TEAM_COLUMNS = 'id, name, description, created_at, updated_at';
const OWNER_COLUMNS = 'id, name, email, team_id, created_at, updated_at';

export function teamDto(row: TeamRow): TeamDto {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** An owner without a team has `team_id` "" on the wire (null in storage, for the foreign key). */
export function ownerDto(row: OwnerRow): OwnerDto {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    team_id: row.team_id ?? '',
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * Storage of teams and owners in the issuance schema (raw SQL). References are enforced by the
 * foreign keys of migration 0004 (ON DELETE RESTRICT); callers map their violations.
 */
@Injectable()
export class OwnerTeamRepository {
  constructor(@InjectDataSource('issuance') private readonly dataSource: DataSource) {}

  async listTeams(page: ResolvedPage): Promise<{ rows: TeamRow[]; total: number }> {
    const rows: TeamRow[] = await this.dataSource.query(
      `SELECT ${TEAM_COLUMNS} FROM teams ORDER BY id LIMIT $1 OFFSET $2`,
      [page.per_page, page.offset],
    );
    const [{ total }] = await this.dataSource.query('SELECT count(*)::int AS total FROM teams');
    return { rows, total };
  }

  /** Owners in id order, optionally of one team (index owners_team). */
  async listOwners(page: ResolvedPage, teamId?: string): Promise<{ rows: OwnerRow[]; total: number }> {
    const where = teamId === undefined ? '' : 'WHERE team_id = $3';
    const filter = teamId === undefined ? [] : [teamId];
    const rows: OwnerRow[] = await this.dataSource.query(
      `SELECT ${OWNER_COLUMNS} FROM owners ${where} ORDER BY id LIMIT $1 OFFSET $2`,
      [page.per_page, page.offset, ...filter],
    );
    const [{ total }] = await this.dataSource.query(
      `SELECT count(*)::int AS total FROM owners ${where.replace('$3', '$1')}`,
      filter,
    );
    return { rows, total };
  }

  async findTeam(
    id: string,
    manager: EntityManager = this.dataSource.manager,
    lock = false,
  ): Promise<TeamRow | null> {
    const rows: TeamRow[] = await manager.query(
      `SELECT ${TEAM_COLUMNS} FROM teams WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ?? null;
  }

  async findOwner(
    id: string,
    manager: EntityManager = this.dataSource.manager,
    lock = false,
  ): Promise<OwnerRow | null> {
    const rows: OwnerRow[] = await manager.query(
      `SELECT ${OWNER_COLUMNS} FROM owners WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ?? null;
  }

  async insertTeam(
    manager: EntityManager,
    row: Pick<TeamRow, 'id' | 'name' | 'description'>,
  ): Promise<TeamRow> {
    const rows: TeamRow[] = await manager.query(
      `INSERT INTO teams (id, name, description) VALUES ($1, $2, $3) RETURNING ${TEAM_COLUMNS}`,
      [row.id, row.name, row.description],
    );
    return rows[0];
  }

  async updateTeam(
    manager: EntityManager,
    row: Pick<TeamRow, 'id' | 'name' | 'description'>,
  ): Promise<TeamRow> {
    const [rows] = (await manager.query(
      `UPDATE teams SET name = $2, description = $3, updated_at = now() WHERE id = $1 RETURNING ${TEAM_COLUMNS}`,
      [row.id, row.name, row.description],
    )) as [TeamRow[], number];
    return rows[0];
  }

  async insertOwner(
    manager: EntityManager,
    row: Pick<OwnerRow, 'id' | 'name' | 'email' | 'team_id'>,
  ): Promise<OwnerRow> {
    const rows: OwnerRow[] = await manager.query(
      `INSERT INTO owners (id, name, email, team_id) VALUES ($1, $2, $3, $4) RETURNING ${OWNER_COLUMNS}`,
      [row.id, row.name, row.email, row.team_id],
    );
    return rows[0];
  }

  async updateOwner(
    manager: EntityManager,
    row: Pick<OwnerRow, 'id' | 'name' | 'email' | 'team_id'>,
  ): Promise<OwnerRow> {
    const [rows] = (await manager.query(
      `UPDATE owners SET name = $2, email = $3, team_id = $4, updated_at = now() WHERE id = $1
       RETURNING ${OWNER_COLUMNS}`,
      [row.id, row.name, row.email, row.team_id],
    )) as [OwnerRow[], number];
    return rows[0];
  }

  /** Deletes a row; a row still referenced raises the foreign-key violation (RESTRICT). */
  async delete(manager: EntityManager, table: 'owners' | 'teams', id: string): Promise<boolean> {
    const [, count] = (await manager.query(`DELETE FROM ${table} WHERE id = $1`, [id])) as [unknown, number];
    return count > 0;
  }
}
