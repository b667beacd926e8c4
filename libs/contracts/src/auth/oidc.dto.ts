import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsIP,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  MaxLength,
} from 'class-validator';
import { PageQuery } from '../pagination/page';
import { ROLE_ID_PATTERN } from './roles.dto';

/**
 * OIDC sign-in (spec 4.10, 5.4, 5.5; ADR 0081). An administrator registers identity providers and
 * maps the values of their group claim to roles; browsers then sign in with the authorization
 * code flow (PKCE S256, state, nonce, the `iss` response parameter) and get a session.
 */

/** Asymmetric algorithms an ID token or logout token may be signed with; `none` and HMAC never. */
export const OIDC_SIGNING_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;
export type OidcSigningAlgorithm = (typeof OIDC_SIGNING_ALGORITHMS)[number];

export const OIDC_DEFAULT_SCOPES = ['openid', 'email', 'profile'] as const;
/** The path every provider's redirect URI ends with: the gateway's callback route. */
export const OIDC_CALLBACK_PATH = '/auth/oidc/callback';
/** Spec 5.4: the pre-login cookie lives 600 seconds. */
export const OIDC_PRELOGIN_SECONDS = 600;
export const OIDC_PENDING_COOKIE = 'service_oidc_pending';
/**
 * Sign-ins one client address may have pending at once (each holds a pre-login row for 600 s);
 * past it /auth/oidc/login answers 429. Generous for many browsers behind one NAT, a bound for a
 * script filling the table.
 */
export const OIDC_PENDING_LOGINS_PER_IP = 100;

/**
 * Why a sign-in did not complete: the `reason` of `/login?error=oidc_failed&reason=<category>`.
 * Categories, never details: the audit record carries those.
 */
export const OIDC_FAILURE_REASONS = [
  'provider_unknown',
  'provider_unavailable',
  'prelogin_invalid',
  'idp_error',
  'token_invalid',
  'email_not_allowed',
  'no_role',
  'user_deactivated',
] as const;
export type OidcFailureReason = (typeof OIDC_FAILURE_REASONS)[number];

const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,64}$/;
const CLAIM_NAME = /^[A-Za-z0-9_.:/-]{1,128}$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

class OidcProviderFields {
  @IsOptional()
  @IsString({ message: 'client_secret must be a string' })
  @Length(1, 4096, { message: 'client_secret must be 1-4096 characters' })
  client_secret?: string;

  @IsOptional()
  @IsArray({ message: 'scopes must be an array of strings' })
  @ArrayMaxSize(32, { message: 'scopes must hold at most 32 values' })
  @Matches(SCOPE_TOKEN, {
    each: true,
    message: 'each scope must be 1-64 printable characters without spaces',
  })
  scopes?: string[];

  @IsOptional()
  @IsString({ message: 'group_claim must be a string' })
  @Matches(CLAIM_NAME, {
    message: 'group_claim must be 1-128 characters of A-Z, a-z, 0-9, "_", ".", ":", "/", "-"',
  })
  group_claim?: string;

  @IsOptional()
  @IsArray({ message: 'allowed_email_domains must be an array of domain names' })
  @ArrayMaxSize(100, { message: 'allowed_email_domains must hold at most 100 domains' })
  @Matches(DOMAIN, { each: true, message: 'each allowed email domain must be a lower-case domain name' })
  allowed_email_domains?: string[];

  @IsOptional()
  @IsIn(OIDC_SIGNING_ALGORITHMS, {
    message: `id_token_signing_alg must be one of ${OIDC_SIGNING_ALGORITHMS.join(', ')}`,
  })
  id_token_signing_alg?: OidcSigningAlgorithm;

  @IsOptional()
  @IsBoolean({ message: 'enabled must be a boolean' })
  enabled?: boolean;
}

