import { Inject, Injectable } from '@nestjs/common';
import {
  CertlaneError,
  CreateOidcGroupMappingCommand,
  CreateOidcProviderRequest,
  ErrorCode,
  ListOidcGroupMappingsRequest,
  ListOidcProvidersRequest,
  OIDC_DEFAULT_SCOPES,
  OidcGroupMappingDeleted,
  OidcGroupMappingDto,
  OidcJwksStatus,
  OidcProviderDeleted,
  OidcProviderDto,
  OidcTestResult,
  Page,
  resolvePage,
  TestOidcProviderRequest,
  UpdateOidcProviderCommand,
} from '@certlane/contracts';
import { CERTLANE_CONFIG, CertlaneConfig, outboxToken, SecretBox, ServiceOutbox } from '@certlane/platform';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { authAudit, AuthCaller } from '../audit/auth-audit';
import { assertMayHandOut } from '../roles/hand-out';
import { SessionService } from '../sessions/session.service';
import { describeKeys, discover, fetchKeySet, OidcClients, usableKeyCount } from './oidc-clients';
import { OidcProviderRow, OidcProviderSettings, OidcRepository, toProviderDto } from './oidc.repository';
import { issuerProblem, normalizeScopes, redirectUriProblem } from './oidc-rules';

/** The SecretBox label of OIDC client secrets; the provider id is the associated data. */
const CLIENT_SECRET_BOX = 'certlane:auth:oidc-client-secret';
const PROVIDER = 'oidc_provider';
const MAPPING = 'oidc_group_mapping';

const providerNotFound = (id: string) =>
  new CertlaneError(ErrorCode.OidcProviderNotFound, `OIDC provider ${JSON.stringify(id)} not found`);
const invalid = (message: string, field: string) =>
  new CertlaneError(ErrorCode.OidcProviderInvalid, message, { field });

/**
 * OIDC providers and group mappings (spec 4.10; ADR 0081): created, edited and removed by
 * administrators, client secrets sealed at rest and never answered, the key set's health kept
 * per provider.
 */
@Injectable()
export class OidcAdminService {
  private readonly box: SecretBox;

  constructor(
    private readonly repository: OidcRepository,
    private readonly clients: OidcClients,
    private readonly sessions: SessionService,
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
    @Inject(outboxToken('auth')) private readonly outbox: ServiceOutbox,
  ) {
    this.box = new SecretBox(config.configEncryptionKey, CLIENT_SECRET_BOX);
  }

  /** The stored client secret in clear, for the token request; null for a public client. */
  clientSecretOf(provider: Pick<OidcProviderRow, 'id' | 'client_secret_sealed'>): string | null {
    return provider.client_secret_sealed === null
      ? null
      : this.box.open(provider.client_secret_sealed, provider.id);
  }

  list(request: ListOidcProvidersRequest): Promise<Page<OidcProviderDto>> {
    return this.repository.listProviders(resolvePage(request));
  }

  async create(request: CreateOidcProviderRequest, caller: AuthCaller): Promise<OidcProviderDto> {
    const id = randomUUID();
    const settings = this.settings(id, request, {
      name: request.name,
      issuer: request.issuer,
      client_id: request.client_id,
      client_secret_sealed: null,
      redirect_uri: request.redirect_uri,
      scopes: [...OIDC_DEFAULT_SCOPES],
      group_claim: 'groups',
      allowed_email_domains: [],
      id_token_signing_alg: 'RS256',
      enabled: true,
    });
    await this.repository.transaction(async (manager) => {
      await this.repository.lockProviderWrites(manager);
      await this.assertNameFree(manager, settings.name);
      await this.assertClientFree(manager, settings);
      await this.repository.insertProvider(manager, id, settings);
      await this.outbox.audit(
        manager,
        authAudit('auth.oidc_provider_created', caller, { type: PROVIDER, id }, 'success', {
          name: settings.name,
          issuer: settings.issuer,
          client_id: settings.client_id,
          confidential: settings.client_secret_sealed !== null,
        }),
      );
    });
    return toProviderDto((await this.repository.findProvider(id))!);
  }

