import {
  IsBoolean,
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  Length,
  Matches,
} from 'class-validator';
import { PageQuery } from '../pagination/page';
import { ACTOR_ID_PATTERN } from './auth.dto';
import { GLOBAL_SCOPE, GRANT_SCOPE_PATTERN } from './grant-scope';
import { PERMISSIONS } from './permissions';

export const ROLE_ID_PATTERN = /^r-[a-z0-9-]{1,60}$/;

export interface RoleDto {
  id: string;
  description: string;
  builtin: boolean;
  permissions: string[];
  created_at: string;
}

export class ListRolesRequest extends PageQuery {}

export class RoleIdRequest {
  @IsString()
  @IsNotEmpty()
  id!: string;
}

const Permissions = () => (target: object, key: string | symbol) => {
  IsArray({ message: 'permissions must be an array' })(target, key);
  ArrayMaxSize(PERMISSIONS.length)(target, key);
  IsIn(PERMISSIONS as unknown as string[], {
    each: true,
    message: 'permissions must name catalogued permissions',
  })(target, key);
};

/** POST /api/v1/auth/roles. */
export class CreateRoleRequest {
  @IsString()
  @Matches(ROLE_ID_PATTERN, { message: 'id must look like r-<name> (a-z, 0-9, -)' })
  id!: string;

  @IsOptional()
  @IsString()
  @Length(0, 500)
  description?: string;

  @Permissions()
  permissions!: string[];
}

/** PUT /api/v1/auth/roles/{id}: fields left out keep their value. */
export class RoleChanges {
  @IsOptional()
  @IsString()
  @Length(0, 500)
  description?: string;

  @IsOptional()
  @Permissions()
  permissions?: string[];
}

export class UpdateRoleRequest extends RoleChanges {
  @IsString()
  @IsNotEmpty()
  id!: string;
}

/** GET /api/v1/auth/grants: optional filters. */
export class ListGrantsRequest extends PageQuery {
  @IsOptional()
  @IsString()
  @Matches(ACTOR_ID_PATTERN, { message: 'actor_id must be 2-64 characters of a-z, 0-9, ".", "_" or "-"' })
  actor_id?: string;

  @IsOptional()
  @IsString()
  @Matches(ROLE_ID_PATTERN, { message: 'role_id must look like r-<name>' })
  role_id?: string;

  @IsOptional()
  @IsString()
  @Matches(GRANT_SCOPE_PATTERN, { message: 'scope must be "*" or <kind>:<id>' })
  scope?: string;
}

/** GET /api/v1/auth/permissions: the catalogue, with the default roles that hold each name. */
export interface PermissionDto {
  name: string;
  default_roles: string[];
}

/** GET /api/v1/auth/permissions: every catalogued permission, in catalogue order. */
export interface PermissionCatalogue {
  data: PermissionDto[];
  total: number;
}

/** POST /api/v1/auth/grants and the grant commands on the bus. */
export class GrantRequest {
  @IsString()
  @Matches(ACTOR_ID_PATTERN, { message: 'actor_id must be 2-64 characters of a-z, 0-9, ".", "_" or "-"' })
  actor_id!: string;

  @IsString()
  @Matches(ROLE_ID_PATTERN, { message: 'role_id must look like r-<name>' })
  role_id!: string;

  /** `*` (the default: everywhere) or `<kind>:<id>`, e.g. `team:payments` (ADR 0019). */
  @IsOptional()
  @IsString()
  @Matches(GRANT_SCOPE_PATTERN, {
    message: `scope must be "${GLOBAL_SCOPE}" or <kind>:<id> with kind one of team, owner, profile, issuer, certificate, target, agent, tenant`,
  })
  scope?: string;
}

/** `?scope=` of DELETE /api/v1/auth/grants/{actor}/{role}; absent means the global grant. */
export class GrantScopeQuery {
  @IsOptional()
  @IsString()
  @Matches(GRANT_SCOPE_PATTERN, { message: 'scope must be "*" or <kind>:<id>' })
  scope?: string;
}

export class GrantCommand extends GrantRequest {
  @IsString()
  @IsNotEmpty()
  granted_by!: string;

  /** The caller's own rights: a grant may not hand out more (ADR 0014). */
  @IsBoolean()
  caller_admin!: boolean;

  @IsArray()
  @IsString({ each: true })
  caller_permissions!: string[];
}

export interface GrantDto {
  actor_id: string;
  role_id: string;
  scope: string;
  granted_by: string;
  granted_at: string;
}

/** Published when grants or role permissions change; gateways drop cached principals. */
export interface GrantsChanged {
  actor_id?: string;
  role_id?: string;
}