/** POST /api/v1/auth/oidc/providers. */
export class CreateOidcProviderRequest extends OidcProviderFields {
  @IsString({ message: 'name must be a string' })
  @Length(1, 128, { message: 'name must be 1-128 characters' })
  name!: string;

  @IsString({ message: 'issuer must be a string' })
  @MaxLength(2048, { message: 'issuer must be at most 2048 characters' })
  issuer!: string;

  @IsString({ message: 'client_id must be a string' })
  @Length(1, 255, { message: 'client_id must be 1-255 characters' })
  client_id!: string;

  @IsString({ message: 'redirect_uri must be a string' })
  @MaxLength(2048, { message: 'redirect_uri must be at most 2048 characters' })
  redirect_uri!: string;
}

/** PUT /api/v1/auth/oidc/providers/{id}: the fields given replace the stored ones. */
export class UpdateOidcProviderRequest extends OidcProviderFields {
  @IsOptional()
  @IsString({ message: 'name must be a string' })
  @Length(1, 128, { message: 'name must be 1-128 characters' })
  name?: string;

  @IsOptional()
  @IsString({ message: 'issuer must be a string' })
  @MaxLength(2048, { message: 'issuer must be at most 2048 characters' })
  issuer?: string;

  @IsOptional()
  @IsString({ message: 'client_id must be a string' })
  @Length(1, 255, { message: 'client_id must be 1-255 characters' })
  client_id?: string;

  @IsOptional()
  @IsString({ message: 'redirect_uri must be a string' })
  @MaxLength(2048, { message: 'redirect_uri must be at most 2048 characters' })
  redirect_uri?: string;
}

export class UpdateOidcProviderCommand extends UpdateOidcProviderRequest {
  @IsUUID('all', { message: 'id must be a UUID' })
  id!: string;
}

export class OidcProviderIdRequest {
  @IsUUID('all', { message: 'id must be a UUID' })
  id!: string;
}

export class ListOidcProvidersRequest extends PageQuery {}

/** An OIDC provider as the API shows it: the client secret never, only whether one is stored. */
export interface OidcProviderDto {
  id: string;
  name: string;
  issuer: string;
  client_id: string;
  has_client_secret: boolean;
  redirect_uri: string;
  scopes: string[];
  group_claim: string;
  allowed_email_domains: string[];
  id_token_signing_alg: OidcSigningAlgorithm;
  enabled: boolean;
  /** Users who have signed in through it (a provider with users cannot be deleted). */
  user_count: number;
  created_at: string;
  updated_at: string;
}

export interface OidcProviderDeleted {
  id: string;
}

/** One key of a provider's key set, as the key-set health snapshot names it (public parts only). */
export interface OidcKeyInfo {
  kid: string | null;
  kty: string;
  alg: string | null;
  use: string | null;
}

/** GET /api/v1/auth/oidc/providers/{id}/jwks-status, POST .../refresh. */
export interface OidcJwksStatus {
  provider_id: string;
  status: 'ok' | 'error' | 'unknown';
  jwks_uri: string | null;
  fetched_at: string | null;
  key_count: number;
  keys: OidcKeyInfo[];
  /** Keys usable with the provider's id_token_signing_alg. */
  usable_key_count: number;
  error: string | null;
}

/** POST /api/v1/auth/oidc/test: discovery and the key set, without storing anything. */
export class TestOidcProviderRequest {
  @IsString({ message: 'issuer must be a string' })
  @MaxLength(2048, { message: 'issuer must be at most 2048 characters' })
  issuer!: string;

  @IsOptional()
  @IsString({ message: 'client_id must be a string' })
  @Length(1, 255, { message: 'client_id must be 1-255 characters' })
  client_id?: string;

  @IsOptional()
  @IsIn(OIDC_SIGNING_ALGORITHMS, {
    message: `id_token_signing_alg must be one of ${OIDC_SIGNING_ALGORITHMS.join(', ')}`,
  })
  id_token_signing_alg?: OidcSigningAlgorithm;
}

