import { IsBoolean } from 'class-validator';
import { PageQuery } from '../pagination/page';
import { ActorIdRequest } from './breakglass.dto';

/** How a user first came to exist: a stored API key (or bootstrap), a break-glass credential, OIDC. */
export type UserKind = 'api-key' | 'breakglass' | 'oidc';

/** A user (spec 2.15): every actor the auth service knows, deactivatable. */
export interface UserDto {
  id: string;
  kind: UserKind;
  active: boolean;
  created_at: string;
  deactivated_at: string | null;
  last_login_at: string | null;
}

export class ListUsersRequest extends PageQuery {}

/** DELETE /api/v1/auth/users/{id}: the user, and what its deactivation revoked at once. */
export interface UserDeactivated {
  user: UserDto;
  sessions_revoked: number;
  api_keys_revoked: number;
}

export class CleanupDemoResidualRequest {}

/** POST /api/v1/auth/demo-residual/cleanup (spec 4.10). */
export interface DemoResidualRemoved {
  removed: number;
}

/** DELETE /api/v1/auth/users/{id}: only an admin may deactivate an admin (ADR 0018). */
export class DeactivateUserCommand extends ActorIdRequest {
  @IsBoolean()
  caller_admin!: boolean;
}
