import { SetMetadata } from '@nestjs/common';

export const ADMIN_ONLY = 'certlane:admin-only';

/** Routes only an admin caller may use (403 otherwise). Replaced by permissions when RBAC lands. */
export const AdminOnly = (): ClassDecorator & MethodDecorator => SetMetadata(ADMIN_ONLY, true);