  async update(command: UpdateOidcProviderCommand, caller: AuthCaller): Promise<OidcProviderDto> {
    const { id, ...changes } = command;
    await this.repository.transaction(async (manager) => {
      await this.repository.lockProviderWrites(manager);
      const current = await this.repository.lockProvider(manager, id);
      if (!current) throw providerNotFound(id);
      const settings = this.settings(id, changes, current);
      if (settings.name !== current.name) await this.assertNameFree(manager, settings.name, id);
      if (settings.issuer !== current.issuer || settings.client_id !== current.client_id)
        await this.assertClientFree(manager, settings, id);
      await this.repository.updateProvider(manager, id, settings);
      // Disabling a provider ends the sessions opened through it: it is how an operator cuts off an IdP.
      const sessionsRevoked =
        current.enabled && !settings.enabled ? await this.sessions.revokeOidc(manager, id, 'all') : 0;
      await this.outbox.audit(
        manager,
        authAudit('auth.oidc_provider_updated', caller, { type: PROVIDER, id }, 'success', {
          changed: Object.keys(changes)
            .filter((key) => changes[key as keyof typeof changes] !== undefined)
            .sort(),
          ...(sessionsRevoked > 0 ? { sessions_revoked: sessionsRevoked } : {}),
        }),
      );
    });
    this.clients.forget(id);
    return toProviderDto((await this.repository.findProvider(id))!);
  }

  /** 409 while users have signed in through it: their identities and grants name it. */
  async delete(id: string, caller: AuthCaller): Promise<OidcProviderDeleted> {
    await this.repository.transaction(async (manager) => {
      const current = await this.repository.lockProvider(manager, id);
      if (!current) throw providerNotFound(id);
      if (current.user_count > 0) {
        throw new CertlaneError(
          ErrorCode.OidcProviderInUse,
          `OIDC provider ${JSON.stringify(current.name)} has ${current.user_count} user(s) who signed in through it; disable it instead`,
          { users: current.user_count },
        );
      }
      await this.repository.deleteProvider(manager, id);
      await this.outbox.audit(
        manager,
        authAudit('auth.oidc_provider_deleted', caller, { type: PROVIDER, id }, 'success', {
          name: current.name,
        }),
      );
    });
    this.clients.forget(id);
    return { id };
  }

  /** Discovery and the key set again, now; the snapshot records the outcome either way. */
  async refresh(id: string, caller: AuthCaller): Promise<OidcJwksStatus> {
    const provider = await this.repository.findProvider(id);
    if (!provider) throw providerNotFound(id);
    this.clients.forget(id);
    let outcome: { jwksUri: string | null; keys: ReturnType<typeof describeKeys>; error: string | null };
    try {
      const config = await this.clients.configFor(provider, this.clientSecretOf(provider));
      const jwksUri = config.serverMetadata().jwks_uri ?? null;
      if (!jwksUri) throw new Error('the provider announces no jwks_uri');
      outcome = { jwksUri, keys: describeKeys(await fetchKeySet(jwksUri)), error: null };
    } catch (error) {
      outcome = { jwksUri: null, keys: [], error: describeFailure(error) };
    }
    await this.repository.saveKeySet(id, outcome);
    await this.repository.transaction((manager) =>
      this.outbox.audit(
        manager,
        authAudit(
          'auth.oidc_provider_refreshed',
          caller,
          { type: PROVIDER, id },
          outcome.error ? 'failure' : 'success',
          {
            key_count: outcome.keys.length,
            ...(outcome.error ? { error: outcome.error } : {}),
          },
        ),
      ),
    );
    return this.jwksStatus(id);
  }

  async jwksStatus(id: string): Promise<OidcJwksStatus> {
    const provider = await this.repository.findProvider(id);
    if (!provider) throw providerNotFound(id);
    return {
      provider_id: id,
      status: provider.jwks_error ? 'error' : provider.jwks_fetched_at ? 'ok' : 'unknown',
      jwks_uri: provider.jwks_uri,
      fetched_at: provider.jwks_fetched_at?.toISOString() ?? null,
      key_count: provider.jwks_keys.length,
      keys: provider.jwks_keys,
      usable_key_count: usableKeyCount(provider.jwks_keys, provider.id_token_signing_alg),
      error: provider.jwks_error,
    };
  }

