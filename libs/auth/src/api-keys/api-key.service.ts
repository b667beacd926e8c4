import { Inject, Injectable } from '@nestjs/common';
import {
  ApiKeyRevoked,
  AuditAction,
  auditOrigin,
  RequestContext,
  ApiKeyWithSecret,
  AuthenticateApiKeyResponse,
  CertlaneError,
  CreateApiKeyCommand,
  ErrorCode,
  KeyManager,
  ListApiKeysRequest,
  Page,
  ApiKeyDto,
  PERMISSIONS,
  resolvePage,
} from '@certlane/contracts';
import { outboxToken, ServiceOutbox } from '@certlane/platform';
import { RoleRepository } from '../roles/role.repository';
import { UserRepository } from '../users/user.repository';
import { ApiKeyRepository, toApiKeyDto } from './api-key.repository';
import { generateApiKey, hashApiKey, newApiKeyId } from './api-key-secret';
import { keyManagementRefusal } from './key-management';

const notFound = (id: string) =>
  new CertlaneError(ErrorCode.ApiKeyNotFound, `API key ${JSON.stringify(id)} not found`);

/** API keys: shown once, stored as SHA-256, looked up by hash; expired keys are refused. */
@Injectable()
export class ApiKeyService {
  constructor(
    private readonly repository: ApiKeyRepository,
    private readonly roles: RoleRepository,
    private readonly users: UserRepository,
    @Inject(outboxToken('auth')) private readonly outbox: ServiceOutbox,
  ) {}

  /** The principal of the key whose SHA-256 is `keyHash` (hex), or null. */
  async authenticate(keyHash: string, now = new Date()): Promise<AuthenticateApiKeyResponse> {
    const row = await this.repository.findByHash(keyHash);
    if (!row || (row.expires_at && row.expires_at <= now)) return { principal: null };
    void this.repository.touch(row.id).catch(() => undefined);
    const grants = await this.roles.grantsOf(row.actor_id);
    return {
      principal: {
        actor_id: row.actor_id,
        actor_type: 'api-key',
        key_id: row.id,
        admin: row.admin,
        role_ids: grants.roleIds,
        permissions: row.admin ? [...PERMISSIONS] : grants.permissions,
        scoped_permissions: row.admin ? {} : grants.scopedPermissions,
        ...(row.expires_at ? { expires_at: row.expires_at.toISOString() } : {}),
      },
    };
  }

  list(request: ListApiKeysRequest): Promise<Page<ApiKeyDto>> {
    return this.repository.list(resolvePage(request));
  }

  async create(command: CreateApiKeyCommand, context?: RequestContext): Promise<ApiKeyWithSecret> {
    if (command.expires_at && new Date(command.expires_at) <= new Date()) {
      throw CertlaneError.validation([{ field: 'expires_at', message: 'expires_at must be in the future' }]);
    }
    const key = generateApiKey();
    const actorId =
      command.actor_id ??
      command.name
        .toLowerCase()
        .replace(/[^a-z0-9._-]+/g, '-')
        .slice(0, 64);
    const roleIds = [...new Set(command.role_ids ?? [])];
    await this.assertMayManage(command.manager, { admin: command.admin ?? false, actor_id: actorId });
    const row = await this.repository.transaction(async (manager) => {
      const unknown = await this.roles.unknownRoles(manager, roleIds);
      if (unknown.length > 0) {
        throw CertlaneError.validation(
          unknown.map((id) => ({ field: 'role_ids', message: `role ${id} does not exist` })),
        );
      }
      const inserted = await this.repository.insert(manager, {
        id: newApiKeyId(),
        name: command.name,
        keyHash: hashApiKey(key),
        actorId,
        admin: command.admin ?? false,
        createdBy: command.created_by,
        expiresAt: command.expires_at ?? null,
      });
      for (const roleId of roleIds) await this.repository.grant(manager, actorId, roleId, command.created_by);
      await this.users.ensure(manager, actorId, 'api-key');
      await this.outbox.audit(manager, {
        action: AuditAction.ApiKeyCreated,
        event_category: 'auth',
        ...auditOrigin(context, command.created_by),
        resource_type: 'api_key',
        resource_id: inserted.id,
        outcome: 'success',
        details: {
          name: inserted.name,
          key_actor_id: inserted.actor_id,
          admin: inserted.admin,
          role_ids: roleIds,
          expires_at: inserted.expires_at?.toISOString() ?? null,
        },
      });
      return inserted;
    });
    this.outbox.committed();
    return { ...toApiKeyDto(row), key };
  }

  /** A new secret for the same key record; the old secret stops working at once. */
  async rotate(id: string, context?: RequestContext, keyManager?: KeyManager): Promise<ApiKeyWithSecret> {
    const key = generateApiKey();
    const row = await this.repository.transaction(async (manager) => {
      const current = await this.repository.find(manager, id);
      if (!current) throw notFound(id);
      await this.assertMayManage(keyManager, current);
      const rotated = await this.repository.replaceHash(manager, id, hashApiKey(key));
      await this.outbox.add(
        manager,
        'auth.v1.api-key.revoked',
        { id, actor_id: current.actor_id },
        context?.actor_id,
      );
      await this.outbox.audit(manager, {
        action: AuditAction.ApiKeyRotated,
        event_category: 'auth',
        ...auditOrigin(context),
        resource_type: 'api_key',
        resource_id: id,
        outcome: 'success',
        details: { name: current.name, key_actor_id: current.actor_id },
      });
      return rotated;
    });
    this.outbox.committed();
    return { ...toApiKeyDto(row), key };
  }

  async delete(id: string, context?: RequestContext, keyManager?: KeyManager): Promise<ApiKeyRevoked> {
    const revoked = await this.repository.transaction(async (manager) => {
      const current = await this.repository.find(manager, id);
      if (!current) throw notFound(id);
      await this.assertMayManage(keyManager, current);
      await this.repository.delete(manager, id);
      const event = { id, actor_id: current.actor_id };
      await this.outbox.add(manager, 'auth.v1.api-key.revoked', event, context?.actor_id);
      await this.outbox.audit(manager, {
        action: AuditAction.ApiKeyDeleted,
        event_category: 'auth',
        ...auditOrigin(context),
        resource_type: 'api_key',
        resource_id: id,
        outcome: 'success',
        details: { name: current.name, key_actor_id: current.actor_id },
      });
      return event;
    });
    this.outbox.committed();
    return revoked;
  }

  /** 403 unless the manager may handle a key of this actor (keyManagementRefusal). */
  private async assertMayManage(
    manager: KeyManager | undefined,
    key: { admin: boolean; actor_id: string },
  ): Promise<void> {
    if (!manager || manager.admin) return;
    const grants = await this.roles.grantsOf(key.actor_id);
    const refusal = keyManagementRefusal(manager, {
      admin: key.admin,
      actorId: key.actor_id,
      actorPermissions: [
        ...grants.permissions,
        ...Object.entries(grants.scopedPermissions).flatMap(([scope, permissions]) =>
          permissions.map((permission) => `${permission}@${scope}`),
        ),
      ],
    });
    if (refusal) throw new CertlaneError(ErrorCode.Forbidden, refusal);
  }
}
