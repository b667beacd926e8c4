import { randomBytes } from 'node:crypto';
import {
  AuditAction,
  AuditRecord,
  CertlaneError,
  CreateEstKeyEncryptionKeyRequest,
  ErrorCode,
  EstKeyEncryptionKeyCreated,
  EstKeyEncryptionKeyDto,
  ListEstKeyEncryptionKeysRequest,
  Page,
  RequestContext,
  resolvePage,
} from '@certlane/contracts';
import { SqlExecutor } from '@certlane/platform';
import {
  EstKeyEncryptionKeyRow,
  EstKeyEncryptionKeyStore,
  EstProfileStore,
} from '@certlane/protocol-frontends-data-access';
import { EstKekBox } from './est-kek-box';

export interface EstKekAdminDeps {
  executor: SqlExecutor;
  transaction<T>(work: (executor: SqlExecutor) => Promise<T>): Promise<T>;
  audit(executor: SqlExecutor, record: AuditRecord): Promise<void>;
  keys: EstKekBox;
}

const iso = (value: Date | null): string | null => (value ? new Date(value).toISOString() : null);

/** The API's view of a key-encryption key: never the key, sealed or not. */
export function estKekDto(row: EstKeyEncryptionKeyRow): EstKeyEncryptionKeyDto {
  return {
    id: row.id,
    profile_id: row.profile_id,
    status: row.revoked_at ? 'revoked' : 'active',
    description: row.description,
    created_by: row.created_by,
    created_at: iso(row.created_at)!,
    revoked_at: iso(row.revoked_at),
  };
}

/**
 * Key-encryption keys of EST profiles (RFC 7030 4.4.1.1; ADR 0058 amendment: symmetric key-encryption keys): create (the
 * AES-256 key answered once), list, revoke, each change audited in its transaction.
 */
export class EstKekAdmin {
  constructor(private readonly deps: EstKekAdminDeps) {}

  async create(
    request: CreateEstKeyEncryptionKeyRequest,
    context?: RequestContext,
  ): Promise<EstKeyEncryptionKeyCreated> {
    const id = randomBytes(16).toString('hex');
    const { key, sealed } = this.deps.keys.generate(id);
    try {
      return await this.deps.transaction(async (executor) => {
        if (!(await new EstProfileStore(executor).get(request.profile_id, true)))
          throw new CertlaneError(
            ErrorCode.EstProfileNotFound,
            `EST profile ${request.profile_id} not found`,
          );
        const row = await new EstKeyEncryptionKeyStore(executor).create({
          id,
          profileId: request.profile_id,
          keySealed: sealed,
          description: request.description ?? null,
          createdBy: context?.actor_id ?? 'unknown',
        });
        await this.audit(executor, AuditAction.EstKeyEncryptionKeyCreated, row, context);
        return { ...estKekDto(row), secret_key: key.toString('hex') };
      });
    } finally {
      key.fill(0);
    }
  }

  async list(request: ListEstKeyEncryptionKeysRequest): Promise<Page<EstKeyEncryptionKeyDto>> {
    const page = resolvePage(request);
    const { rows, total } = await new EstKeyEncryptionKeyStore(this.deps.executor).list({
      offset: page.offset,
      limit: page.per_page,
      profileId: request.profile_id,
      status: request.status,
    });
    return { data: rows.map(estKekDto), total, page: page.page, per_page: page.per_page };
  }

  /** A revoked key encrypts no further generated key; its id is then refused. */
  async revoke(id: string, context?: RequestContext): Promise<EstKeyEncryptionKeyDto> {
    return this.deps.transaction(async (executor) => {
      const row = await new EstKeyEncryptionKeyStore(executor).revoke(id);
      if (!row)
        throw new CertlaneError(
          ErrorCode.EstKeyEncryptionKeyNotFound,
          `no active EST key-encryption key ${id}`,
        );
      await this.audit(executor, AuditAction.EstKeyEncryptionKeyRevoked, row, context);
      return estKekDto(row);
    });
  }

  private async audit(
    executor: SqlExecutor,
    action: string,
    row: EstKeyEncryptionKeyRow,
    context: RequestContext | undefined,
  ): Promise<void> {
    await this.deps.audit(executor, {
      action,
      event_category: 'config',
      actor_id: context?.actor_id ?? 'unknown',
      resource_type: 'est_key_encryption_key',
      resource_id: row.id,
      outcome: 'success',
      ...(context?.request_id ? { request_id: context.request_id } : {}),
      details: { profile_id: row.profile_id },
    });
  }
}
