import { RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { PUBLIC_ROUTE } from '@certlane/platform';
import { OperationFacts } from '../operation-facts/operation-facts';
import { documentedFacts } from '../operation-facts/route-facts';
import { accessRule, declaredFacts, RouteDeclaration } from './route-declaration';
import { ADMIN_ONLY } from '../auth/admin-only';
import { REQUIRED_PERMISSION, SESSION_ROUTE } from '../auth/route-access';

export interface RouteEntry {
  method: string;
  /** Express-style path, e.g. `/api/v1/renewal-policies/:id`. */
  path: string;
  /** The access rules found: `public`, `session`, `admin`, `authenticated` or a permission name. */
  access: string[];
  /** Why a mutating route writes no audit record, when it says so (declared routes). */
  notAudited?: string;
  /** What the API description says of it; a route without facts fails the coverage test. */
  operation?: OperationFacts;
}

/**
 * Every route: the declared ones (declared-routes.ts) with their access rule, and those of
 * the given Nest controllers with the access rules their decorators name.
 */
export function routeTable(
  controllers: readonly Type[],
  declared: readonly RouteDeclaration[] = [],
): RouteEntry[] {
  return [...declared.map(declaredEntry), ...controllerRoutes(controllers)];
}

function declaredEntry(route: RouteDeclaration): RouteEntry {
  const entry: RouteEntry = {
    method: route.method,
    path: route.path,
    access: [accessRule(route)],
    operation: declaredFacts(route),
  };
  if (route.audit !== null && typeof route.audit === 'object') entry.notAudited = route.audit.notAudited;
  return entry;
}

/** Reads every route of the given controllers with its access rules from the decorators. */
function controllerRoutes(controllers: readonly Type[]): RouteEntry[] {
  return controllers.flatMap((controller) => {
    const base = Reflect.getMetadata(PATH_METADATA, controller) as string;
    const classPublic = Reflect.getMetadata(PUBLIC_ROUTE, controller) === true;
    const classAdmin = Reflect.getMetadata(ADMIN_ONLY, controller) === true;
    return Object.getOwnPropertyNames(controller.prototype)
      .filter((name) => name !== 'constructor')
      .map((name) => (controller.prototype as Record<string, unknown>)[name])
      .filter(
        (handler): handler is object =>
          typeof handler === 'function' && Reflect.hasMetadata(PATH_METADATA, handler),
      )
      .map((handler) => {
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
        const path = [base, Reflect.getMetadata(PATH_METADATA, handler) as string]
          .filter((p) => p && p !== '/')
          .join('/');
        const publicRule = Reflect.getMetadata(SESSION_ROUTE, handler) === true ? 'session' : 'public';
        const access = [
          classPublic || Reflect.getMetadata(PUBLIC_ROUTE, handler) === true ? publicRule : null,
          classAdmin || Reflect.getMetadata(ADMIN_ONLY, handler) === true ? 'admin' : null,
          (Reflect.getMetadata(REQUIRED_PERMISSION, handler) as string | undefined) ?? null,
        ].filter((a): a is string => a !== null);
        const operation = documentedFacts(controller, handler as (...args: never[]) => unknown);
        return { method, path: `/${path}`, access, ...(operation ? { operation } : {}) };
      });
  });
}