export interface OidcTestResult {
  ok: boolean;
  issuer: string;
  authorization_endpoint: string | null;
  token_endpoint: string | null;
  jwks_uri: string | null;
  end_session_endpoint: string | null;
  code_challenge_methods_supported: string[];
  id_token_signing_alg_values_supported: string[];
  backchannel_logout_supported: boolean;
  authorization_response_iss_parameter_supported: boolean;
  key_count: number;
  usable_key_count: number;
  /** What would keep sign-in from working (empty when `ok`). */
  problems: string[];
}

/** POST /api/v1/auth/oidc/group-mappings: members of `group` (the group claim's value) hold `role_id`. */
export class CreateOidcGroupMappingRequest {
  @IsUUID('all', { message: 'provider_id must be a UUID' })
  provider_id!: string;

  @IsString({ message: 'group must be a string' })
  @Length(1, 256, { message: 'group must be 1-256 characters' })
  group!: string;

  @IsString({ message: 'role_id must be a string' })
  @Matches(ROLE_ID_PATTERN, { message: 'role_id must look like r-<name>' })
  role_id!: string;
}

/** The caller's own rights travel with the command: a mapping may not hand out more (ADR 0014). */
export class CreateOidcGroupMappingCommand extends CreateOidcGroupMappingRequest {
  @IsBoolean()
  caller_admin!: boolean;

  @IsArray()
  @IsString({ each: true })
  caller_permissions!: string[];
}

export class ListOidcGroupMappingsRequest extends PageQuery {
  @IsOptional()
  @IsUUID('all', { message: 'provider_id must be a UUID' })
  provider_id?: string;
}

export class OidcGroupMappingIdRequest {
  @IsUUID('all', { message: 'id must be a UUID' })
  id!: string;
}

export interface OidcGroupMappingDto {
  id: string;
  provider_id: string;
  group: string;
  role_id: string;
  created_by: string;
  created_at: string;
}

export interface OidcGroupMappingDeleted {
  id: string;
}

class BrowserFacts {
  @IsIP()
  client_ip!: string;

  @IsOptional()
  @IsString()
  @MaxLength(2048)
  user_agent?: string;
}

/** GET /auth/oidc/login?provider=<id>: the gateway asks the auth service where to send the browser. */
export class BeginOidcLoginCommand extends BrowserFacts {
  @IsString()
  @MaxLength(128)
  provider!: string;
}

export type OidcLoginBegun =
  | {
      ok: true;
      /** The identity provider's authorization URL (302 Location). */
      redirect_url: string;
      /** The value of the single-use `service_oidc_pending` cookie (`pl-...`). */
      pending_cookie: string;
    }
  | { ok: false; reason: OidcFailureReason };

/** GET /auth/oidc/callback: the query string as received, and the pending cookie. */
export class CompleteOidcLoginCommand extends BrowserFacts {
  @IsOptional()
  @IsString()
  @MaxLength(512)
  pending_cookie?: string;

  @IsString()
  @MaxLength(16384)
  callback_query!: string;
}

export type OidcLoginCompleted =
  | {
      ok: true;
      actor_id: string;
      session_id: string;
      expires_at: string;
      csrf_token: string;
      session_cookie: string;
    }
  | { ok: false; reason: OidcFailureReason };

/** POST /auth/oidc/back-channel-logout (OpenID Connect Back-Channel Logout 1.0). */
export class OidcBackChannelLogoutCommand {
  @IsString()
  @MaxLength(16384)
  logout_token!: string;

  @IsIP()
  client_ip!: string;
}

export interface OidcBackChannelLogoutResult {
  ok: boolean;
  sessions_revoked: number;
}

/** GET /auth/oidc/login?provider=<id>. */
export class BeginOidcLoginQuery {
  @IsString({ message: 'provider must be a string' })
  @Length(1, 128, { message: 'provider must be 1-128 characters' })
  provider!: string;
}
