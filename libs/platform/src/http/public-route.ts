import { SetMetadata } from '@nestjs/common';

export const PUBLIC_ROUTE = 'certlane:public-route';

/** Marks a controller or route as served without credentials (spec 5.2). Everything else needs them. */
export const PublicRoute = (): ClassDecorator & MethodDecorator => SetMetadata(PUBLIC_ROUTE, true);
