import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';

/** How an EST client authenticates on a profile: HTTP Basic, or a client certificate (RFC 7030 3.3). */
export const EST_AUTH_METHODS = ['basic', 'mtls'] as const;
export type EstAuthMethod = (typeof EST_AUTH_METHODS)[number];

/**
 * The typed EST outcomes (spec 6.1) each profile counts (spec 6.4); `est_bulk_revoke` and
 * `est_trust_anchor_reloaded` are not per profile. `est_enrollment_pending` (a simpleenroll or
 * simplereenroll held for approval, answered 202; ADR 0058 amendment) is not in spec 6.1's list.
 */
export const EST_PROFILE_OUTCOMES = [
  'est_simple_enroll_success',
  'est_simple_enroll_failed',
  'est_simple_reenroll_success',
  'est_simple_reenroll_failed',
  'est_server_keygen_success',
  'est_server_keygen_failed',
  'est_auth_failed_basic',
  'est_auth_failed_mtls',
  'est_auth_failed_channel_binding',
  'est_rate_limited',
  'est_csr_policy_violation',
  'est_enrollment_pending',
] as const;
export type EstProfileOutcome = (typeof EST_PROFILE_OUTCOMES)[number];

/**
 * The legacy bare enrollment code (spec 6.1) written alongside a typed enrollment outcome: the
 * operation's code without `_success`/`_failed` (ADR 0061). Other outcomes have none.
 */
export function legacyEstCode(outcome: EstProfileOutcome): string | null {
  const bare = /^(est_simple_enroll|est_simple_reenroll|est_server_keygen)_(?:success|failed)$/.exec(outcome);
  return bare ? bare[1] : null;
}

/** RFC 7030 3.2.2: the operation path segments (`fullcmc` too, though not served). */
export const EST_OPERATION_SEGMENTS = [
  'cacerts',
  'simpleenroll',
  'simplereenroll',
  'fullcmc',
  'serverkeygen',
  'csrattrs',
] as const;

/**
 * A path id: the `<path_id>` segment of `/.well-known/est/<path_id>/` (RFC 7030 3.2.2 label, which
 * "MUST NOT be the same as any defined operation path segment").
 */
export const EST_PATH_ID_PATTERN = new RegExp(
  `^(?!(?:${EST_OPERATION_SEGMENTS.join('|')})$)[a-z0-9][a-z0-9_-]{0,62}$`,
);
/**
 * What a mutual-TLS request (EST, SCEP `/scep-mtls`) gets when its client certificate's
 * revocation status cannot be learned (responder down, no CRL or OCSP address): `soft-fail`
 * accepts it, `hard-fail` refuses.
 */
export const CLIENT_REVOCATION_UNKNOWN = ['soft-fail', 'hard-fail'] as const;
export type ClientRevocationUnknown = (typeof CLIENT_REVOCATION_UNKNOWN)[number];
export const EST_RATE_LIMIT = { min: 1, max: 100_000, default: 60 } as const;

/** An EST profile as the API returns it: the password and its hash are never shown. */
export interface EstProfileDto {
  id: string;
  path_id: string;
  certificate_profile_id: string | null;
  issuer_id: string | null;
  auth_methods: EstAuthMethod[];
  basic_username: string | null;
  /** Whether a Basic password is set (the password itself is write-only). */
  basic_password_set: boolean;
  /** A trust bundle file on the protocol-frontends host, read again by reload-trust. */
  trust_bundle_path: string | null;
  /** The trust anchors in use (PEM): the inline bundle, or the file as last read successfully. */
  trust_bundle_pem: string | null;
  trust_anchor_count: number;
  trust_loaded_at: string | null;
  serverkeygen_enabled: boolean;
  /** serverkeygen may answer the key unencrypted (`application/pkcs8`, TLS only) when the CSR asks for no encryption. */
  serverkeygen_unencrypted_allowed: boolean;
  channel_binding_required: boolean;
  client_revocation_unknown: ClientRevocationUnknown;
  rate_limit_per_minute: number;
  owner: string | null;
  team: string | null;
  /** Per-profile counters of every typed outcome (spec 6.4). */
  counters: Record<EstProfileOutcome, number>;
  created_at: string;
  updated_at: string;
}

/** GET /api/v1/admin/est/profiles: every profile with its counters snapshot. */
export interface EstProfileList {
  data: EstProfileDto[];
  total: number;
}

/** POST /api/v1/admin/est/reload-trust. */
export interface EstTrustReloadResult {
  /** Profiles whose trust bundle was parsed and is now in use. */
  reloaded: string[];
  /** Profiles whose bundle did not parse: their previous trust stays in use. */
  kept_previous: { path_id: string; reason: string }[];
}

class EstProfileFields {
  @IsOptional()
  @IsString({ message: 'certificate_profile_id must be a string' })
  @Length(1, 128, { message: 'certificate_profile_id must be 1 to 128 characters' })
  certificate_profile_id?: string | null;

  @IsOptional()
  @IsString({ message: 'issuer_id must be a string' })
  @Length(1, 128, { message: 'issuer_id must be 1 to 128 characters' })
  issuer_id?: string | null;

