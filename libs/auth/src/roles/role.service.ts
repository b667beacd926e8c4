import { Inject, Injectable } from '@nestjs/common';
import {
  AuditAction,
  auditOrigin,
  AuditRecord,
  CertlaneError,
  CreateRoleRequest,
  ErrorCode,
  GLOBAL_SCOPE,
  GrantCommand,
  GrantDto,
  GrantRequest,
  GrantsChanged,
  ListRolesRequest,
  Page,
  PERMISSIONS,
  RequestContext,
  resolvePage,
  RoleDto,
  UpdateRoleRequest,
} from '@certlane/contracts';
import { isUniqueViolation, outboxToken, ServiceOutbox } from '@certlane/platform';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { assertMayHandOut } from './hand-out';

interface RoleRow {
  id: string;
  description: string;
  builtin: boolean;
  created_at: Date;
  permissions: string[] | null;
}

const ROLE_SELECT = `SELECT r.id, r.description, r.builtin, r.created_at,
  (SELECT array_agg(p.permission ORDER BY p.permission) FROM role_permissions p WHERE p.role_id = r.id) AS permissions
  FROM roles r`;

const toDto = (row: RoleRow): RoleDto => ({
  id: row.id,
  description: row.description,
  builtin: row.builtin,
  permissions: PERMISSIONS.filter((p) => (row.permissions ?? []).includes(p)),
  created_at: row.created_at.toISOString(),
});

/** What a role or grant change records; the category, actor and outcome are added by change(). */
type RoleChangeAudit = Pick<AuditRecord, 'action' | 'resource_type' | 'resource_id' | 'details'>;

const roleAudit = (action: string, role: RoleDto): RoleChangeAudit => ({
  action,
  resource_type: 'role',
  resource_id: role.id,
  details: { description: role.description, permissions: role.permissions },
});

/** A grant is recorded against the actor who gains or loses the role. */
const grantAudit = (action: string, actorId: string, roleId: string, scope: string): RoleChangeAudit => ({
  action,
  resource_type: 'actor',
  resource_id: actorId,
  details: { role_id: roleId, scope },
});

const notFound = (id: string) =>
  new CertlaneError(ErrorCode.RoleNotFound, `role ${JSON.stringify(id)} not found`);

/**
 * Custom roles and grants. The seven default roles are builtin: they follow the catalogue and
 * cannot be edited or deleted (409). Every change publishes auth.v1.grants.changed so gateways
 * drop cached permissions.
 */
@Injectable()
export class RoleService {
  constructor(
    @InjectDataSource('auth') private readonly dataSource: DataSource,
    @Inject(outboxToken('auth')) private readonly outbox: ServiceOutbox,
  ) {}

  async list(request: ListRolesRequest): Promise<Page<RoleDto>> {
    const page = resolvePage(request);
    const rows: RoleRow[] = await this.dataSource.query(`${ROLE_SELECT} ORDER BY r.id LIMIT $1 OFFSET $2`, [
      page.per_page,
      page.offset,
    ]);
    const [{ total }] = await this.dataSource.query('SELECT count(*)::int AS total FROM roles');
    return { data: rows.map(toDto), total, page: page.page, per_page: page.per_page };
  }

  async get(id: string, manager: EntityManager = this.dataSource.manager): Promise<RoleDto> {
    const rows: RoleRow[] = await manager.query(`${ROLE_SELECT} WHERE r.id = $1`, [id]);
    if (rows.length === 0) throw notFound(id);
    return toDto(rows[0]);
  }

