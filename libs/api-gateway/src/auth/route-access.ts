import { SetMetadata } from '@nestjs/common';
import { Permission } from '@certlane/contracts';

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
