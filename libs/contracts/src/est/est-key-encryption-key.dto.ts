import { IsIn, IsOptional, IsString, IsUUID, Length, Matches } from 'class-validator';
import { PageQuery } from '../pagination/page';

/**
 * The id of an EST key-encryption key (RFC 7030 4.4.1.1): 16 random bytes in lowercase hex. A
 * client puts these bytes in its CSR's DecryptKeyIdentifier; they are the KEKRecipientInfo kekid
 * (RFC 5652 6.2.3) of the answer.
 */
export const EST_KEK_ID_PATTERN = /^[0-9a-f]{32}$/;

export const EST_KEK_STATUSES = ['active', 'revoked'] as const;
export type EstKeyEncryptionKeyStatus = (typeof EST_KEK_STATUSES)[number];

/** A key-encryption key of an EST profile as listed: never the key. */
export interface EstKeyEncryptionKeyDto {
  id: string;
  profile_id: string;
  status: EstKeyEncryptionKeyStatus;
  description: string | null;
  created_by: string;
  created_at: string;
  revoked_at: string | null;
}

/**
 * POST /api/v1/admin/est/key-encryption-keys answers the key once: `secret_key` is the AES-256
 * key in hex (what `openssl cms -decrypt -secretkey` takes). It is sealed at rest and never
 * shown again.
 */
export interface EstKeyEncryptionKeyCreated extends EstKeyEncryptionKeyDto {
  secret_key: string;
}

export class CreateEstKeyEncryptionKeyRequest {
  /** The EST profile whose serverkeygen may encrypt generated keys with this key. */
  @IsUUID('4', { message: 'profile_id must be an EST profile id (UUID)' })
  profile_id!: string;

  @IsOptional()
  @IsString({ message: 'description must be a string' })
  @Length(1, 200, { message: 'description must be 1 to 200 characters' })
  description?: string;
}

/** GET /api/v1/admin/est/key-encryption-keys: newest first, of one profile or every profile. */
export class ListEstKeyEncryptionKeysRequest extends PageQuery {
  @IsOptional()
  @IsUUID('4', { message: 'profile_id must be an EST profile id (UUID)' })
  profile_id?: string;

  @IsOptional()
  @IsIn(EST_KEK_STATUSES as unknown as string[], {
    message: `status must be one of ${EST_KEK_STATUSES.join(', ')}`,
  })
  status?: EstKeyEncryptionKeyStatus;
}

export class EstKeyEncryptionKeyIdRequest {
  @IsString({ message: 'id must be an EST key-encryption key id' })
  @Matches(EST_KEK_ID_PATTERN, { message: 'id must be an EST key-encryption key id (32 hex digits)' })
  id!: string;
}
