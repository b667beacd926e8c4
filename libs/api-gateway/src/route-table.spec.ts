import { PERMISSIONS } from '@certlane/contracts';
import { GATEWAY_CONTROLLERS } from './api-gateway.module';
import { ANY_AUTHENTICATED } from './auth/route-access';
import { routeTable } from './auth/route-table';

/** Spec 5.3: no gateway route exists without a decision on who may call it. */
describe('gateway route table', () => {
  const table = routeTable(GATEWAY_CONTROLLERS).map((r) => ({
    route: `${r.method} ${r.path}`,
    access: r.access,
  }));

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
