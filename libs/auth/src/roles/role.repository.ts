import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ActorRoles,
  DEFAULT_ROLES,
  GLOBAL_SCOPE,
  GrantDto,
  Page,
  PERMISSIONS,
  ResolvedPage,
} from '@certlane/contracts';
import { PreparedQuery } from '@certlane/platform';
import { DataSource, EntityManager } from 'typeorm';

const GRANTS_OF_ACTOR = new PreparedQuery<{ role_id: string; scope: string; permission: string | null }>(
  'auth_grants_of_actor',
  `SELECT ar.role_id, ar.scope, rp.permission FROM actor_roles ar
     LEFT JOIN role_permissions rp ON rp.role_id = ar.role_id
    WHERE ar.actor_id = $1`,
);

export interface ActorGrants {
  roleIds: string[];
  /** Permissions of global grants. */
  permissions: string[];
  scopedPermissions: Record<string, string[]>;
}

/** Roles, their permissions and actors' grants in the auth schema. */
@Injectable()
export class RoleRepository {
  constructor(@InjectDataSource('auth') private readonly dataSource: DataSource) {}

  /** Writes the default roles from the catalogue; idempotent, serialised across replicas. */
  async seedDefaultRoles(): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['certlane:auth:seed-roles']);
      for (const [id, role] of Object.entries(DEFAULT_ROLES)) {
        await manager.query(
          `INSERT INTO roles (id, description, builtin) VALUES ($1, $2, true)
           ON CONFLICT (id) DO UPDATE SET description = EXCLUDED.description, builtin = true`,
          [id, role.description],
        );
        await manager.query(
          'DELETE FROM role_permissions WHERE role_id = $1 AND NOT (permission = ANY($2::text[]))',
          [id, role.permissions],
        );
        await manager.query(
          `INSERT INTO role_permissions (role_id, permission) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`,
          [id, role.permissions],
        );
      }
    });
  }

  /**
   * The roles an actor holds, the union of the permissions of its global grants, and per scope
   * the permissions its scoped grants add (a permission held globally is not repeated).
   */
  async grantsOf(actorId: string): Promise<ActorGrants> {
    const rows = await GRANTS_OF_ACTOR.rows(this.dataSource, [actorId]);
    const roleIds = [...new Set(rows.map((row) => row.role_id))].sort();
    const global = new Set<string>();
    const scoped = new Map<string, Set<string>>();
    for (const { scope, permission } of rows) {
      if (permission === null) continue;
      if (scope === GLOBAL_SCOPE) global.add(permission);
      else scoped.set(scope, (scoped.get(scope) ?? new Set()).add(permission));
    }
    const scopedPermissions: Record<string, string[]> = {};
    for (const [scope, permissions] of [...scoped].sort(([a], [b]) => a.localeCompare(b))) {
      const extra = PERMISSIONS.filter((p) => permissions.has(p) && !global.has(p));
      if (extra.length > 0) scopedPermissions[scope] = extra;
    }
    return { roleIds, permissions: PERMISSIONS.filter((p) => global.has(p)), scopedPermissions };
  }

  /** Every actor that has a key or a grant, with its roles, one row each. */
  async listActors(page: ResolvedPage): Promise<Page<ActorRoles>> {
    const rows: ActorRoles[] = await this.dataSource.query(
      `WITH actors AS (SELECT actor_id FROM api_keys UNION SELECT actor_id FROM actor_roles)
       SELECT a.actor_id,
              CASE WHEN EXISTS (SELECT 1 FROM api_keys k WHERE k.actor_id = a.actor_id) THEN 'api-key' ELSE 'user' END AS actor_type,
              COALESCE((SELECT array_agg(DISTINCT r.role_id ORDER BY r.role_id) FROM actor_roles r WHERE r.actor_id = a.actor_id), '{}') AS role_ids,
              COALESCE((SELECT json_agg(json_build_object('role_id', r.role_id, 'scope', r.scope) ORDER BY r.role_id, r.scope)
                          FROM actor_roles r WHERE r.actor_id = a.actor_id), '[]') AS grants
         FROM actors a ORDER BY a.actor_id LIMIT $1 OFFSET $2`,
      [page.per_page, page.offset],
    );
    const [{ total }] = await this.dataSource.query(
      'SELECT count(*)::int AS total FROM (SELECT actor_id FROM api_keys UNION SELECT actor_id FROM actor_roles) a',
    );
    return { data: rows, total, page: page.page, per_page: page.per_page };
  }

  /** Grants, newest first, optionally filtered by actor, role and scope. */
  async listGrants(
    page: ResolvedPage,
    filter: { actor_id?: string; role_id?: string; scope?: string },
  ): Promise<Page<GrantDto>> {
    const where = `WHERE ($1::text IS NULL OR actor_id = $1) AND ($2::text IS NULL OR role_id = $2)
                     AND ($3::text IS NULL OR scope = $3)`;
    const parameters = [filter.actor_id ?? null, filter.role_id ?? null, filter.scope ?? null];
    const rows: { actor_id: string; role_id: string; scope: string; granted_by: string; granted_at: Date }[] =
      await this.dataSource.query(
        `SELECT actor_id, role_id, scope, granted_by, granted_at FROM actor_roles ${where}
          ORDER BY granted_at DESC, actor_id, role_id, scope LIMIT $4 OFFSET $5`,
        [...parameters, page.per_page, page.offset],
      );
    const [{ total }] = await this.dataSource.query(
      `SELECT count(*)::int AS total FROM actor_roles ${where}`,
      parameters,
    );
    return {
      data: rows.map((row) => ({ ...row, granted_at: row.granted_at.toISOString() })),
      total,
      page: page.page,
      per_page: page.per_page,
    };
  }

  /** Deletes the grants an actor holds, and with `orGrantedBy` the grants it gave; returns the actors touched. */
  async deleteGrantsOf(manager: EntityManager, actorId: string, orGrantedBy = false): Promise<string[]> {
    const [rows]: [{ actor_id: string }[], number] = await manager.query(
      'DELETE FROM actor_roles WHERE actor_id = $1 OR ($2 AND granted_by = $1) RETURNING actor_id',
      [actorId, orGrantedBy],
    );
    return rows.map((row) => row.actor_id);
  }

  async unknownRoles(manager: EntityManager, roleIds: string[]): Promise<string[]> {
    if (roleIds.length === 0) return [];
    const rows: { id: string }[] = await manager.query('SELECT id FROM roles WHERE id = ANY($1::text[])', [
      roleIds,
    ]);
    const known = new Set(rows.map((row) => row.id));
    return roleIds.filter((id) => !known.has(id));
  }
}
