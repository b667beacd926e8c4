import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  Length,
  Matches,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { Type } from 'class-transformer';
import { PageQuery } from '../pagination/page';
import { GRANT_SCOPE_PATTERN } from './grant-scope';
import { PERMISSIONS } from './permissions';

/** Actor names: lower case, digits, `.`, `_`, `-`; 2..64 characters, starting alphanumeric. */
export const ACTOR_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{1,63}$/;

/** Who a request acts as, resolved by the auth service (or the gateway for the env key). */
export interface Principal {
  actor_id: string;
  actor_type: 'api-key' | 'service-secret' | 'demo' | 'session';
  /** Id of the stored API key, when the caller used one. */
  key_id?: string;
  /** Id of the session, when the caller came with a session cookie. */
  session_id?: string;
  admin: boolean;
  role_ids: string[];
  /** Effective global permissions: the union of the actor's global grants (all of them for admins). */
  permissions: string[];
  /** Permissions held only within a scope (`team:payments` -> [...]), from scoped grants. */
  scoped_permissions?: Record<string, string[]>;
  /**
   * When the credential stops being valid (ISO 8601): a stored API key's `expires_at`. Absent when
   * it does not expire on its own. Whoever caches the principal must not use it from this instant.
   */
  expires_at?: string;
}

/** GET /api/v1/auth/me. */
export interface AuthMe {
  actor_id: string;
  actor_type: Principal['actor_type'];
  admin: boolean;
  role_ids: string[];
  effective_permissions: string[];
  /** Permissions that apply only within a scope; a global permission is never repeated here. */
  scoped_permissions: Record<string, string[]>;
}

export class AuthCheckQuery {
  @IsOptional()
  @IsIn(PERMISSIONS as unknown as string[], { message: 'permission must name a catalogued permission' })
  permission?: string;

  @IsOptional()
  @IsString()
  @Matches(GRANT_SCOPE_PATTERN, { message: 'scope must be "*" or <kind>:<id>' })
  scope?: string;
}

/** GET /api/v1/auth/check: `{status}`, plus the answer for `?permission=[&scope=]` when asked. */
export interface AuthCheck {
  status: 'ok';
  permission?: string;
  scope?: string;
  allowed?: boolean;
  /** Which grant allows it: `global` beats `scope`. */
  via?: 'global' | 'scope' | null;
}

/** GET /api/v1/auth/info (no credentials needed): how callers authenticate here. */
export interface AuthInfo {
  auth_type: string;
  required: boolean;
}

/**
 * `auth.v1.authenticate-api-key`: exactly one of the key's SHA-256 (what the gateway sends, so no
 * usable key crosses the bus; ADR 0013 amendment) and the key itself (gateways before that).
 */
export class AuthenticateApiKeyRequest {
  @ValidateIf(
    (request: AuthenticateApiKeyRequest) => request.key_hash === undefined || request.key !== undefined,
  )
  @IsString()
  @IsNotEmpty()
  key?: string;

  /** The SHA-256 of the key, lowercase hex: what the auth service stores and looks up. */
  @ValidateIf(
    (request: AuthenticateApiKeyRequest) => request.key === undefined || request.key_hash !== undefined,
  )
  @Matches(/^[0-9a-f]{64}$/, { message: 'key_hash must be a SHA-256 in lowercase hex' })
  key_hash?: string;
}

export interface AuthenticateApiKeyResponse {
  principal: Principal | null;
}

export class BootstrapStatusRequest {}

export interface BootstrapStatus {
  available: boolean;
}

/** POST /api/v1/auth/bootstrap (spec 5.6). */
export class BootstrapRequest {
  @IsString({ message: 'token must be a string' })
  @IsNotEmpty({ message: 'token is required' })
  token!: string;

  @IsString({ message: 'actor_id must be a string' })
  @Matches(ACTOR_ID_PATTERN, {
    message: 'actor_id must be 2-64 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit',
  })
  actor_id!: string;
}

export interface BootstrapResponse {
  actor_id: string;
  key_id: string;
  /** The minted API key: shown this once, stored only as its SHA-256 hash. */
  key: string;
  role_ids: string[];
}

/** A stored API key as the API shows it: never the key, never its hash. */
export interface ApiKeyDto {
  id: string;
  name: string;
  actor_id: string;
  tenant: string;
  admin: boolean;
  created_by: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

export interface ApiKeyWithSecret extends ApiKeyDto {
  /** Shown once, at creation or rotation. */
  key: string;
}

export class CreateApiKeyRequest {
  @IsString()
  @Length(1, 128, { message: 'name must be 1 to 128 characters' })
  name!: string;

  @IsOptional()
  @IsString()
  @Matches(ACTOR_ID_PATTERN, { message: 'actor_id must be 2-64 characters of a-z, 0-9, ".", "_" or "-"' })
  actor_id?: string;

  @IsOptional()
  @IsBoolean()
  admin?: boolean;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(16)
  @Matches(/^r-[a-z0-9-]{1,60}$/, { each: true, message: 'each role id must look like r-<name>' })
  role_ids?: string[];

  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'expires_at must be an ISO 8601 timestamp' })
  expires_at?: string;
}

/**
 * Who manages a key through the API, as the gateway authenticated them: an admin, or the
 * permissions they hold (global). Absent on the bus requests of other services (agent
 * registration), which the auth service trusts.
 */
export class KeyManager {
  @IsBoolean()
  admin!: boolean;

  @IsArray()
  @IsString({ each: true })
  permissions!: string[];
}

export class CreateApiKeyCommand extends CreateApiKeyRequest {
  @IsString()
  @IsNotEmpty()
  created_by!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => KeyManager)
  manager?: KeyManager;
}

export class ApiKeyIdRequest {
  @IsString()
  @IsNotEmpty()
  id!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => KeyManager)
  manager?: KeyManager;
}

export class ListApiKeysRequest extends PageQuery {}

export interface ApiKeyRevoked {
  id: string;
  actor_id: string;
}

export interface BootstrapConsumed {
  actor_id: string;
  key_id: string;
}

export class ListActorsRequest extends PageQuery {}

/** GET /api/v1/auth/keys: one row per actor (spec 4.10). */
export interface ActorRoles {
  actor_id: string;
  actor_type: 'api-key' | 'user';
  /** Every role the actor holds, globally or in some scope. */
  role_ids: string[];
  grants: { role_id: string; scope: string }[];
}
