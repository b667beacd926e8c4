import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
} from 'class-validator';
import { PageQuery } from '../pagination/page';

/** An ACME account's status (RFC 8555 7.1.2). */
export const ACME_ACCOUNT_STATUSES = ['valid', 'deactivated', 'revoked'] as const;
export type AcmeAccountStatus = (typeof ACME_ACCOUNT_STATUSES)[number];

/** The ids the ACME server gives accounts and EAB keys: base64url, as in its URLs. */
const ACME_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** An ACME profile id: `/acme/profile/{id}/` and the `profile` of a newOrder. */
export const ACME_PROFILE_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** An ACME account as operators see it (ADR 0060): never its key, only the key's thumbprint. */
export interface AcmeAccountDto {
  id: string;
  status: AcmeAccountStatus;
  contact: string[];
  terms_of_service_agreed: boolean;
  /**
   * The URL of the terms the account agreed to (RFC 8555 7.3.3); null when it agreed to none, or
   * before the URL agreed to was recorded.
   */
  terms_of_service_url: string | null;
  /** RFC 7638 SHA-256 thumbprint of the account key. */
  jwk_thumbprint: string;
  /** The external account binding key the account was created with, if any. */
  eab_key_id: string | null;
  /** Inherited from the EAB key (issue 19 point 6). */
  owner: string | null;
  team: string | null;
  order_count: number;
  created_at: string;
  updated_at: string;
}

/** GET /api/v1/admin/acme/accounts. */
export class ListAcmeAccountsRequest extends PageQuery {
  @IsOptional()
  @IsIn(ACME_ACCOUNT_STATUSES as unknown as string[], {
    message: `status must be one of ${ACME_ACCOUNT_STATUSES.join(', ')}`,
  })
  status?: AcmeAccountStatus;
}

export class AcmeAccountIdRequest {
  @IsString({ message: 'id must be an ACME account id' })
  @Matches(ACME_ID, { message: 'id must be an ACME account id' })
  id!: string;
}

/** Whether an EAB key can still bind an account. */
export const ACME_EAB_KEY_STATUSES = ['unused', 'bound', 'revoked'] as const;
export type AcmeEabKeyStatus = (typeof ACME_EAB_KEY_STATUSES)[number];

/** An external account binding key (RFC 8555 7.3.4) as listed: never its HMAC key. */
export interface AcmeEabKeyDto {
  /** The key identifier a client passes as its EAB kid (certbot --eab-kid, lego --kid). */
  id: string;
  status: AcmeEabKeyStatus;
  description: string | null;
  /** The owner and team an account bound with this key inherits. */
  owner: string | null;
  team: string | null;
  /** The ACME profile the key (and the account it binds) is limited to; null: any. */
  profile_id: string | null;
  created_by: string;
  created_at: string;
  bound_account_id: string | null;
  bound_at: string | null;
  revoked_at: string | null;
}

/**
 * POST /api/v1/admin/acme/eab-keys answers the key once with its HMAC key (base64url, what
 * certbot --eab-hmac-key and lego --hmac take); it is sealed at rest and never shown again.
 */
export interface AcmeEabKeyCreated extends AcmeEabKeyDto {
  hmac_key: string;
}

export class CreateAcmeEabKeyRequest {
  @IsOptional()
  @IsString({ message: 'description must be a string' })
  @Length(1, 200, { message: 'description must be 1 to 200 characters' })
  description?: string;

  @IsOptional()
  @IsString({ message: 'owner must be a string' })
  @Length(1, 128, { message: 'owner must be 1 to 128 characters' })
  owner?: string;

  @IsOptional()
  @IsString({ message: 'team must be a string' })
  @Length(1, 128, { message: 'team must be 1 to 128 characters' })
  team?: string;

  /** The ACME profile the key is for: it binds an account only there, and that account orders only there. */
  @IsOptional()
  @IsString({ message: 'profile_id must be an ACME profile id' })
  @Matches(ACME_PROFILE_ID, { message: 'profile_id must be an ACME profile id' })
  profile_id?: string;
}

export class AcmeEabKeyIdRequest {
  @IsString({ message: 'id must be an EAB key id' })
  @Matches(ACME_ID, { message: 'id must be an EAB key id' })
  id!: string;
}

// ---- ACME profiles (issue 19 point 7) ----

export const ACME_PROFILE_LIMITS = {
  validityDays: 3650,
  newOrdersPerHour: 1_000_000,
  domains: 500,
  caaIdentities: 10,
} as const;

/**
 * An ACME profile (ADR 0060). `default` (the `/acme/...` shorthands) is built from the
 * SERVICE_ACME_* settings (`stored: false`) until a profile with that id is stored.
 */
export interface AcmeProfileDto {
  id: string;
  description: string;
  /** The issuer that signs (an id of /api/v1/issuers); null: issuance's default issuer. */
  issuer_id: string | null;
  /**
   * The certificate profile (an id of /api/v1/profiles) whose key, EKU and required-attribute
   * rules a finalize's CSR must meet (else badCSR) and whose validity_days caps validity_days;
   * null: none.
   */
  certificate_profile_id: string | null;
  /** The lifetime asked of the issuer (capped by the certificate profile's); null: the issuer's default. */
  validity_days: number | null;
  allow_ip: boolean;
  /** Orders may name only these domains and names under them; empty: any. */
  allowed_domains: string[];
  /** Orders may not name these domains or names under them (wins over allowed_domains). */
  denied_domains: string[];
  external_account_required: boolean;
  new_orders_per_hour: number;
  /** Who owns what the profile issues (recorded with each issuance). */
  owner: string | null;
  team: string | null;
  /**
   * The issuer domain names naming this CA in CAA and dns-persist-01 records for this profile
   * (its directory's meta.caaIdentities); null: SERVICE_ACME_CAA_IDENTITIES; empty: no CAA check.
   */
  caa_identities: string[] | null;
  /** Whether dns-persist-01 (draft-ietf-acme-dns-persist) is offered (needs CAA identities). */
  dns_persist_01: boolean;
  /**
   * Whether a newOrder may ask for notBefore/notAfter (RFC 8555 7.4): a window starting at most
   * 30 days ahead, never backdated, no longer than the profile's validity.
   */
  allow_requested_validity: boolean;
  /** The directory URL of the profile, relative to the origin. */
  directory_path: string;
  stored: boolean;
  created_at: string | null;
  updated_at: string | null;
}

