import { applyDecorators, SetMetadata } from '@nestjs/common';
import { Permission } from '@certlane/contracts';
import { PublicRoute } from '@certlane/platform';

export const REQUIRED_PERMISSION = 'certlane:required-permission';

/**
 * The permission a route needs (spec 5.3). Every gateway route carries exactly one of
 * @RequirePermission(...), @AdminOnly() or @PublicRoute(); a test fails CI otherwise.
 */
export const RequirePermission = (permission: Permission): MethodDecorator =>
  SetMetadata(REQUIRED_PERMISSION, permission);

/** Marker for routes every authenticated caller may use (their own identity, say). */
export const ANY_AUTHENTICATED = 'authenticated';
export const AnyAuthenticated = (): MethodDecorator => SetMetadata(REQUIRED_PERMISSION, ANY_AUTHENTICATED);

export const SESSION_ROUTE = 'certlane:session-route';

/**
 * Routes that authenticate the session cookie themselves (`POST /auth/logout`, spec 5.2): public
 * to the guard, listed as `session` in the route table (401 without a valid session cookie).
 */
export const SessionRoute = (): MethodDecorator =>
  applyDecorators(PublicRoute(), SetMetadata(SESSION_ROUTE, true)) as MethodDecorator;

export const BREAKGLASS_ROUTE = 'certlane:breakglass-route';

/**
 * Break-glass routes (spec 5.7): they answer 404 `route_not_found` to everyone, before any
 * authentication, while SERVICE_BREAKGLASS_ENABLED is false. Not an access rule: the route still
 * carries one of the decorators above.
 */
export const BreakGlassRoute = (): ClassDecorator & MethodDecorator => SetMetadata(BREAKGLASS_ROUTE, true);
