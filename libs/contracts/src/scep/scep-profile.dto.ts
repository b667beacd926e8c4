import {
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
} from 'class-validator';
import { CLIENT_REVOCATION_UNKNOWN, ClientRevocationUnknown } from '../est/est-profile.dto';

/** The per-status counters of MDM-signed challenge validation (spec 4.9, issue 21). */
export const SCEP_MDM_STATUSES = [
  'success',
  'signature_invalid',
  'expired',
  'not_yet_valid',
  'wrong_audience',
  'replay',
  'rate_limited',
  'claim_mismatch',
  'device_state_failed',
  'malformed',
  'unknown_version',
] as const;
export type ScepMdmStatus = (typeof SCEP_MDM_STATUSES)[number];

/**
 * The typed SCEP outcomes each profile counts (spec 6.1 and 6.4): the four audit codes of a
 * certificate answered, and the other ends of a PKIOperation (PENDING, GetCertInitial, GetCert, GetCRL,
 * FAILURE, refused authorisation, MDM rate limit).
 */
export const SCEP_PROFILE_OUTCOMES = [
  'scep_pkcsreq',
  'scep_renewalreq',
  'scep_pkcsreq_mdm',
  'scep_renewalreq_mdm',
  'scep_pending',
  'scep_getcertinitial',
  'scep_getcert',
  'scep_getcrl',
  'scep_failure',
  'scep_auth_failed',
  'scep_rate_limited',
] as const;
export type ScepProfileOutcome = (typeof SCEP_PROFILE_OUTCOMES)[number];

/** The path id of the profile answered on `/scep` and `/scep/` (no segment). */
export const SCEP_DEFAULT_PATH_ID = 'default';
export const SCEP_PATH_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const SCEP_RATE_LIMIT = { min: 1, max: 100_000, default: 600 } as const;

/** The MDM block of a profile (present only when MDM validation is enabled). */
export interface ScepProfileMdm {
  audience: string;
  trust_path: string | null;
  trust_anchor_count: number;
  trust_loaded_at: string | null;
  /** The earliest notAfter among the MDM trust anchors. */
  trust_expires_at: string | null;
  device_state_url: string | null;
}

/** A SCEP profile as the API returns it (spec 4.9): never the challenge password, its hash or the RA key. */
export interface ScepProfileDto {
  id: string;
  path_id: string;
  /** The SCEP URL path of the profile. */
  url_path: string;
  certificate_profile_id: string | null;
  issuer_id: string | null;
  ra_certificate: {
    subject: string;
    not_before: string;
    not_after: string;
    serial_hex: string;
    fingerprint_sha256: string;
  };
  ra_validity_days: number;
  challenge_password_set: boolean;
  legacy_algorithms: boolean;
  approval_required: boolean;
  mtls_enabled: boolean;
  trust_bundle_path: string | null;
  trust_anchor_count: number;
  client_revocation_unknown: ClientRevocationUnknown;
  rate_limit_per_minute: number;
  owner: string | null;
  team: string | null;
  counters: Record<ScepProfileOutcome, number>;
  mdm?: ScepProfileMdm;
  created_at: string;
  updated_at: string;
}

/** GET /api/v1/admin/scep/profiles. */
export interface ScepProfileList {
  profiles: ScepProfileDto[];
  profile_count: number;
  generated_at: string;
}

export interface ScepMdmProfileStats {
  path_id: string;
  mdm_enabled: boolean;
  counters: Record<ScepMdmStatus, number>;
  trust_anchor_count: number;
  trust_loaded_at: string | null;
  trust_expires_at: string | null;
  trust_anchors: { subject: string; not_after: string; expired: boolean }[];
}

/** GET /api/v1/admin/scep/mdm/stats. */
export interface ScepMdmStats {
  profiles: ScepMdmProfileStats[];
  profile_count: number;
  generated_at: string;
}

/** POST /api/v1/admin/scep/mdm/reload-trust (200). */
export interface ScepMdmTrustReloadResult {
  path_id: string;
  trust_anchor_count: number;
  trust_loaded_at: string;
  trust_expires_at: string | null;
}

class ScepProfileFields {
  @IsOptional()
  @IsString({ message: 'certificate_profile_id must be a string' })
  @Length(1, 128, { message: 'certificate_profile_id must be 1 to 128 characters' })
  certificate_profile_id?: string | null;

