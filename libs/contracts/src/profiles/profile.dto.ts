import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { KEY_ALGORITHMS, KeyAlgorithmName, RESOURCE_ID_PATTERN } from '../certificates/certificate.dto';
import { PageQuery } from '../pagination/page';
import { PROFILE_EKU_NAMES, ProfileEkuName } from '../pki/eku-names';

const EKU_INPUTS = [...PROFILE_EKU_NAMES, ...PROFILE_EKU_NAMES.map((n) => `id-kp-${n}`)];

/** A certificate profile (spec 2.9; docs/decisions/0025-profiles-and-approvals.md). */
export interface ProfileDto {
  id: string;
  name: string;
  description: string;
  /** Key algorithms a CSR may carry; empty = any. */
  allowed_key_algorithms: KeyAlgorithmName[];
  /** EKUs a CSR may request (short names); empty = any. */
  allowed_ekus: ProfileEkuName[];
  /** Names the CSR must carry: EKU names, DN attribute names, PKCS#9 attribute names. */
  required_csr_attributes: string[];
  must_staple: boolean;
  /** Validity of certificates issued under the profile; null = the issuer's default. */
  validity_days: number | null;
  requires_approval: boolean;
  created_at: string;
  updated_at: string;
}

const ID_MESSAGE =
  'id must be 1 to 128 lower-case letters, digits, ".", "_" or "-", starting with a letter or digit';

/** The fields of a profile other than its name; all optional (defaults on create, kept on PUT). */
export class ProfileRuleFields {
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(KEY_ALGORITHMS.length)
  @IsIn(KEY_ALGORITHMS as unknown as string[], {
    each: true,
    message: `each allowed_key_algorithms entry must be one of ${KEY_ALGORITHMS.join(', ')}`,
  })
  allowed_key_algorithms?: KeyAlgorithmName[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(EKU_INPUTS.length)
  @IsIn(EKU_INPUTS, {
    each: true,
    message: `each allowed_ekus entry must be one of ${PROFILE_EKU_NAMES.join(', ')} (or its id-kp- name)`,
  })
  allowed_ekus?: string[];

  /** Unknown names are dropped (spec 2.9), not refused. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsString({ each: true })
  @MaxLength(128, { each: true })
  required_csr_attributes?: string[];

  @IsOptional()
  @IsBoolean()
  must_staple?: boolean;

  @IsOptional()
  @ValidateIf((_o, value) => value !== null)
  @IsInt({ message: 'validity_days must be an integer or null' })
  @Min(1, { message: 'validity_days must be between 1 and 3650' })
  @Max(3650, { message: 'validity_days must be between 1 and 3650' })
  validity_days?: number | null;

  @IsOptional()
  @IsBoolean()
  requires_approval?: boolean;
}

/** The body of PUT /api/v1/profiles/{id}: left-out fields keep their stored value. */
export class ProfileChanges extends ProfileRuleFields {
  @IsOptional()
  @IsString()
  @Length(1, 255)
  name?: string;
}

/** POST /api/v1/profiles. Without an id one is derived from the name (`prof-<slug>`). */
export class CreateProfileRequest extends ProfileRuleFields {
  @IsOptional()
  @IsString()
  @Matches(RESOURCE_ID_PATTERN, { message: ID_MESSAGE })
  id?: string;

  @IsString()
  @Length(1, 255)
  name!: string;
}

export class ProfileIdRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

export class UpdateProfileRequest extends ProfileChanges {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

export class ListProfilesRequest extends PageQuery {}

/**
 * The answer of PUT /api/v1/profiles/{id}: applied (200 with the profile), or held for approval
 * (202 `{pending_approval_id}`) when the stored profile requires approval or the edit sets it.
 */
export type ProfileUpdateResult =
  { applied: true; profile: ProfileDto } | { applied: false; pending_approval_id: string };

/** The 202 answer of PUT /api/v1/profiles/{id}: the edit waits for this approval. */
export interface ProfilePendingApproval {
  pending_approval_id: string;
}

export interface ProfileDeleted {
  id: string;
}
