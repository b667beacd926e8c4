import { DEFAULT_ROLES } from '@certlane/contracts';
import { httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { gatewayRouteTable } from './api-gateway.module';
import { authorizationMatrix, expectedAnswer, MatrixCaller } from './routes/route-checks';

type Caller = MatrixCaller;

/**
 * The authorization matrix (spec 5.3): every gateway route x every default role, no
 * credentials and a wrong key. The cases and the expected answers come from the route table, declared routes and Nest
 * controllers alike (routes/route-checks.ts: expectedAnswer). Break-glass is enabled here so its routes
 * follow the same rules (disabled, they answer 404 to everyone: sessions-breakglass-users.int-spec).
 * A route added without an access rule already fails route-table.spec.ts.
 */
describe('authorization matrix', () => {
  let system: TestSystem;
  let ca: string;
  let gatewayUrl: string;
  const keys: Partial<Record<Caller, string>> = { 'wrong key': 'f'.repeat(64) };

  beforeAll(async () => {
    system = await startTestSystem('matrix', ['auth', 'api-gateway'], {
      SERVICE_BUS_REQUEST_TIMEOUT: '2s',
      SERVICE_BREAKGLASS_ENABLED: 'true',
    });
    ca = system.ca;
    gatewayUrl = system.services['api-gateway'].url;
    const env = system.env;
    for (const role of Object.keys(DEFAULT_ROLES)) {
      const created = await httpsRequest(`${gatewayUrl}/api/v1/auth/api-keys`, {
        method: 'POST',
        ca,
        headers: { authorization: `Bearer ${env.SERVICE_AUTH_SECRET}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: `matrix-${role}`,
          role_ids: [role],
          admin: role === 'r-admin',
          // The agent work routes answer only the agent itself (ADR 0027): the r-agent key is the
          // placeholder agent's, so its allowed routes are allowed for it.
          ...(role === 'r-agent' ? { actor_id: 'agent.matrix-placeholder' } : {}),
        }),
      });
      expect(created.status).toBe(201);
      keys[role as Caller] = (created.json() as { key: string }).key;
    }
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
  });

  const cases = authorizationMatrix(gatewayRouteTable());

  it.each(cases)('%s as %s', async (_name, caller, route) => {
    // Placeholder ids and an empty body: an allowed call may then fail validation or lookup,
    // but never with 401/403. Bootstrap is left alone so the matrix does not consume it.
    const path = route.path.replace(/:[a-zA-Z]+/g, 'matrix-placeholder');
    const key = keys[caller];
    const response = await httpsRequest(`${gatewayUrl}${path}`, {
      method: route.method,
      ca,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(['POST', 'PUT'].includes(route.method) ? { 'content-type': 'application/json' } : {}),
      },
      body: ['POST', 'PUT'].includes(route.method) ? '{}' : undefined,
    });
    const want = expectedAnswer(route, caller);
    if (want === 'allowed') {
      expect([route.path, response.status]).not.toEqual([route.path, 401]);
      expect([route.path, response.status]).not.toEqual([route.path, 403]);
    } else {
      expect([route.path, response.status]).toEqual([route.path, want]);
    }
  });
});
