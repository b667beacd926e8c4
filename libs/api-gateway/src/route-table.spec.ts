import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { PERMISSIONS } from '@certlane/contracts';
import { PUBLIC_ROUTE } from '@certlane/platform';
import { GATEWAY_CONTROLLERS } from './api-gateway.module';
import { ADMIN_ONLY } from './auth/admin-only';
import { ANY_AUTHENTICATED, REQUIRED_PERMISSION } from './auth/route-access';

interface RouteEntry {
  route: string;
  access: string[];
}

function routeTable(): RouteEntry[] {
  return GATEWAY_CONTROLLERS.flatMap((controller) => {
    const base = Reflect.getMetadata(PATH_METADATA, controller) as string;
    const classPublic = Reflect.getMetadata(PUBLIC_ROUTE, controller) === true;
    const classAdmin = Reflect.getMetadata(ADMIN_ONLY, controller) === true;
    return Object.getOwnPropertyNames(controller.prototype)
      .filter((name) => name !== 'constructor')
      .map((name) => (controller.prototype as unknown as Record<string, unknown>)[name])
      .filter(
        (handler): handler is object =>
          typeof handler === 'function' && Reflect.hasMetadata(PATH_METADATA, handler),
      )
      .map((handler) => {
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
        const path = [base, Reflect.getMetadata(PATH_METADATA, handler) as string]
          .filter((p) => p && p !== '/')
          .join('/');
        const access = [
          classPublic || Reflect.getMetadata(PUBLIC_ROUTE, handler) === true ? 'public' : null,
          classAdmin || Reflect.getMetadata(ADMIN_ONLY, handler) === true ? 'admin' : null,
          (Reflect.getMetadata(REQUIRED_PERMISSION, handler) as string | undefined) ?? null,
        ].filter((a): a is string => a !== null);
        return { route: `${method} /${path}`, access };
      });
  });
}

/** Spec 5.3: no gateway route exists without a decision on who may call it. */
describe('gateway route table', () => {
  const table = routeTable();

  it('finds the routes', () => {
    expect(table.map((r) => r.route)).toEqual(
      expect.arrayContaining([
        'GET /api/v1/renewal-policies',
        'POST /api/v1/auth/bootstrap',
        'GET /api/v1/auth/me',
      ]),
    );
  });

  it.each(table.map((entry) => [entry.route, entry]))('%s names exactly one access rule', (_route, entry) => {
    expect(entry.access).toHaveLength(1);
  });

  it.each(table.map((entry) => [entry.route, entry]))('%s names a catalogued permission', (_route, entry) => {
    const [rule] = entry.access;
    expect(['public', 'admin', ANY_AUTHENTICATED, ...PERMISSIONS]).toContain(rule);
  });
});
