import { readFile } from 'node:fs/promises';
import {
  AuditAction,
  AuditRecord,
  CertlaneError,
  CreateEstProfileRequest,
  EST_PROFILE_OUTCOMES,
  EST_RATE_LIMIT,
  EstProfileDto,
  EstProfileList,
  EstProfileOutcome,
  EstTrustReloadResult,
  ErrorCode,
  RequestContext,
  UpdateEstProfileCommand,
} from '@certlane/contracts';
import { SqlExecutor } from '@certlane/platform';
import { InventoryReferenceCheck, refuseUnknownReferences } from '../inventory-references';
import {
  EstProfileRow,
  EstProfileSettingsRow,
  EstProfileStore,
} from '@certlane/protocol-frontends-data-access';
import { estProfileProblems, hashEstPassword, parseTrustBundle } from '@certlane/protocol-frontends-domain';

export interface EstProfileAdminDeps {
  executor: SqlExecutor;
  transaction<T>(work: (executor: SqlExecutor) => Promise<T>): Promise<T>;
  audit(executor: SqlExecutor, record: AuditRecord): Promise<void>;
  /** Which owner, team and certificate profile named issuance does not know (refused at once). */
  references: InventoryReferenceCheck;
  /** Reads a trust bundle file (tests give their own). */
  readTrustFile?(path: string): Promise<string>;
}

const iso = (value: Date | null): string | null => (value ? new Date(value).toISOString() : null);

