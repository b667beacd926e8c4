import { IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';
import { PageQuery } from '../pagination/page';

/** An ACME account's status (RFC 8555 7.1.2). */
export const ACME_ACCOUNT_STATUSES = ['valid', 'deactivated', 'revoked'] as const;
export type AcmeAccountStatus = (typeof ACME_ACCOUNT_STATUSES)[number];

/** The ids the ACME server gives accounts and EAB keys: base64url, as in its URLs. */
const ACME_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** An ACME account as operators see it (ADR 0060): never its key, only the key's thumbprint. */
export interface AcmeAccountDto {
  id: string;
  status: AcmeAccountStatus;
  contact: string[];
  terms_of_service_agreed: boolean;
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
}

export class AcmeEabKeyIdRequest {
  @IsString({ message: 'id must be an EAB key id' })
  @Matches(ACME_ID, { message: 'id must be an EAB key id' })
  id!: string;
}
