import { gatewayRouteTable } from './api-gateway.module';
import { routeTable } from './routes/route-table';
import { accessRuleProblems, routeName } from './routes/route-checks';
import { RelyingPartyForwardingController } from './revocation-routes/relying-party-forwarding.controller';
import { AcmeForwardingController } from './acme-routes/acme-forwarding.controller';

/** Spec 5.3: no gateway route exists without a decision on who may call it. */
describe('gateway route table', () => {
  const routes = gatewayRouteTable();
  const table = routes.map((r) => ({
    route: `${r.method} ${r.path}`,
    access: r.access,
  }));

  it('finds the routes', () => {
    expect(table.map((r) => r.route)).toEqual(
      expect.arrayContaining([
        'GET /api/v1/renewal-policies',
        'POST /api/v1/auth/bootstrap',
        'GET /api/v1/auth/me',
        'POST /auth/logout',
        'POST /auth/breakglass/login',
        'DELETE /api/v1/auth/sessions/:id',
        'POST /api/v1/auth/breakglass/credentials/:actorId/unlock',
        'POST /api/v1/auth/demo-residual/cleanup',
      ]),
    );
  });

  // Inventory: owners and teams, stats (ADR 0024).
  it('guards owners, teams and stats with their own permissions', () => {
    const access = Object.fromEntries(table.map((r) => [r.route, r.access]));
    for (const kind of ['owner', 'team']) {
      expect(access[`GET /api/v1/${kind}s`]).toEqual([`${kind}.read`]);
      expect(access[`GET /api/v1/${kind}s/:id`]).toEqual([`${kind}.read`]);
      expect(access[`POST /api/v1/${kind}s`]).toEqual([`${kind}.create`]);
      expect(access[`PUT /api/v1/${kind}s/:id`]).toEqual([`${kind}.edit`]);
      expect(access[`DELETE /api/v1/${kind}s/:id`]).toEqual([`${kind}.delete`]);
    }
    expect(access['GET /api/v1/stats/summary']).toEqual(['certificate.read']);
    expect(access['GET /api/v1/stats/expiration-timeline']).toEqual(['certificate.read']);
    expect(access['GET /api/v1/stats/issuance-rate']).toEqual(['certificate.read']);
    expect(access['GET /api/v1/stats/job-trends']).toEqual(['job.read']);
  });

  it('guards the agent work routes with the agent permissions of r-agent (ADR 0027, 0033)', () => {
    const access = Object.fromEntries(table.map((r) => [r.route, r.access]));
    expect(access['GET /api/v1/agents/:id/work']).toEqual(['agent.work.poll']);
    expect(access['POST /api/v1/agents/:id/csr']).toEqual(['agent.csr.submit']);
    expect(access['GET /api/v1/agents/:id/certificates/:certId']).toEqual(['agent.work.poll']);
    expect(access['POST /api/v1/agents/:id/certificates/:certId/key']).toEqual(['agent.key.fetch']);
    expect(access['POST /api/v1/agents/:id/jobs/:jobId/status']).toEqual(['agent.job.report']);
  });

  it('lists the session-checked and public auth routes of spec 5.2 as such', () => {
    const access = Object.fromEntries(table.map((r) => [r.route, r.access]));
    expect(access['POST /auth/logout']).toEqual(['session']);
    expect(access['POST /auth/breakglass/login']).toEqual(['public']);
    expect(access['GET /api/v1/auth/sessions']).toEqual(['auth.session.list']);
    expect(access['GET /api/v1/auth/breakglass/credentials']).toEqual(['auth.breakglass.admin']);
    expect(access['DELETE /api/v1/auth/users/:id']).toEqual(['auth.user.deactivate']);
    expect(access['GET /api/v1/auth/runtime-config']).toEqual(['auth.role.assign']);
  });

  it('forwards the relying-party CRL and OCSP paths without credentials (ADR 0038)', () => {
    expect(routeTable([RelyingPartyForwardingController])).toEqual([
      { method: 'GET', path: '/crl/:file', access: ['public'] },
      { method: 'GET', path: '/crl/:issuerId/:file', access: ['public'] },
      { method: 'POST', path: '/ocsp/:issuerId', access: ['public'] },
      { method: 'GET', path: '/ocsp/:issuerId/*request', access: ['public'] },
    ]);
  });

  it('forwards every ACME path without API credentials: the JWS authenticates (ADR 0053)', () => {
    expect(routeTable([AcmeForwardingController])).toEqual([
      { method: 'ALL', path: '/acme/*path', access: ['public'] },
    ]);
  });

  // Spec 4.9 and 7: admin routes accept only GET and POST (405 otherwise), so no route under
  // /api/v1/admin/ is declared with another method: update and delete are POSTs on the resource.
  it('declares every admin route as a GET or a POST (spec 4.9)', () => {
    const admin = routes.filter((route) => route.path.startsWith('/api/v1/admin/'));
    expect(admin.length).toBeGreaterThan(0);
    // The declared routes and the controllers' alike (gatewayRouteTable lists both).
    expect(admin.filter((route) => route.method !== 'GET' && route.method !== 'POST').map(routeName)).toEqual(
      [],
    );
  });

  it.each(routes.map((route) => [`${route.method} ${route.path}`, route]))(
    '%s names exactly one catalogued access rule',
    (_route, route) => {
      expect(accessRuleProblems([route])).toEqual([]);
    },
  );
});
