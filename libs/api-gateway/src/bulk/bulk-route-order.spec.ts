import { gatewayRouteTable } from '../api-gateway.module';

/** Express-style path pattern (`:param` = one segment) as a regular expression. */
const pattern = (path: string) => new RegExp(`^${path.replace(/:[A-Za-z0-9_]+/g, '[^/]+')}$`);

/**
 * Routes are matched in the order of the route table (DECLARED_ROUTES, then the controllers): a
 * literal bulk path must come before any `/api/v1/certificates/:id` route that would capture it.
 */
describe('bulk routes in the gateway route table', () => {
  const table = gatewayRouteTable();
  const literals = [
    'POST /api/v1/certificates/bulk-revoke',
    'POST /api/v1/certificates/bulk-renew',
    'POST /api/v1/certificates/bulk-reassign',
    'POST /api/v1/est/certificates/bulk-revoke',
    'POST /api/v1/admin/acme/certificates/bulk-renew-early',
  ];

  it.each(literals.map((route) => [route]))('%s is served by its own route, first in order', (route) => {
    const [method, path] = route.split(' ');
    const first = table.find((entry) => entry.method === method && pattern(entry.path).test(path));
    expect(first && `${first.method} ${first.path}`).toBe(route);
  });

  it('gates the EST bulk revoke on admin and the others on certificate permissions', () => {
    const access = Object.fromEntries(table.map((r) => [`${r.method} ${r.path}`, r.access]));
    expect(access['POST /api/v1/est/certificates/bulk-revoke']).toEqual(['admin']);
    expect(access['POST /api/v1/certificates/bulk-revoke']).toEqual(['certificate.revoke']);
    expect(access['POST /api/v1/certificates/bulk-renew']).toEqual(['certificate.renew']);
    expect(access['POST /api/v1/certificates/bulk-reassign']).toEqual(['certificate.edit']);
    // As the single ACME renew-early: the operator's renewal decision (ADR 0060 Operations).
    expect(access['POST /api/v1/admin/acme/certificates/bulk-renew-early']).toEqual(['certificate.renew']);
  });
});