/** The API's view of a profile: never the password hash. */
export function estProfileDto(
  row: EstProfileRow,
  counters: ReadonlyMap<string, number> = new Map(),
): EstProfileDto {
  const trust = row.trust_bundle_pem ? parseTrustBundle(row.trust_bundle_pem) : undefined;
  return {
    id: row.id,
    path_id: row.path_id,
    certificate_profile_id: row.certificate_profile_id,
    issuer_id: row.issuer_id,
    auth_methods: [...row.auth_methods],
    basic_username: row.basic_username,
    basic_password_set: row.basic_password_hash !== null,
    trust_bundle_path: row.trust_bundle_path,
    trust_bundle_pem: row.trust_bundle_pem,
    trust_anchor_count: trust?.ok ? trust.anchors.length : 0,
    trust_loaded_at: iso(row.trust_loaded_at),
    serverkeygen_enabled: row.serverkeygen_enabled,
    serverkeygen_unencrypted_allowed: row.serverkeygen_unencrypted_allowed,
    channel_binding_required: row.channel_binding_required,
    client_revocation_unknown: row.client_revocation_unknown,
    rate_limit_per_minute: row.rate_limit_per_minute,
    owner: row.owner,
    team: row.team,
    counters: Object.fromEntries(EST_PROFILE_OUTCOMES.map((o) => [o, counters.get(o) ?? 0])) as Record<
      EstProfileOutcome,
      number
    >,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

const invalid = (message: string, problems?: string[]) =>
  new CertlaneError(ErrorCode.EstProfileInvalid, message, problems ? { problems } : undefined);

/**
 * EST profile management (spec 4.9, ADR 0058): create, update, delete, the list with its counters
 * snapshot, and reload-trust, each audited in the transaction of its change.
 */
export class EstProfileAdmin {
  constructor(private readonly deps: EstProfileAdminDeps) {}

  async list(): Promise<EstProfileList> {
    const store = new EstProfileStore(this.deps.executor);
    const [rows, counters] = await Promise.all([store.list(), store.counters()]);
    return { data: rows.map((row) => estProfileDto(row, counters.get(row.id))), total: rows.length };
  }

  async create(request: CreateEstProfileRequest, context?: RequestContext): Promise<EstProfileDto> {
    await refuseUnknownReferences(this.deps.references, request, ErrorCode.EstProfileInvalid);
    const settings = await this.settings(request, undefined);
    return this.deps.transaction(async (executor) => {
      const row = await new EstProfileStore(executor).create(request.path_id, settings);
      if (!row)
        throw new CertlaneError(
          ErrorCode.EstProfileExists,
          `an EST profile with path_id ${request.path_id} exists`,
        );
      await this.audit(executor, AuditAction.EstProfileCreated, row, context, { path_id: row.path_id });
      return estProfileDto(row);
    });
  }

  async update(request: UpdateEstProfileCommand, context?: RequestContext): Promise<EstProfileDto> {
    if (!(await new EstProfileStore(this.deps.executor).get(request.id))) throw notFound(request.id);
    await refuseUnknownReferences(this.deps.references, request, ErrorCode.EstProfileInvalid);
    return this.deps.transaction(async (executor) => {
      const store = new EstProfileStore(executor);
      const current = await store.get(request.id, true);
      if (!current) throw notFound(request.id);
      const row = (await store.update(current.id, await this.settings(request, current)))!;
      const changed = Object.keys(request).filter((key) => key !== 'id' && key !== 'basic_password');
      if (request.basic_password !== undefined) changed.push('basic_password');
      await this.audit(executor, AuditAction.EstProfileUpdated, row, context, {
        path_id: row.path_id,
        changed,
      });
      const counters = (await store.counters()).get(row.id);
      return estProfileDto(row, counters);
    });
  }

  async delete(id: string, context?: RequestContext): Promise<{ deleted: true }> {
    return this.deps.transaction(async (executor) => {
      const store = new EstProfileStore(executor);
      const row = await store.get(id, true);
      if (!row || !(await store.delete(id))) throw notFound(id);
      await this.audit(executor, AuditAction.EstProfileDeleted, row, context, { path_id: row.path_id });
      return { deleted: true as const };
    });
  }

  /**
   * Reads every profile's trust bundle file again. A file that reads and parses replaces the
   * anchors in use; one that does not keeps the previous anchors (and says why).
   */
  async reloadTrust(context?: RequestContext): Promise<EstTrustReloadResult> {
    const rows = (await new EstProfileStore(this.deps.executor).list()).filter(
      (row) => row.trust_bundle_path,
    );
    const result: EstTrustReloadResult = { reloaded: [], kept_previous: [] };
    for (const row of rows) {
      const loaded = await this.readBundle(row.trust_bundle_path!);
      if (!loaded.ok) {
        result.kept_previous.push({ path_id: row.path_id, reason: loaded.reason });
        continue;
      }
      await new EstProfileStore(this.deps.executor).setTrust(row.id, loaded.pem);
      result.reloaded.push(row.path_id);
    }
    await this.deps.transaction((executor) =>
      this.deps.audit(executor, {
        action: AuditAction.EstTrustAnchorReloaded,
        event_category: 'config',
        actor_id: context?.actor_id ?? 'unknown',
        resource_type: 'est_trust',
        resource_id: 'est_trust',
        outcome: result.kept_previous.length === 0 ? 'success' : 'failure',
        ...(context?.request_id ? { request_id: context.request_id } : {}),
        details: { ...result },
      }),
    );
    return result;
  }

  /** The columns of a create (no current row) or an update, checked together. */
  private async settings(
    request: Partial<CreateEstProfileRequest>,
    current: EstProfileRow | undefined,
  ): Promise<EstProfileSettingsRow> {
    const pick = <K extends keyof EstProfileSettingsRow & keyof CreateEstProfileRequest>(
      key: K,
      fallback: EstProfileSettingsRow[K],
    ): EstProfileSettingsRow[K] =>
      request[key] !== undefined
        ? (request[key] as EstProfileSettingsRow[K])
        : current
          ? current[key]
          : fallback;
    if (request.trust_bundle_path && request.trust_bundle_pem)
      throw invalid('give trust_bundle_path or trust_bundle_pem, not both');
    let trustPath = pick('trust_bundle_path', null);
    let trustPem = pick('trust_bundle_pem', null);
    let loadedAt = current?.trust_loaded_at ?? null;
    if (request.trust_bundle_pem) trustPath = null;
    if (request.trust_bundle_path) {
      const loaded = await this.readBundle(request.trust_bundle_path);
      if (!loaded.ok) throw invalid(`trust_bundle_path: ${loaded.reason}`);
      trustPem = loaded.pem;
    } else if (request.trust_bundle_pem) {
      const parsed = parseTrustBundle(request.trust_bundle_pem);
      if (!parsed.ok) throw invalid(`trust_bundle_pem: ${parsed.reason}`);
    }
    if (request.trust_bundle_path || request.trust_bundle_pem) loadedAt = new Date();
    if (request.trust_bundle_path === null || request.trust_bundle_pem === null) {
      trustPath = null;
      trustPem = null;
      loadedAt = null;
    }
    const passwordHash =
      request.basic_password !== undefined
        ? hashEstPassword(request.basic_password)
        : request.basic_username === null
          ? null
          : (current?.basic_password_hash ?? null);
    const settings: EstProfileSettingsRow = {
      certificate_profile_id: pick('certificate_profile_id', null),
      issuer_id: pick('issuer_id', null),
      auth_methods: pick('auth_methods', []),
      basic_username: pick('basic_username', null),
      basic_password_hash: passwordHash,
      trust_bundle_path: trustPath,
      trust_bundle_pem: trustPem,
      trust_loaded_at: loadedAt,
      serverkeygen_enabled: pick('serverkeygen_enabled', false),
      serverkeygen_unencrypted_allowed: pick('serverkeygen_unencrypted_allowed', false),
      channel_binding_required: pick('channel_binding_required', false),
      client_revocation_unknown: pick('client_revocation_unknown', 'soft-fail'),
      rate_limit_per_minute: pick('rate_limit_per_minute', EST_RATE_LIMIT.default),
      owner: pick('owner', null),
      team: pick('team', null),
    };
    const problems = estProfileProblems({
      auth_methods: settings.auth_methods,
      basic_username: settings.basic_username,
      basic_password_set: settings.basic_password_hash !== null,
      trust_bundle_pem: settings.trust_bundle_pem,
    });
    if (problems.length > 0) throw invalid(problems.join('; '), problems);
    return settings;
  }

  private async readBundle(path: string): Promise<{ ok: true; pem: string } | { ok: false; reason: string }> {
    let text: string;
    try {
      text = await (this.deps.readTrustFile ?? ((p: string) => readFile(p, 'utf8')))(path);
    } catch (error) {
      return {
        ok: false,
        reason: `cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      };
    }
    const parsed = parseTrustBundle(text);
    return parsed.ok ? { ok: true, pem: parsed.anchors.map((a) => a.toString()).join('') } : parsed;
  }

  private async audit(
    executor: SqlExecutor,
    action: string,
    row: EstProfileRow,
    context: RequestContext | undefined,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.deps.audit(executor, {
      action,
      event_category: 'config',
      actor_id: context?.actor_id ?? 'unknown',
      resource_type: 'est_profile',
      resource_id: row.id,
      outcome: 'success',
      ...(context?.request_id ? { request_id: context.request_id } : {}),
      details,
    });
  }
}

const notFound = (id: string) =>
  new CertlaneError(ErrorCode.EstProfileNotFound, `EST profile ${id} not found`);