  /** A dry run: discovery and the key set of an issuer, nothing stored (200 whatever the outcome). */
  async test(request: TestOidcProviderRequest): Promise<OidcTestResult> {
    const alg = request.id_token_signing_alg ?? 'RS256';
    const result: OidcTestResult = {
      ok: false,
      issuer: request.issuer,
      authorization_endpoint: null,
      token_endpoint: null,
      jwks_uri: null,
      end_session_endpoint: null,
      code_challenge_methods_supported: [],
      id_token_signing_alg_values_supported: [],
      backchannel_logout_supported: false,
      authorization_response_iss_parameter_supported: false,
      key_count: 0,
      usable_key_count: 0,
      problems: [],
    };
    const problem = issuerProblem(request.issuer);
    if (problem) return { ...result, problems: [problem] };
    try {
      const config = await discover(request.issuer, request.client_id ?? 'certlane-test', null, alg);
      const metadata = config.serverMetadata();
      const strings = (value: unknown) =>
        Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
      Object.assign(result, {
        authorization_endpoint: metadata.authorization_endpoint ?? null,
        token_endpoint: metadata.token_endpoint ?? null,
        jwks_uri: metadata.jwks_uri ?? null,
        end_session_endpoint: metadata.end_session_endpoint ?? null,
        code_challenge_methods_supported: strings(metadata.code_challenge_methods_supported),
        id_token_signing_alg_values_supported: strings(metadata.id_token_signing_alg_values_supported),
        backchannel_logout_supported: metadata['backchannel_logout_supported'] === true,
        authorization_response_iss_parameter_supported:
          metadata.authorization_response_iss_parameter_supported === true,
      });
      if (!result.authorization_endpoint) result.problems.push('no authorization_endpoint');
      if (!result.token_endpoint) result.problems.push('no token_endpoint');
      if (
        result.code_challenge_methods_supported.length > 0 &&
        !result.code_challenge_methods_supported.includes('S256')
      ) {
        result.problems.push('PKCE S256 is not supported');
      }
      if (
        result.id_token_signing_alg_values_supported.length > 0 &&
        !result.id_token_signing_alg_values_supported.includes(alg)
      ) {
        result.problems.push(`ID tokens are not signed with ${alg}`);
      }
      if (!result.jwks_uri) result.problems.push('no jwks_uri');
      else {
        const keys = describeKeys(await fetchKeySet(result.jwks_uri));
        result.key_count = keys.length;
        result.usable_key_count = usableKeyCount(keys, alg);
        if (result.usable_key_count === 0) result.problems.push(`the key set has no key for ${alg}`);
      }
    } catch (error) {
      result.problems.push(describeFailure(error));
    }
    result.ok = result.problems.length === 0;
    return result;
  }

  listMappings(request: ListOidcGroupMappingsRequest): Promise<Page<OidcGroupMappingDto>> {
    return this.repository.listMappings(resolvePage(request), request.provider_id);
  }

  /** A mapping hands its role to everyone in the group: checked like a grant (ADR 0014). */
  async createMapping(
    command: CreateOidcGroupMappingCommand,
    caller: AuthCaller,
  ): Promise<OidcGroupMappingDto> {
    return this.repository.transaction(async (manager) => {
      if (!(await this.repository.findProvider(command.provider_id, manager))) {
        throw providerNotFound(command.provider_id);
      }
      const permissions = await this.rolePermissions(manager, command.role_id);
      assertMayHandOut(
        command,
        { id: command.role_id, permissions },
        `mapping a group to ${command.role_id}`,
      );
      const mapping = await this.repository.insertMapping(manager, {
        id: randomUUID(),
        providerId: command.provider_id,
        group: command.group,
        roleId: command.role_id,
        createdBy: caller.actorId,
      });
      if (!mapping) {
        throw new CertlaneError(
          ErrorCode.OidcGroupMappingExists,
          `group ${JSON.stringify(command.group)} already maps to ${command.role_id} for this provider`,
        );
      }
      await this.outbox.audit(
        manager,
        authAudit('auth.group_mapping_added', caller, { type: MAPPING, id: mapping.id }, 'success', {
          provider_id: mapping.provider_id,
          group: mapping.group,
          role_id: mapping.role_id,
        }),
      );
      return mapping;
    });
  }

