import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  OidcGroupMappingDto,
  OidcKeyInfo,
  OidcProviderDto,
  OidcSigningAlgorithm,
  Page,
  ResolvedPage,
} from '@certlane/contracts';
import { DataSource, EntityManager } from 'typeorm';

export interface OidcProviderRow {
  id: string;
  name: string;
  issuer: string;
  client_id: string;
  client_secret_sealed: string | null;
  redirect_uri: string;
  scopes: string[];
  group_claim: string;
  allowed_email_domains: string[];
  id_token_signing_alg: OidcSigningAlgorithm;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
  jwks_uri: string | null;
  jwks_fetched_at: Date | null;
  jwks_keys: OidcKeyInfo[];
  jwks_error: string | null;
  user_count: number;
}

export type OidcProviderSettings = Pick<
  OidcProviderRow,
  | 'name'
  | 'issuer'
  | 'client_id'
  | 'client_secret_sealed'
  | 'redirect_uri'
  | 'scopes'
  | 'group_claim'
  | 'allowed_email_domains'
  | 'id_token_signing_alg'
  | 'enabled'
>;

export interface PreloginRow {
  provider_id: string;
  state: string;
  nonce: string;
  code_verifier: string;
  user_agent_hash: string;
  client_ip: string;
}

interface MappingRow {
  id: string;
  provider_id: string;
  group_value: string;
  role_id: string;
  created_by: string;
  created_at: Date;
}

const PROVIDER_COLUMNS = `p.id, p.name, p.issuer, p.client_id, p.client_secret_sealed, p.redirect_uri, p.scopes,
  p.group_claim, p.allowed_email_domains, p.id_token_signing_alg, p.enabled, p.created_at, p.updated_at,
  p.jwks_uri, p.jwks_fetched_at, p.jwks_keys, p.jwks_error,
  (SELECT count(*)::int FROM oidc_identities i WHERE i.provider_id = p.id) AS user_count`;

