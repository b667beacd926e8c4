import { Inject, Injectable } from '@nestjs/common';
import {
  AuditAction,
  auditOrigin,
  BootstrapRequest,
  BootstrapResponse,
  BootstrapStatus,
  CertlaneError,
  ErrorCode,
  RequestContext,
} from '@certlane/contracts';
import { CERTLANE_CONFIG, CertlaneConfig, outboxToken, ServiceOutbox } from '@certlane/platform';
import { ApiKeyRepository } from '../api-keys/api-key.repository';
import { generateApiKey, hashApiKey, newApiKeyId, secretsEqual } from '../api-keys/api-key-secret';
import { UserRepository } from '../users/user.repository';

const ADMIN_ROLE = 'r-admin';

/**
 * Day-0 bootstrap (spec 5.6): with SERVICE_BOOTSTRAP_TOKEN set and no admin yet, the token
 * mints one admin API key, once. Consumption is one transaction under a lock, so two racing
 * calls cannot both succeed.
 */
@Injectable()
export class BootstrapService {
  constructor(
    private readonly repository: ApiKeyRepository,
    private readonly users: UserRepository,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    @Inject(outboxToken('auth')) private readonly outbox: ServiceOutbox,
  ) {}

  async status(): Promise<BootstrapStatus> {
    if (!this.config.bootstrapToken) return { available: false };
    const available = await this.repository.transaction(async (manager) => {
      const consumed: unknown[] = await manager.query('SELECT 1 FROM bootstrap_state');
      return consumed.length === 0 && !(await this.repository.adminExists(manager));
    });
    return { available };
  }

  async consume(request: BootstrapRequest, context?: RequestContext): Promise<BootstrapResponse> {
    const token = this.config.bootstrapToken;
    const key = generateApiKey();
    const keyId = newApiKeyId();
    const response = await this.repository.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['certlane:auth:bootstrap']);
      const consumed: unknown[] = await manager.query('SELECT 1 FROM bootstrap_state');
      if (!token || consumed.length > 0 || (await this.repository.adminExists(manager))) {
        throw new CertlaneError(
          ErrorCode.BootstrapUnavailable,
          'bootstrap is not available: it was used already, an admin exists, or it is not enabled',
        );
      }
      if (!secretsEqual(request.token, token)) {
        throw new CertlaneError(ErrorCode.BootstrapTokenInvalid, 'the bootstrap token is not valid');
      }
      await this.repository.insert(manager, {
        id: keyId,
        name: `bootstrap-${request.actor_id}`,
        keyHash: hashApiKey(key),
        actorId: request.actor_id,
        admin: true,
        createdBy: 'bootstrap',
        expiresAt: null,
      });
      await this.repository.grant(manager, request.actor_id, ADMIN_ROLE, 'bootstrap');
      await this.users.ensure(manager, request.actor_id, 'api-key');
      await manager.query('INSERT INTO bootstrap_state (actor_id, key_id) VALUES ($1, $2)', [
        request.actor_id,
        keyId,
      ]);
      await this.outbox.add(
        manager,
        'auth.v1.bootstrap.consumed',
        { actor_id: request.actor_id, key_id: keyId },
        request.actor_id,
      );
      // The caller is anonymous (the token is the credential): the record names the new admin.
      await this.outbox.audit(manager, {
        action: AuditAction.BootstrapConsume,
        event_category: 'auth',
        ...auditOrigin({ request_id: context?.request_id }, request.actor_id),
        resource_type: 'api_key',
        resource_id: keyId,
        outcome: 'success',
        details: { key_actor_id: request.actor_id, role_ids: [ADMIN_ROLE] },
      });
      return { actor_id: request.actor_id, key_id: keyId, key, role_ids: [ADMIN_ROLE] };
    });
    this.outbox.committed();
    return response;
  }
}