  async deleteMapping(id: string, caller: AuthCaller): Promise<OidcGroupMappingDeleted> {
    return this.repository.transaction(async (manager) => {
      const removed = await this.repository.deleteMapping(manager, id);
      if (!removed) {
        throw new CertlaneError(
          ErrorCode.OidcGroupMappingNotFound,
          `group mapping ${JSON.stringify(id)} not found`,
        );
      }
      await this.outbox.audit(
        manager,
        authAudit('auth.group_mapping_removed', caller, { type: MAPPING, id }, 'success', {
          provider_id: removed.provider_id,
          group: removed.group,
          role_id: removed.role_id,
        }),
      );
      return { id };
    });
  }

  private async rolePermissions(manager: EntityManager, roleId: string): Promise<string[]> {
    const rows: { permission: string | null }[] = await manager.query(
      `SELECT rp.permission FROM roles r LEFT JOIN role_permissions rp ON rp.role_id = r.id WHERE r.id = $1`,
      [roleId],
    );
    if (rows.length === 0) {
      throw new CertlaneError(ErrorCode.RoleNotFound, `role ${JSON.stringify(roleId)} not found`, {
        field: 'role_id',
      });
    }
    return rows.flatMap((row) => (row.permission === null ? [] : [row.permission]));
  }

  /** The settings after applying `changes`, checked; a new client secret is sealed for this provider. */
  private settings(
    id: string,
    changes: Partial<CreateOidcProviderRequest>,
    current: OidcProviderSettings,
  ): OidcProviderSettings {
    const next: OidcProviderSettings = {
      name: changes.name ?? current.name,
      issuer: changes.issuer ?? current.issuer,
      client_id: changes.client_id ?? current.client_id,
      client_secret_sealed:
        changes.client_secret !== undefined
          ? this.box.seal(changes.client_secret, id)
          : current.client_secret_sealed,
      redirect_uri: changes.redirect_uri ?? current.redirect_uri,
      scopes: normalizeScopes(changes.scopes ?? current.scopes),
      group_claim: changes.group_claim ?? current.group_claim,
      allowed_email_domains: [...new Set(changes.allowed_email_domains ?? current.allowed_email_domains)],
      id_token_signing_alg: changes.id_token_signing_alg ?? current.id_token_signing_alg,
      enabled: changes.enabled ?? current.enabled,
    };
    const issuer = issuerProblem(next.issuer);
    if (issuer) throw invalid(issuer, 'issuer');
    const redirect = redirectUriProblem(next.redirect_uri);
    if (redirect) throw invalid(redirect, 'redirect_uri');
    return next;
  }

  /**
   * One provider per client of an issuer: a back-channel logout token names only its issuer and
   * audience (the client id), so it could not tell two such providers apart (ADR 0081 amendment).
   */
  private async assertClientFree(
    manager: EntityManager,
    settings: Pick<OidcProviderSettings, 'issuer' | 'client_id'>,
    exceptId?: string,
  ): Promise<void> {
    const other = await this.repository.clientTakenBy(manager, settings.issuer, settings.client_id, exceptId);
    if (other !== null) {
      throw new CertlaneError(
        ErrorCode.OidcProviderExists,
        `OIDC provider ${JSON.stringify(other)} is already client ${JSON.stringify(settings.client_id)} of ${settings.issuer}`,
        { field: 'client_id' },
      );
    }
  }

  private async assertNameFree(manager: EntityManager, name: string, exceptId?: string): Promise<void> {
    if (await this.repository.nameTaken(manager, name, exceptId)) {
      throw new CertlaneError(
        ErrorCode.OidcProviderExists,
        `an OIDC provider named ${JSON.stringify(name)} exists`,
        {
          field: 'name',
        },
      );
    }
  }
}

/** A failure of discovery or the key set, in words fit for an operator (no secrets in these). */
export function describeFailure(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    const detail = cause instanceof Error && cause.message !== error.message ? `: ${cause.message}` : '';
    return `${error.message}${detail}`.slice(0, 500);
  }
  return 'unknown failure';
}