  @IsOptional()
  @IsString({ message: 'issuer_id must be a string' })
  @Length(1, 128, { message: 'issuer_id must be 1 to 128 characters' })
  issuer_id?: string | null;

  @IsOptional()
  @IsInt({ message: 'ra_validity_days must be an integer' })
  @Min(1, { message: 'ra_validity_days must be between 1 and 3650' })
  @Max(3650, { message: 'ra_validity_days must be between 1 and 3650' })
  ra_validity_days?: number;

  /** Write-only: stored as a salted HMAC-SHA256, compared in constant time. */
  @IsOptional()
  @IsString({ message: 'challenge_password must be a string' })
  @Length(16, 255, { message: 'challenge_password must be 16 to 255 characters' })
  challenge_password?: string | null;

  @IsOptional()
  @IsBoolean({ message: 'legacy_algorithms must be a boolean' })
  legacy_algorithms?: boolean;

  @IsOptional()
  @IsBoolean({ message: 'approval_required must be a boolean' })
  approval_required?: boolean;

  @IsOptional()
  @IsBoolean({ message: 'mtls_enabled must be a boolean' })
  mtls_enabled?: boolean;

  @IsOptional()
  @IsString({ message: 'trust_bundle_path must be a string' })
  @Matches(/^\/[^\0]{1,4095}$/, { message: 'trust_bundle_path must be an absolute path' })
  trust_bundle_path?: string | null;

  /** `/scep-mtls`: a client certificate whose revocation status is unknown is accepted (soft-fail) or refused. */
  @IsOptional()
  @IsIn(CLIENT_REVOCATION_UNKNOWN as unknown as string[], {
    message: `client_revocation_unknown must be one of ${CLIENT_REVOCATION_UNKNOWN.join(', ')}`,
  })
  client_revocation_unknown?: ClientRevocationUnknown;

  @IsOptional()
  @IsBoolean({ message: 'mdm_enabled must be a boolean' })
  mdm_enabled?: boolean;

  @IsOptional()
  @IsString({ message: 'mdm_audience must be a string' })
  @Length(1, 512, { message: 'mdm_audience must be 1 to 512 characters' })
  mdm_audience?: string | null;

  @IsOptional()
  @IsString({ message: 'mdm_trust_path must be a string' })
  @Matches(/^\/[^\0]{1,4095}$/, { message: 'mdm_trust_path must be an absolute path' })
  mdm_trust_path?: string | null;

  @IsOptional()
  @IsString({ message: 'mdm_trust_pem must be a string' })
  @MaxLength(1_000_000, { message: 'mdm_trust_pem must be at most 1000000 characters' })
  mdm_trust_pem?: string | null;

  @IsOptional()
  @IsString({ message: 'device_state_url must be a string' })
  @Matches(/^https:\/\/[^\s]{1,2000}$/, { message: 'device_state_url must be an https URL' })
  device_state_url?: string | null;

  @IsOptional()
  @IsInt({ message: 'rate_limit_per_minute must be an integer' })
  @Min(SCEP_RATE_LIMIT.min, { message: 'rate_limit_per_minute must be between 1 and 100000' })
  @Max(SCEP_RATE_LIMIT.max, { message: 'rate_limit_per_minute must be between 1 and 100000' })
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

/** POST /api/v1/admin/scep/profiles. */
export class CreateScepProfileRequest extends ScepProfileFields {
  @IsString({ message: 'path_id must be a string' })
  @Matches(SCEP_PATH_ID_PATTERN, {
    message: 'path_id must be 1 to 63 lowercase letters, digits, - or _, starting with a letter or digit',
  })
  path_id!: string;
}

/** POST /api/v1/admin/scep/profiles/{id}: the fields given replace the stored ones; path_id is fixed. */
export class UpdateScepProfileRequest extends ScepProfileFields {}

export class ScepProfileIdRequest {
  @IsUUID('4', { message: 'id must be a SCEP profile id (UUID)' })
  id!: string;
}

export class UpdateScepProfileCommand extends UpdateScepProfileRequest {
  @IsUUID('4', { message: 'id must be a SCEP profile id (UUID)' })
  id!: string;
}

export class ListScepProfilesRequest {}
export class ScepMdmStatsRequest {}

/** POST /api/v1/admin/scep/mdm/reload-trust: an empty path id is the root profile (`default`). */
export class ReloadScepMdmTrustRequest {
  @IsString({ message: 'path_id must be a string' })
  @MaxLength(63, { message: 'path_id must be at most 63 characters' })
  path_id!: string;
}