export function toProviderDto(row: OidcProviderRow): OidcProviderDto {
  return {
    id: row.id,
    name: row.name,
    issuer: row.issuer,
    client_id: row.client_id,
    has_client_secret: row.client_secret_sealed !== null,
    redirect_uri: row.redirect_uri,
    scopes: row.scopes,
    group_claim: row.group_claim,
    allowed_email_domains: row.allowed_email_domains,
    id_token_signing_alg: row.id_token_signing_alg,
    enabled: row.enabled,
    user_count: row.user_count,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function toMappingDto(row: MappingRow): OidcGroupMappingDto {
  return {
    id: row.id,
    provider_id: row.provider_id,
    group: row.group_value,
    role_id: row.role_id,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
  };
}

/** OIDC providers, group mappings, identities, pre-logins and seen logout tokens (schema auth). */
@Injectable()
export class OidcRepository {
  constructor(@InjectDataSource('auth') private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async findProvider(id: string, manager: EntityManager | DataSource = this.dataSource) {
    const rows: OidcProviderRow[] = await manager.query(
      `SELECT ${PROVIDER_COLUMNS} FROM oidc_providers p WHERE p.id = $1`,
      [id],
    );
    return rows[0];
  }

  /** Locks the provider row for the caller's transaction. */
  async lockProvider(manager: EntityManager, id: string): Promise<OidcProviderRow | undefined> {
    await manager.query('SELECT 1 FROM oidc_providers WHERE id = $1 FOR UPDATE', [id]);
    return this.findProvider(id, manager);
  }

  async providersOfIssuer(issuer: string): Promise<OidcProviderRow[]> {
    return this.dataSource.query(
      `SELECT ${PROVIDER_COLUMNS} FROM oidc_providers p WHERE p.issuer = $1 ORDER BY p.created_at, p.id`,
      [issuer],
    );
  }

  async listProviders(page: ResolvedPage): Promise<Page<OidcProviderDto>> {
    const rows: OidcProviderRow[] = await this.dataSource.query(
      `SELECT ${PROVIDER_COLUMNS} FROM oidc_providers p ORDER BY p.name, p.id LIMIT $1 OFFSET $2`,
      [page.per_page, page.offset],
    );
    const [{ total }] = await this.dataSource.query('SELECT count(*)::int AS total FROM oidc_providers');
    return { data: rows.map(toProviderDto), total, page: page.page, per_page: page.per_page };
  }

  async insertProvider(manager: EntityManager, id: string, settings: OidcProviderSettings): Promise<void> {
    await manager.query(
      `INSERT INTO oidc_providers (id, name, issuer, client_id, client_secret_sealed, redirect_uri, scopes,
                                   group_claim, allowed_email_domains, id_token_signing_alg, enabled)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [id, ...this.settingValues(settings)],
    );
  }

  async updateProvider(manager: EntityManager, id: string, settings: OidcProviderSettings): Promise<void> {
    await manager.query(
      `UPDATE oidc_providers SET name = $2, issuer = $3, client_id = $4, client_secret_sealed = $5,
              redirect_uri = $6, scopes = $7, group_claim = $8, allowed_email_domains = $9,
              id_token_signing_alg = $10, enabled = $11, updated_at = now(),
              jwks_uri = CASE WHEN issuer = $3 THEN jwks_uri END,
              jwks_fetched_at = CASE WHEN issuer = $3 THEN jwks_fetched_at END,
              jwks_keys = CASE WHEN issuer = $3 THEN jwks_keys ELSE '[]' END,
              jwks_error = CASE WHEN issuer = $3 THEN jwks_error END
        WHERE id = $1`,
      [id, ...this.settingValues(settings)],
    );
  }

  private settingValues(settings: OidcProviderSettings): unknown[] {
    return [
      settings.name,
      settings.issuer,
      settings.client_id,
      settings.client_secret_sealed,
      settings.redirect_uri,
      settings.scopes,
      settings.group_claim,
      settings.allowed_email_domains,
      settings.id_token_signing_alg,
      settings.enabled,
    ];
  }

  async deleteProvider(manager: EntityManager, id: string): Promise<void> {
    await manager.query('DELETE FROM oidc_providers WHERE id = $1', [id]);
  }

  /**
   * Serializes provider writes for the rest of the transaction (they are rare), so the name and
   * client checks below cannot race another writer; sign-ins only read and are not held up.
   */
  async lockProviderWrites(manager: EntityManager): Promise<void> {
    await manager.query('LOCK TABLE oidc_providers IN SHARE ROW EXCLUSIVE MODE');
  }

  /** The name of another provider registered as the same client of the same issuer, if any. */
  async clientTakenBy(
    manager: EntityManager,
    issuer: string,
    clientId: string,
    exceptId?: string,
  ): Promise<string | null> {
    const rows: { name: string }[] = await manager.query(
      'SELECT name FROM oidc_providers WHERE issuer = $1 AND client_id = $2 AND id IS DISTINCT FROM $3 LIMIT 1',
      [issuer, clientId, exceptId ?? null],
    );
    return rows[0]?.name ?? null;
  }

  async nameTaken(manager: EntityManager, name: string, exceptId?: string): Promise<boolean> {
    const rows = await manager.query(
      'SELECT 1 FROM oidc_providers WHERE name = $1 AND id IS DISTINCT FROM $2',
      [name, exceptId ?? null],
    );
    return rows.length > 0;
  }

  async saveKeySet(
    id: string,
    keySet: { jwksUri: string | null; keys: OidcKeyInfo[]; error: string | null },
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE oidc_providers SET jwks_uri = COALESCE($2, jwks_uri), jwks_fetched_at = now(),
              jwks_keys = CASE WHEN $4::text IS NULL THEN $3::jsonb ELSE jwks_keys END, jwks_error = $4
        WHERE id = $1`,
      [id, keySet.jwksUri, JSON.stringify(keySet.keys), keySet.error],
    );
  }

  async mappingsOf(providerId: string, manager: EntityManager | DataSource = this.dataSource) {
    const rows: MappingRow[] = await manager.query(
      'SELECT * FROM oidc_group_mappings WHERE provider_id = $1 ORDER BY group_value, role_id',
      [providerId],
    );
    return rows;
  }

  async listMappings(page: ResolvedPage, providerId?: string): Promise<Page<OidcGroupMappingDto>> {
    const where = '$1::uuid IS NULL OR provider_id = $1';
    const rows: MappingRow[] = await this.dataSource.query(
      `SELECT * FROM oidc_group_mappings WHERE ${where}
        ORDER BY provider_id, group_value, role_id, id LIMIT $2 OFFSET $3`,
      [providerId ?? null, page.per_page, page.offset],
    );
    const [{ total }] = await this.dataSource.query(
      `SELECT count(*)::int AS total FROM oidc_group_mappings WHERE ${where}`,
      [providerId ?? null],
    );
    return { data: rows.map(toMappingDto), total, page: page.page, per_page: page.per_page };
  }

  /** Inserts a mapping; undefined when the same (provider, group, role) exists. */
  async insertMapping(
    manager: EntityManager,
    mapping: { id: string; providerId: string; group: string; roleId: string; createdBy: string },
  ): Promise<OidcGroupMappingDto | undefined> {
    const rows: MappingRow[] = await manager.query(
      `INSERT INTO oidc_group_mappings (id, provider_id, group_value, role_id, created_by)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (provider_id, group_value, role_id) DO NOTHING RETURNING *`,
      [mapping.id, mapping.providerId, mapping.group, mapping.roleId, mapping.createdBy],
    );
    return rows[0] && toMappingDto(rows[0]);
  }

  async deleteMapping(manager: EntityManager, id: string): Promise<OidcGroupMappingDto | undefined> {
    const [rows]: [MappingRow[], number] = await manager.query(
      'DELETE FROM oidc_group_mappings WHERE id = $1 RETURNING *',
      [id],
    );
    return rows[0] && toMappingDto(rows[0]);
  }

  async insertPrelogin(cookieHash: string, row: PreloginRow, lifetimeSeconds: number): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO oidc_prelogins (cookie_hash, provider_id, state, nonce, code_verifier, user_agent_hash, client_ip, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))`,
      [
        cookieHash,
        row.provider_id,
        row.state,
        row.nonce,
        row.code_verifier,
        row.user_agent_hash,
        row.client_ip,
        lifetimeSeconds,
      ],
    );
  }

  async pendingLoginsFrom(clientIp: string): Promise<number> {
    const [row] = await this.dataSource.query(
      'SELECT count(*)::int AS n FROM oidc_prelogins WHERE client_ip = $1 AND expires_at > now()',
      [clientIp],
    );
    return row.n;
  }

  /** Consumes a pre-login (single use): its row, if it existed and had not expired. */
  async takePrelogin(cookieHash: string): Promise<PreloginRow | undefined> {
    const [rows]: [(PreloginRow & { live: boolean })[], number] = await this.dataSource.query(
      `DELETE FROM oidc_prelogins WHERE cookie_hash = $1
       RETURNING provider_id, state, nonce, code_verifier, user_agent_hash, client_ip, expires_at > now() AS live`,
      [cookieHash],
    );
    return rows[0]?.live ? rows[0] : undefined;
  }

  async deleteExpired(): Promise<number> {
    const prelogins = await this.dataSource.query('DELETE FROM oidc_prelogins WHERE expires_at <= now()');
    const tokens = await this.dataSource.query(
      'DELETE FROM oidc_logout_tokens_seen WHERE expires_at <= now()',
    );
    return (prelogins[1] ?? 0) + (tokens[1] ?? 0);
  }

  /**
   * Records an identity's sign-in and the roles its groups map to now; the grants the previous
   * mapping gave and this one does not are removed, the new ones added (global scope).
   */
  async recordIdentity(
    manager: EntityManager,
    identity: { providerId: string; subject: string; actorId: string; email: string | null; roles: string[] },
  ): Promise<void> {
    const [previous] = await manager.query(
      'SELECT mapped_roles FROM oidc_identities WHERE provider_id = $1 AND subject = $2 FOR UPDATE',
      [identity.providerId, identity.subject],
    );
    const dropped = ((previous?.mapped_roles as string[] | undefined) ?? []).filter(
      (role) => !identity.roles.includes(role),
    );
    if (dropped.length > 0) {
      await manager.query(
        `DELETE FROM actor_roles WHERE actor_id = $1 AND scope = '*' AND role_id = ANY($2::text[])`,
        [identity.actorId, dropped],
      );
    }
    if (identity.roles.length > 0) {
      await manager.query(
        `INSERT INTO actor_roles (actor_id, role_id, granted_by, scope)
         SELECT $1, unnest($2::text[]), $3, '*' ON CONFLICT (actor_id, role_id, scope) DO NOTHING`,
        [identity.actorId, identity.roles, `oidc-group-mapping:${identity.providerId}`],
      );
    }
    await manager.query(
      `INSERT INTO oidc_identities (provider_id, subject, actor_id, email, mapped_roles)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (provider_id, subject) DO UPDATE
         SET email = EXCLUDED.email, mapped_roles = EXCLUDED.mapped_roles, last_login_at = now()`,
      [identity.providerId, identity.subject, identity.actorId, identity.email, identity.roles],
    );
  }

  async actorHasRoles(manager: EntityManager, actorId: string): Promise<boolean> {
    const rows = await manager.query('SELECT 1 FROM actor_roles WHERE actor_id = $1 LIMIT 1', [actorId]);
    return rows.length > 0;
  }

  /** True the first time a logout token's jti is seen for the provider (replays are refused). */
  async rememberLogoutToken(
    manager: EntityManager,
    providerId: string,
    jti: string,
    keepSeconds: number,
  ): Promise<boolean> {
    const rows = await manager.query(
      `INSERT INTO oidc_logout_tokens_seen (provider_id, jti, expires_at)
       VALUES ($1, $2, now() + make_interval(secs => $3)) ON CONFLICT DO NOTHING RETURNING jti`,
      [providerId, jti, keepSeconds],
    );
    return rows.length > 0;
  }
}
