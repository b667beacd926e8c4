import {
  AcmeProfileDto,
  AcmeProfileList,
  CreateAcmeProfileRequest,
  UpdateAcmeProfileCommand,
  AcmeAccountDto,
  AcmeEabKeyCreated,
  AcmeEabKeyDto,
  AuditAction,
  AuditRecord,
  CertlaneError,
  CreateAcmeEabKeyRequest,
  ErrorCode,
  ListAcmeAccountsRequest,
  Page,
  PageQuery,
  RequestContext,
  resolvePage,
} from '@certlane/contracts';
import { SqlExecutor } from '@certlane/platform';
import {
  AccountStore,
  AcmeAccountRow,
  AcmeEabKeyRow,
  AcmeProfileSettingsRow,
  AcmeProfileStore,
  EabKeyStore,
  randomId,
} from '@certlane/protocol-frontends-data-access';
import { acmeProfileProblems, allowIpAfterChange } from '@certlane/protocol-frontends-domain';
import {
  acmeProfileDto,
  AcmeProfiles,
  profilesChanged,
  DefaultProfileSettings,
  defaultProfile,
  profileSettings,
} from './acme-profiles';
import { DEFAULT_ACME_PROFILE } from './acme-urls';
import { EabKeyBox } from './eab-key-box';
import { ApprovalWithdrawal, approvalsOf, endOrdersOfDeactivatedAccount } from './account-deactivation';
import { InventoryReferenceCheck, refuseUnknownReferences } from '../inventory-references';

export interface AcmeAdminDeps {
  executor: SqlExecutor;
  transaction<T>(work: (executor: SqlExecutor) => Promise<T>): Promise<T>;
  audit(executor: SqlExecutor, record: AuditRecord): Promise<void>;
  eabKeys: EabKeyBox;
  /** What `default` is while it is not stored (the SERVICE_ACME_* settings). */
  defaults: DefaultProfileSettings;
  /** Which owner, team and certificate profile named issuance does not know (refused at once). */
  references: InventoryReferenceCheck;
  /** Withdraws the approvals of orders a deactivation ended (RFC 8555 7.3.6). */
  withdrawApprovals: ApprovalWithdrawal;
}

const iso = (value: Date | null): string | null => (value ? new Date(value).toISOString() : null);