  async create(request: CreateRoleRequest, context?: RequestContext): Promise<RoleDto> {
    return this.change(async (manager) => {
      try {
        await manager.query('INSERT INTO roles (id, description) VALUES ($1, $2)', [
          request.id,
          request.description ?? '',
        ]);
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw new CertlaneError(ErrorCode.RoleExists, `role ${JSON.stringify(request.id)} already exists`);
        }
        throw error;
      }
      await this.setPermissions(manager, request.id, request.permissions);
      const role = await this.get(request.id, manager);
      return {
        role,
        changed: { role_id: request.id },
        audit: roleAudit(AuditAction.RoleCreated, role),
      };
    }, context);
  }

  async update(request: UpdateRoleRequest, context?: RequestContext): Promise<RoleDto> {
    return this.change(async (manager) => {
      const current = await this.editable(manager, request.id);
      if (request.description !== undefined) {
        await manager.query('UPDATE roles SET description = $2 WHERE id = $1', [
          current.id,
          request.description,
        ]);
      }
      if (request.permissions) await this.setPermissions(manager, current.id, request.permissions);
      const role = await this.get(current.id, manager);
      return {
        role,
        changed: { role_id: current.id },
        audit: roleAudit(AuditAction.RoleUpdated, role),
      };
    }, context);
  }

  async delete(id: string, context?: RequestContext): Promise<GrantsChanged> {
    return this.change(async (manager) => {
      await this.editable(manager, id);
      const [, revoked]: [unknown, number] = await manager.query(
        'DELETE FROM actor_roles WHERE role_id = $1',
        [id],
      );
      await manager.query('DELETE FROM roles WHERE id = $1', [id]);
      return {
        role: { role_id: id },
        changed: { role_id: id },
        audit: {
          action: AuditAction.RoleDeleted,
          resource_type: 'role',
          resource_id: id,
          details: { grants_removed: revoked ?? 0 },
        },
      };
    }, context);
  }

  async grant(command: GrantCommand, context?: RequestContext): Promise<GrantDto> {
    return this.change(
      async (manager) => {
        const role = await this.get(command.role_id, manager);
        assertMayHandOut(command, { id: role.id, permissions: role.permissions }, `granting ${role.id}`);
        const scope = command.scope ?? GLOBAL_SCOPE;
        if (command.role_id === 'r-admin' && scope !== GLOBAL_SCOPE) {
          throw CertlaneError.validation([
            { field: 'scope', message: 'r-admin can only be granted globally' },
          ]);
        }
        const rows: { granted_by: string; granted_at: Date }[] = await manager.query(
          `INSERT INTO actor_roles (actor_id, role_id, granted_by, scope) VALUES ($1, $2, $3, $4)
           ON CONFLICT (actor_id, role_id, scope) DO UPDATE SET actor_id = EXCLUDED.actor_id
           RETURNING granted_by, granted_at`,
          [command.actor_id, command.role_id, command.granted_by, scope],
        );
        const grant = {
          actor_id: command.actor_id,
          role_id: command.role_id,
          scope,
          granted_by: rows[0].granted_by,
          granted_at: rows[0].granted_at.toISOString(),
        };
        return {
          role: grant,
          changed: { actor_id: command.actor_id },
          audit: grantAudit(AuditAction.RoleGranted, command.actor_id, command.role_id, scope),
        };
      },
      { request_id: context?.request_id, actor_id: context?.actor_id ?? command.granted_by },
    );
  }

  async revoke(request: GrantRequest, context?: RequestContext): Promise<GrantsChanged> {
    return this.change(async (manager) => {
      const scope = request.scope ?? GLOBAL_SCOPE;
      const [, removed]: [unknown, number] = await manager.query(
        'DELETE FROM actor_roles WHERE actor_id = $1 AND role_id = $2 AND scope = $3',
        [request.actor_id, request.role_id, scope],
      );
      if (!removed) {
        throw new CertlaneError(
          ErrorCode.GrantNotFound,
          `${request.actor_id} does not hold ${request.role_id} in scope ${scope}`,
        );
      }
      return {
        role: { actor_id: request.actor_id },
        changed: { actor_id: request.actor_id },
        audit: grantAudit(AuditAction.RoleRevoked, request.actor_id, request.role_id, scope),
      };
    }, context);
  }

  /** Runs a change in one transaction with its auth.v1.grants.changed event and its audit record. */
  private async change<T>(
    work: (manager: EntityManager) => Promise<{ role: T; changed: GrantsChanged; audit: RoleChangeAudit }>,
    context?: Partial<RequestContext>,
  ): Promise<T> {
    const result = await this.dataSource.transaction(async (manager) => {
      const outcome = await work(manager);
      await this.outbox.add(manager, 'auth.v1.grants.changed', outcome.changed, context?.actor_id);
      await this.outbox.audit(manager, {
        ...outcome.audit,
        event_category: 'auth',
        ...auditOrigin(context),
        outcome: 'success',
      });
      return outcome.role;
    });
    this.outbox.committed();
    return result;
  }

  private async editable(manager: EntityManager, id: string): Promise<{ id: string }> {
    const rows: { id: string; builtin: boolean }[] = await manager.query(
      'SELECT id, builtin FROM roles WHERE id = $1 FOR UPDATE',
      [id],
    );
    if (rows.length === 0) throw notFound(id);
    if (rows[0].builtin)
      throw new CertlaneError(ErrorCode.RoleBuiltin, `role ${id} is a default role and cannot be changed`);
    return rows[0];
  }

  private async setPermissions(manager: EntityManager, roleId: string, permissions: string[]): Promise<void> {
    await manager.query('DELETE FROM role_permissions WHERE role_id = $1', [roleId]);
    await manager.query(
      'INSERT INTO role_permissions (role_id, permission) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING',
      [roleId, [...new Set(permissions)]],
    );
  }
}