class AcmeProfileFields {
  @IsOptional()
  @IsString({ message: 'description must be a string' })
  @Length(0, 200, { message: 'description must be at most 200 characters' })
  description?: string;

  @IsOptional()
  @IsString({ message: 'issuer_id must be a string' })
  @Length(1, 128, { message: 'issuer_id must be 1 to 128 characters' })
  issuer_id?: string | null;

  @IsOptional()
  @IsString({ message: 'certificate_profile_id must be a string' })
  @Length(1, 128, { message: 'certificate_profile_id must be 1 to 128 characters' })
  certificate_profile_id?: string | null;

  @IsOptional()
  @IsInt({ message: 'validity_days must be an integer' })
  @Min(1, { message: `validity_days must be between 1 and ${ACME_PROFILE_LIMITS.validityDays}` })
  @Max(ACME_PROFILE_LIMITS.validityDays, {
    message: `validity_days must be between 1 and ${ACME_PROFILE_LIMITS.validityDays}`,
  })
  validity_days?: number | null;

  @IsOptional()
  @IsBoolean({ message: 'allow_ip must be a boolean' })
  allow_ip?: boolean;

  @IsOptional()
  @IsArray({ message: 'allowed_domains must be a list of domain names' })
  @ArrayMaxSize(ACME_PROFILE_LIMITS.domains, { message: 'allowed_domains has too many entries' })
  @IsString({ each: true, message: 'allowed_domains must be a list of domain names' })
  allowed_domains?: string[];

  @IsOptional()
  @IsArray({ message: 'denied_domains must be a list of domain names' })
  @ArrayMaxSize(ACME_PROFILE_LIMITS.domains, { message: 'denied_domains has too many entries' })
  @IsString({ each: true, message: 'denied_domains must be a list of domain names' })
  denied_domains?: string[];

  @IsOptional()
  @IsBoolean({ message: 'external_account_required must be a boolean' })
  external_account_required?: boolean;

  @IsOptional()
  @IsInt({ message: 'new_orders_per_hour must be an integer' })
  @Min(1, { message: `new_orders_per_hour must be between 1 and ${ACME_PROFILE_LIMITS.newOrdersPerHour}` })
  @Max(ACME_PROFILE_LIMITS.newOrdersPerHour, {
    message: `new_orders_per_hour must be between 1 and ${ACME_PROFILE_LIMITS.newOrdersPerHour}`,
  })
  new_orders_per_hour?: number;

  @IsOptional()
  @IsString({ message: 'owner must be a string' })
  @Length(1, 128, { message: 'owner must be 1 to 128 characters' })
  owner?: string | null;

  @IsOptional()
  @IsString({ message: 'team must be a string' })
  @Length(1, 128, { message: 'team must be 1 to 128 characters' })
  team?: string | null;

  @IsOptional()
  @IsArray({ message: 'caa_identities must be a list of domain names' })
  @ArrayMaxSize(ACME_PROFILE_LIMITS.caaIdentities, { message: 'caa_identities has too many entries' })
  @IsString({ each: true, message: 'caa_identities must be a list of domain names' })
  caa_identities?: string[] | null;

  @IsOptional()
  @IsBoolean({ message: 'dns_persist_01 must be a boolean' })
  dns_persist_01?: boolean;

  @IsOptional()
  @IsBoolean({ message: 'allow_requested_validity must be a boolean' })
  allow_requested_validity?: boolean;
}

/** POST /api/v1/admin/acme/profiles. */
export class CreateAcmeProfileRequest extends AcmeProfileFields {
  @IsString({ message: 'id must be a string' })
  @Matches(ACME_PROFILE_ID, {
    message: 'id must be 1 to 63 lowercase letters, digits, - or _, starting with a letter or digit',
  })
  id!: string;
}

/** POST /api/v1/admin/acme/profiles/{id}: the fields given replace the stored ones. */
export class UpdateAcmeProfileRequest extends AcmeProfileFields {}

export class AcmeProfileIdRequest {
  @IsString({ message: 'id must be an ACME profile id' })
  @Matches(ACME_PROFILE_ID, { message: 'id must be an ACME profile id' })
  id!: string;
}

/** The bus request of an update: the id from the path, the changes from the body. */
export class UpdateAcmeProfileCommand extends UpdateAcmeProfileRequest {
  @IsString({ message: 'id must be an ACME profile id' })
  @Matches(ACME_PROFILE_ID, { message: 'id must be an ACME profile id' })
  id!: string;
}

/** The bus request of the list (empty: every profile, `default` included). */
export class ListAcmeProfilesRequest {}

/** GET /api/v1/admin/acme/profiles. */
export interface AcmeProfileList {
  data: AcmeProfileDto[];
  total: number;
}