export function acmeAccountDto(row: AcmeAccountRow, orderCount: number): AcmeAccountDto {
  return {
    id: row.id,
    status: row.status,
    contact: row.contact,
    terms_of_service_agreed: row.terms_of_service_agreed,
    terms_of_service_url: row.terms_of_service_url,
    jwk_thumbprint: row.jwk_thumbprint,
    eab_key_id: row.eab_key_id,
    owner: row.owner,
    team: row.team,
    order_count: orderCount,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/** The API's view of an EAB key: never the HMAC key, sealed or not. */
export function acmeEabKeyDto(row: AcmeEabKeyRow): AcmeEabKeyDto {
  return {
    id: row.id,
    status: row.revoked_at ? 'revoked' : row.bound_account_id ? 'bound' : 'unused',
    description: row.description,
    owner: row.owner,
    team: row.team,
    profile_id: row.profile_id,
    created_by: row.created_by,
    created_at: iso(row.created_at)!,
    bound_account_id: row.bound_account_id,
    bound_at: iso(row.bound_at),
    revoked_at: iso(row.revoked_at),
  };
}

const profileNotFound = (id: string) =>
  new CertlaneError(ErrorCode.AcmeProfileNotFound, `no stored ACME profile ${id}`);

const accountNotFound = (id: string) =>
  new CertlaneError(ErrorCode.AcmeAccountNotFound, `no ACME account ${id}`);

/**
 * The operators' side of the ACME server (issue 19 point 10, ADR 0060): accounts (list, get,
 * deactivate) and external account binding keys (create, shown once; list; revoke), each change
 * audited in its transaction.
 */
export class AcmeAdmin {
  constructor(private readonly deps: AcmeAdminDeps) {}

  async listAccounts(request: ListAcmeAccountsRequest): Promise<Page<AcmeAccountDto>> {
    const page = resolvePage(request);
    const { rows, total } = await new AccountStore(this.deps.executor).list({
      offset: page.offset,
      limit: page.per_page,
      status: request.status,
    });
    return {
      data: rows.map((row) => acmeAccountDto(row, row.order_count)),
      total,
      page: page.page,
      per_page: page.per_page,
    };
  }

  async getAccount(id: string): Promise<AcmeAccountDto> {
    const store = new AccountStore(this.deps.executor);
    const row = await store.byId(id);
    if (!row) throw accountNotFound(id);
    return acmeAccountDto(row, await store.orderCount(id));
  }

  /** RFC 8555 7.3.6 done by an operator: the account's key can no longer sign requests. */
  async deactivateAccount(id: string, context?: RequestContext): Promise<AcmeAccountDto> {
    const { account, ended } = await this.deps.transaction(async (executor) => {
      const store = new AccountStore(executor);
      const outcome = await store.transition(id, { kind: 'deactivate' });
      if (!outcome) throw accountNotFound(id);
      if (!outcome.ok)
        throw new CertlaneError(ErrorCode.AcmeAccountNotValid, `the ACME account ${id} is not valid`);
      const ended = await endOrdersOfDeactivatedAccount(executor, id);
      await this.audit(executor, AuditAction.AcmeAccountDeactivated, 'auth', 'acme_account', id, context, {
        by: 'operator',
        ended_orders: ended.length,
      });
      const row = (await store.byId(id))!;
      return { account: acmeAccountDto(row, await store.orderCount(id)), ended };
    });
    await this.deps.withdrawApprovals(approvalsOf(ended), id);
    return account;
  }

  async createEabKey(request: CreateAcmeEabKeyRequest, context?: RequestContext): Promise<AcmeEabKeyCreated> {
    if (
      request.profile_id &&
      !(await new AcmeProfiles(this.deps.executor, this.deps.defaults).get(request.profile_id))
    )
      throw profileNotFound(request.profile_id);
    await refuseUnknownReferences(
      this.deps.references,
      { owner: request.owner, team: request.team },
      ErrorCode.ReferenceInvalid,
    );
    const id = randomId();
    const { key: hmacKey, sealed } = this.deps.eabKeys.generate(id);
    return this.deps.transaction(async (executor) => {
      const row = await new EabKeyStore(executor).create({
        id,
        hmacSealed: sealed,
        description: request.description ?? null,
        owner: request.owner ?? null,
        team: request.team ?? null,
        profileId: request.profile_id ?? null,
        createdBy: context?.actor_id ?? 'unknown',
      });
      await this.audit(executor, AuditAction.AcmeEabKeyCreated, 'config', 'acme_eab_key', id, context, {
        owner: row.owner,
        team: row.team,
        profile_id: row.profile_id,
      });
      return { ...acmeEabKeyDto(row), hmac_key: hmacKey.toString('base64url') };
    });
  }

  async listEabKeys(request: PageQuery): Promise<Page<AcmeEabKeyDto>> {
    const page = resolvePage(request);
    const { rows, total } = await new EabKeyStore(this.deps.executor).list({
      offset: page.offset,
      limit: page.per_page,
    });
    return { data: rows.map(acmeEabKeyDto), total, page: page.page, per_page: page.per_page };
  }

  /** A revoked key binds no further account; an account it bound keeps working. */
  async revokeEabKey(id: string, context?: RequestContext): Promise<AcmeEabKeyDto> {
    return this.deps.transaction(async (executor) => {
      const row = await new EabKeyStore(executor).revoke(id);
      if (!row) throw new CertlaneError(ErrorCode.AcmeEabKeyNotFound, `no usable EAB key ${id}`);
      await this.audit(executor, AuditAction.AcmeEabKeyRevoked, 'config', 'acme_eab_key', id, context, {
        bound_account_id: row.bound_account_id,
      });
      return acmeEabKeyDto(row);
    });
  }

  async listProfiles(): Promise<AcmeProfileList> {
    const profiles = await new AcmeProfiles(this.deps.executor, this.deps.defaults).all();
    return { data: profiles.map((p) => acmeProfileDto(p.settings, p.row)), total: profiles.length };
  }

  async createProfile(request: CreateAcmeProfileRequest, context?: RequestContext): Promise<AcmeProfileDto> {
    const settings = this.settings(request, undefined);
    await refuseUnknownReferences(this.deps.references, request, ErrorCode.AcmeProfileInvalid);
    return this.changingProfiles(() =>
      this.deps.transaction(async (executor) => {
        const row = await new AcmeProfileStore(executor).create(request.id, settings);
        if (!row)
          throw new CertlaneError(ErrorCode.AcmeProfileExists, `an ACME profile ${request.id} exists`);
        await this.audit(
          executor,
          AuditAction.AcmeProfileCreated,
          'config',
          'acme_profile',
          row.id,
          context,
          {},
        );
        return acmeProfileDto(profileSettings(row), row);
      }),
    );
  }

  /** Replaces the fields given; `default`, while unstored, is stored from its settings first. */
  async updateProfile(request: UpdateAcmeProfileCommand, context?: RequestContext): Promise<AcmeProfileDto> {
    await refuseUnknownReferences(this.deps.references, request, ErrorCode.AcmeProfileInvalid);
    return this.changingProfiles(() =>
      this.deps.transaction(async (executor) => {
        const store = new AcmeProfileStore(executor);
        let current = await store.get(request.id);
        if (!current && request.id === DEFAULT_ACME_PROFILE)
          current = await store.create(DEFAULT_ACME_PROFILE, this.rowOf(defaultProfile(this.deps.defaults)));
        if (!current) throw profileNotFound(request.id);
        const row = (await store.update(request.id, this.settings(request, current)))!;
        await this.audit(
          executor,
          AuditAction.AcmeProfileUpdated,
          'config',
          'acme_profile',
          row.id,
          context,
          {
            changed: Object.keys(request).filter((key) => key !== 'id'),
          },
        );
        return acmeProfileDto(profileSettings(row), row);
      }),
    );
  }

  /** Orders made under a deleted profile can no longer be finalized (their settings are gone). */
  async deleteProfile(id: string, context?: RequestContext): Promise<{ deleted: true }> {
    return this.changingProfiles(() =>
      this.deps.transaction(async (executor) => {
        if (!(await new AcmeProfileStore(executor).delete(id))) throw profileNotFound(id);
        await this.audit(executor, AuditAction.AcmeProfileDeleted, 'config', 'acme_profile', id, context, {});
        return { deleted: true as const };
      }),
    );
  }

  /** Runs a profile change; this process's cached profiles are read again once it is done. */
  private async changingProfiles<T>(change: () => Promise<T>): Promise<T> {
    try {
      return await change();
    } finally {
      profilesChanged();
    }
  }

  private rowOf(settings: ReturnType<typeof defaultProfile>): AcmeProfileSettingsRow {
    return {
      description: settings.description,
      issuer_id: settings.issuerId,
      certificate_profile_id: settings.certificateProfileId,
      validity_days: settings.validityDays,
      allow_ip: settings.allowIp,
      allowed_domains: settings.allowedDomains,
      denied_domains: settings.deniedDomains,
      external_account_required: settings.externalAccountRequired,
      new_orders_per_hour: settings.newOrdersPerHour,
      owner: settings.owner,
      team: settings.team,
      caa_identities: settings.caaIdentities,
      dns_persist_01: settings.dnsPersist01,
      allow_requested_validity: settings.allowRequestedValidity,
    };
  }

  /** The columns of a create (no current row) or an update, checked together. */
  private settings(
    request: Partial<CreateAcmeProfileRequest>,
    current: AcmeProfileSettingsRow | undefined,
  ): AcmeProfileSettingsRow {
    const base = current ?? this.rowOf({ ...defaultProfile({}), description: '' });
    const pick = <K extends keyof AcmeProfileSettingsRow & keyof CreateAcmeProfileRequest>(
      key: K,
    ): AcmeProfileSettingsRow[K] =>
      request[key] !== undefined ? (request[key] as AcmeProfileSettingsRow[K]) : base[key];
    const settings: AcmeProfileSettingsRow = {
      description: pick('description'),
      issuer_id: pick('issuer_id'),
      certificate_profile_id: pick('certificate_profile_id'),
      validity_days: pick('validity_days'),
      allow_ip: allowIpAfterChange({
        requested: request.allow_ip,
        current: base.allow_ip,
        allowedBefore: base.allowed_domains,
        allowedAfter: pick('allowed_domains'),
      }),
      allowed_domains: [...new Set(pick('allowed_domains'))],
      denied_domains: [...new Set(pick('denied_domains'))],
      external_account_required: pick('external_account_required'),
      new_orders_per_hour: pick('new_orders_per_hour'),
      owner: pick('owner'),
      team: pick('team'),
      caa_identities: (() => {
        const identities = pick('caa_identities');
        return identities === null ? null : [...new Set(identities.map((i) => i.toLowerCase()))];
      })(),
      dns_persist_01: pick('dns_persist_01'),
      allow_requested_validity: pick('allow_requested_validity'),
    };
    const problems = acmeProfileProblems({
      allowedDomains: settings.allowed_domains,
      deniedDomains: settings.denied_domains,
      caaIdentities: settings.caa_identities,
    });
    if (problems.length > 0)
      throw new CertlaneError(ErrorCode.AcmeProfileInvalid, problems.join('; '), { problems });
    return settings;
  }

  private async audit(
    executor: SqlExecutor,
    action: string,
    category: AuditRecord['event_category'],
    resourceType: string,
    resourceId: string,
    context: RequestContext | undefined,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.deps.audit(executor, {
      action,
      event_category: category,
      actor_id: context?.actor_id ?? 'unknown',
      resource_type: resourceType,
      resource_id: resourceId,
      outcome: 'success',
      ...(context?.request_id ? { request_id: context.request_id } : {}),
      details,
    });
  }
}