  @IsOptional()
  @IsString({ message: 'basic_username must be a string' })
  @Matches(/^[^:\s]{1,128}$/, {
    message: 'basic_username must be 1 to 128 characters without colon or spaces',
  })
  basic_username?: string | null;

  @ValidateIf((_, value) => value !== undefined)
  @IsString({ message: 'basic_password must be a string' })
  @Length(12, 256, { message: 'basic_password must be 12 to 256 characters' })
  basic_password?: string;

  @IsOptional()
  @IsString({ message: 'trust_bundle_pem must be a string' })
  @MaxLength(1_000_000, { message: 'trust_bundle_pem must be at most 1000000 characters' })
  trust_bundle_pem?: string | null;

  @IsOptional()
  @IsString({ message: 'trust_bundle_path must be a string' })
  @Matches(/^\/[^\0]{1,4095}$/, { message: 'trust_bundle_path must be an absolute path' })
  trust_bundle_path?: string | null;

  @ValidateIf((_, value) => value !== undefined)
  @IsBoolean({ message: 'serverkeygen_enabled must be a boolean' })
  serverkeygen_enabled?: boolean;

  @ValidateIf((_, value) => value !== undefined)
  @IsBoolean({ message: 'serverkeygen_unencrypted_allowed must be a boolean' })
  serverkeygen_unencrypted_allowed?: boolean;

  @ValidateIf((_, value) => value !== undefined)
  @IsBoolean({ message: 'channel_binding_required must be a boolean' })
  channel_binding_required?: boolean;

  @ValidateIf((_, value) => value !== undefined)
  @IsIn(CLIENT_REVOCATION_UNKNOWN as unknown as string[], {
    message: `client_revocation_unknown must be one of ${CLIENT_REVOCATION_UNKNOWN.join(', ')}`,
  })
  client_revocation_unknown?: ClientRevocationUnknown;

  @ValidateIf((_, value) => value !== undefined)
  @IsInt({ message: 'rate_limit_per_minute must be an integer' })
  @Min(EST_RATE_LIMIT.min, {
    message: `rate_limit_per_minute must be between ${EST_RATE_LIMIT.min} and ${EST_RATE_LIMIT.max}`,
  })
  @Max(EST_RATE_LIMIT.max, {
    message: `rate_limit_per_minute must be between ${EST_RATE_LIMIT.min} and ${EST_RATE_LIMIT.max}`,
  })
  rate_limit_per_minute?: number;

  @IsOptional()
  @IsString({ message: 'owner must be a string' })
  @Length(1, 128, { message: 'owner must be 1 to 128 characters' })
  owner?: string | null;

  @IsOptional()
  @IsString({ message: 'team must be a string' })
  @Length(1, 128, { message: 'team must be 1 to 128 characters' })
  team?: string | null;
}

const AUTH_MESSAGE = `auth_methods must be a non-empty list of ${EST_AUTH_METHODS.join(', ')}`;

/** POST /api/v1/admin/est/profiles. */
export class CreateEstProfileRequest extends EstProfileFields {
  @IsString({ message: 'path_id must be a string' })
  @Matches(EST_PATH_ID_PATTERN, {
    message: `path_id must be 1 to 63 lowercase letters, digits, - or _, starting with a letter or digit, and not an operation name (${EST_OPERATION_SEGMENTS.join(', ')})`,
  })
  path_id!: string;

  @IsArray({ message: AUTH_MESSAGE })
  @ArrayMinSize(1, { message: AUTH_MESSAGE })
  @ArrayMaxSize(EST_AUTH_METHODS.length, { message: AUTH_MESSAGE })
  @ArrayUnique({ message: 'auth_methods must not repeat a method' })
  @IsIn(EST_AUTH_METHODS as unknown as string[], { each: true, message: AUTH_MESSAGE })
  auth_methods!: EstAuthMethod[];
}

/** POST /api/v1/admin/est/profiles/{id}: the fields given replace the stored ones; path_id is fixed. */
export class UpdateEstProfileRequest extends EstProfileFields {
  @ValidateIf((_, value) => value !== undefined)
  @IsArray({ message: AUTH_MESSAGE })
  @ArrayMinSize(1, { message: AUTH_MESSAGE })
  @ArrayMaxSize(EST_AUTH_METHODS.length, { message: AUTH_MESSAGE })
  @ArrayUnique({ message: 'auth_methods must not repeat a method' })
  @IsIn(EST_AUTH_METHODS as unknown as string[], { each: true, message: AUTH_MESSAGE })
  auth_methods?: EstAuthMethod[];
}

export class EstProfileIdRequest {
  @IsUUID('4', { message: 'id must be an EST profile id (UUID)' })
  id!: string;
}

/** The bus request of an update: the id from the path, the changes from the body. */
export class UpdateEstProfileCommand extends UpdateEstProfileRequest {
  @IsUUID('4', { message: 'id must be an EST profile id (UUID)' })
  id!: string;
}

/** The bus request of the list (empty: every profile, with its counters). */
export class ListEstProfilesRequest {}

/** The bus request of reload-trust (empty: every profile is reloaded). */
export class ReloadEstTrustRequest {}
