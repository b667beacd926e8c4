import { IsEmail, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { PageQuery } from '../pagination/page';
import { RESOURCE_ID_PATTERN } from './certificate.dto';

/** A team owns certificates through its owners (docs/decisions/0024-certificate-inventory-and-jobs.md). */
export interface TeamDto {
  id: string;
  name: string;
  description: string;
  created_at: string;
  updated_at: string;
}

/** A person or service accountable for certificates; notified about them. */
export interface OwnerDto {
  id: string;
  name: string;
  email: string;
  team_id: string;
  created_at: string;
  updated_at: string;
}

export class TeamFields {
  @IsOptional()
  @IsString()
  @Length(1, 255)
  name?: string;

  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;
}

/**
 * POST /api/v1/teams. Without an id one is generated (`t-<hex>`). Not a subclass of TeamFields:
 * class-validator would inherit its `@IsOptional()` on `name`, and a missing name would pass.
 */
export class CreateTeamRequest {
  @IsOptional()
  @Matches(RESOURCE_ID_PATTERN, {
    message: 'id must be 1 to 128 lower-case letters, digits, ".", "_" or "-"',
  })
  id?: string;

  @IsString()
  @Length(1, 255)
  name!: string;

  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;
}

export class UpdateTeamRequest extends TeamFields {
  @IsString()
  id!: string;
}

export class OwnerFields {
  @IsOptional()
  @IsString()
  @Length(1, 255)
  name?: string;

  @IsOptional()
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(320)
  email?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  team_id?: string;
}

/** POST /api/v1/owners. Without an id one is generated (`o-<hex>`). Not a subclass: see CreateTeamRequest. */
export class CreateOwnerRequest {
  @IsOptional()
  @Matches(RESOURCE_ID_PATTERN, {
    message: 'id must be 1 to 128 lower-case letters, digits, ".", "_" or "-"',
  })
  id?: string;

  @IsString()
  @Length(1, 255)
  name!: string;

  @IsOptional()
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(320)
  email?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  team_id?: string;
}

export class UpdateOwnerRequest extends OwnerFields {
  @IsString()
  id!: string;
}

export class ListOwnersRequest extends PageQuery {
  @IsOptional()
  @IsString()
  @MaxLength(128)
  team_id?: string;
}

export class ListTeamsRequest extends PageQuery {}

export class OwnerOrTeamIdRequest {
  @IsString()
  @MaxLength(128)
  id!: string;
}

export interface OwnerOrTeamDeleted {
  id: string;
}
