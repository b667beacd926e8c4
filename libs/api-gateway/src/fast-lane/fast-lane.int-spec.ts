import { connect } from 'nats';
import {
  eventually,
  httpsRequest,
  HttpsResult,
  ServiceProcess,
  startServiceProcess,
  startTestSystem,
  testNatsUrl,
  TestSystem,
} from '@certlane/testing';
import { GATEWAY_CONTROLLERS } from '../api-gateway.module';
import { routeTable } from '../routes/route-table';
import { DECLARED_ROUTES } from '../declared-routes';

/** Headers that differ between any two responses (time, connection) and say nothing about the route. */
const INCIDENTAL_HEADERS = new Set(['date', 'connection', 'keep-alive']);
/** Fields a heartbeat changes on every call. */
const MOMENTS = /"(last_heartbeat_at|updated_at)":"[^"]+"/g;

/**
 * The fast lane (ADR 0035) answers exactly as Express does: every case below goes to two gateways
 * over the same auth, issuance and deployment-dispatch processes, one with the lane (the default)
 * and one with SERVICE_GATEWAY_FAST_LANE=false, where Express routes the request to the same
 * route executor through its middleware (request id, security headers, body parser, input
 * guards, CORS), with the same X-Request-Id, and the two responses must be equal: status, every
 * header but date and connection, and the body (heartbeat moments aside). What each route answers
 * is held by its own suites (renewal-policies, owners-teams, agent), which passed against the
 * Nest controllers these declarations replaced.
 */
describe('gateway fast lane: the same answers as Express', () => {
  let system: TestSystem;
  let expressOnly: ServiceProcess;
  let admin: string;
  const agentKeys: Record<string, string> = {};
  let viewerKey: string;
  let requestNumber = 0;

  const call = (
    base: string,
    requestId: string,
    method: string,
    path: string,
    options: { key?: string; body?: string; headers?: Record<string, string> },
  ) =>
    httpsRequest(`${base}${path}`, {
      method,
      ca: system.ca,
      headers: {
        'x-request-id': requestId,
        ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      body: options.body,
    });

  const comparable = (response: HttpsResult) => ({
    status: response.status,
    headers: Object.fromEntries(
      Object.entries(response.headers)
        .filter(([name]) => !INCIDENTAL_HEADERS.has(name))
        .sort(([a], [b]) => a.localeCompare(b)),
    ),
    body: response.text.replace(MOMENTS, '"$1":"<moment>"'),
  });

  /** The key of a named caller: `admin`, `viewer`, an agent id, `unknown` (nobody's) or `none`. */
  const keyOf = (who: string): string | undefined =>
    ({ admin, viewer: viewerKey, unknown: 'not-a-key-of-anyone-0123456789', none: undefined })[who] ??
    agentKeys[who];

  /** Sends the request to both gateways; returns the lane's answer after checking it equals Express's. */
  async function both(
    method: string,
    path: string,
    options: { key?: string; body?: string; headers?: Record<string, string> } = {},
  ): Promise<HttpsResult> {
    const requestId = `fast-lane-${++requestNumber}`;
    const lane = await call(system.services['api-gateway'].url, requestId, method, path, options);
    const viaExpress = await call(expressOnly.url, requestId, method, path, options);
    expect(comparable(lane)).toEqual(comparable(viaExpress));
    return lane;
  }

  beforeAll(async () => {
    system = await startTestSystem('fastlane', ['auth', 'issuance', 'deployment-dispatch', 'api-gateway']);
    expressOnly = await startServiceProcess(
      'api-gateway',
      { ...system.env, SERVICE_GATEWAY_FAST_LANE: 'false' },
      { ca: system.ca },
    );
    admin = system.env.SERVICE_AUTH_SECRET!;
    const asAdmin = (method: string, path: string, body: unknown) =>
      call(system.services['api-gateway'].url, 'setup', method, path, {
        key: admin,
        body: JSON.stringify(body),
      });
    expect(
      (await asAdmin('POST', '/api/v1/renewal-policies', { name: 'Fast Lane', max_retries: 3 })).status,
    ).toBe(201);
    for (const id of ['fl-a', 'fl-b']) {
      const registered = await asAdmin('POST', '/api/v1/agents', {
        id,
        name: id,
        hostname: `${id}.example.com`,
      });
      expect(registered.status).toBe(201);
      agentKeys[id] = (registered.json() as { api_key: string }).api_key;
    }
    const viewer = await asAdmin('POST', '/api/v1/auth/api-keys', {
      name: 'fast-lane-viewer',
      actor_id: 'fast-lane-viewer',
      role_ids: ['r-viewer'],
    });
    expect(viewer.status).toBe(201);
    viewerKey = (viewer.json() as { key: string }).key;
    for (const [id, environment] of [
      ['fl-cert-1', 'prod'],
      ['fl-cert-2', 'staging'],
      ['fl-cert-3', 'prod'],
    ]) {
      const created = await asAdmin('POST', '/api/v1/certificates', {
        id,
        common_name: `${id}.example.com`,
        // An agent id no agent of this test polls: agent key generation needs one (ADR 0042).
        agent_id: 'fl-keygen',
        environment,
        tags: { team: 'edge', ü: 'x"y' },
      });
      expect(created.status).toBe(201);
    }
  }, 120_000);

  afterAll(async () => {
    await expressOnly?.stop();
    await system?.stop();
  });

  it('declares each route once: no Nest controller serves a declared method and path', () => {
    const nest = routeTable(GATEWAY_CONTROLLERS).map((route) => `${route.method} ${route.path}`);
    const declared = DECLARED_ROUTES.map((route) => `${route.method} ${route.path}`);
    expect(declared.filter((route) => nest.includes(route))).toEqual([]);
    expect(new Set(declared).size).toBe(declared.length);
  });

  describe('the declared renewal-policy and owner routes (bodies, 204, query strings)', () => {
    it.each([
      ['PUT', '/api/v1/renewal-policies/rp-fast-lane', { name: 'Fast Lane', max_retries: 3 }, 200],
      ['PUT', '/api/v1/renewal-policies/rp-fast-lane', { max_retries: 11 }, 400],
      ['PUT', '/api/v1/renewal-policies/rp-fast-lane', '{"name":', 400],
      ['PUT', '/api/v1/renewal-policies/rp-nothing', { max_retries: 1 }, 404],
      ['POST', '/api/v1/renewal-policies', { name: 'x', max_retries: 1, colour: 'red' }, 400],
      ['DELETE', '/api/v1/renewal-policies/rp-nothing', undefined, 404],
      ['GET', '/api/v1/owners?per_page=2', undefined, 200],
      ['GET', '/api/v1/owners?per_page=0', undefined, 400],
      ['GET', '/api/v1/teams/nobody', undefined, 404],
    ])('%s %s %j', async (method, path, body, status) => {
      const response = await both(method, path, {
        key: admin,
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      expect(response.status).toBe(status);
    });

    it('deletes with 204 and no body or content type, through the lane as through Express', async () => {
      const answers: HttpsResult[] = [];
      for (const [name, base] of [
        ['Lane Deleted', system.services['api-gateway'].url],
        ['Express Deleted', expressOnly.url],
      ]) {
        const created = await call(base, 'setup-delete', 'POST', '/api/v1/renewal-policies', {
          key: admin,
          body: JSON.stringify({ name, max_retries: 1 }),
        });
        const { id } = created.json() as { id: string };
        answers.push(
          await call(base, 'fast-lane-delete', 'DELETE', `/api/v1/renewal-policies/${id}`, { key: admin }),
        );
      }
      expect(answers[0].status).toBe(204);
      expect(answers[0].text).toBe('');
      expect(answers[0].headers['content-type']).toBeUndefined();
      expect(comparable(answers[0])).toEqual(comparable(answers[1]));
    });
  });

  describe('GET /api/v1/renewal-policies/{id}', () => {
    it('answers a policy', async () => {
      const response = await both('GET', '/api/v1/renewal-policies/rp-fast-lane', { key: admin });
      expect(response.status).toBe(200);
      expect(response.json()).toMatchObject({ id: 'rp-fast-lane', name: 'Fast Lane' });
    });

    it.each([
      ['an unknown id', '/api/v1/renewal-policies/rp-nothing', 'admin', 404],
      ['no credentials', '/api/v1/renewal-policies/rp-fast-lane', 'none', 401],
      ['an unknown key', '/api/v1/renewal-policies/rp-fast-lane', 'unknown', 401],
      ['a key without renewal_policy.read', '/api/v1/renewal-policies/rp-fast-lane', 'fl-a', 403],
      ['a viewer key', '/api/v1/renewal-policies/rp-fast-lane', 'viewer', 200],
      ['an encoded id (left to Express)', '/api/v1/renewal-policies/rp%2Dfast-lane', 'admin', 200],
      ['a query string (left to Express)', '/api/v1/renewal-policies/rp-fast-lane?x=1', 'admin', 200],
      ['a trailing slash (left to Express)', '/api/v1/renewal-policies/rp-fast-lane/', 'admin', 200],
      [
        'upper case (no route: paths are case-sensitive)',
        '/API/v1/renewal-policies/rp-fast-lane',
        'admin',
        404,
      ],
    ])('%s', async (_case, path, who, status) => {
      const response = await both('GET', path, { key: keyOf(who) });
      expect(response.status).toBe(status);
      if (status === 401) expect(response.headers['www-authenticate']).toBe('Bearer realm="certlane"');
    });
  });

  describe('concurrent agent requests (coalesced, ADR 0036)', () => {
    it('answers each of many concurrent polls and heartbeats as Express does, sending them to the services in batches', async () => {
      // A plain subscriber sees a copy of every batch message on the bus.
      const nc = await connect({ servers: testNatsUrl() });
      const batches: string[] = [];
      const seen = nc.subscribe(`${system.env.SERVICE_NATS_NAMESPACE}.batch.>`, {
        callback: (_error, message) => batches.push(message.subject),
      });
      try {
        const facts = JSON.stringify({ version: '1.2.3', hostname: 'fl-b.example.com' });
        const cases: [string, string, { key?: string; body?: string }, number][] = [];
        for (let round = 0; round < 8; round++) {
          cases.push(
            ['GET', '/api/v1/agents/fl-a/work', { key: agentKeys['fl-a'] }, 200],
            ['GET', '/api/v1/agents/fl-b/work', { key: admin }, 200],
            ['POST', '/api/v1/agents/fl-b/heartbeat', { key: agentKeys['fl-b'], body: facts }, 200],
            ['POST', '/api/v1/agents/fl-b/heartbeat', { key: agentKeys['fl-a'] }, 403],
            ['POST', '/api/v1/agents/fl-nobody/heartbeat', { key: admin }, 404],
            ['POST', '/api/v1/agents/fl-a/heartbeat', { key: agentKeys['fl-a'], body: '{"os":7}' }, 400],
          );
        }
        const lane = system.services['api-gateway'].url;
        const sent = cases.map(([method, path, options], i) =>
          call(lane, `fast-lane-burst-${i}`, method, path, options),
        );
        const answers = await Promise.all(sent);
        for (const [i, [method, path, options, status]] of cases.entries()) {
          expect(answers[i].status).toBe(status);
          const viaExpress = await call(expressOnly.url, `fast-lane-burst-${i}`, method, path, options);
          expect(comparable(answers[i])).toEqual(comparable(viaExpress));
        }
        await nc.flush();
        // The requests the lane forwards (400s stop in the gateway) went partly in batches.
        expect(batches.length).toBeGreaterThan(0);
        const subjects = ['batch.issuance.v1.get-agent-work', 'batch.deployment-dispatch.v1.agent-heartbeat'];
        for (const subject of batches) {
          expect(subjects.map((name) => `${system.env.SERVICE_NATS_NAMESPACE}.${name}`)).toContain(subject);
        }
      } finally {
        seen.unsubscribe();
        await nc.close();
      }
    });
  });

  describe('GET /api/v1/certificates', () => {
    it('answers a page with its filters', async () => {
      const response = await both('GET', '/api/v1/certificates?environment=prod&per_page=1&page=2', {
        key: admin,
      });
      expect(response.status).toBe(200);
      expect(response.json()).toMatchObject({ total: 2, page: 2, per_page: 1, data: [{ id: 'fl-cert-3' }] });
    });

    it.each([
      ['no query string', '/api/v1/certificates', 'admin', 200],
      ['an empty query string', '/api/v1/certificates?', 'admin', 200],
      ['a viewer key', '/api/v1/certificates?environment=prod', 'viewer', 200],
      ['a percent-encoded value', '/api/v1/certificates?environment=pr%6Fd&owner_id=', 'admin', 200],
      ['a plus for a space', '/api/v1/certificates?environment=no+such+env', 'admin', 200],
      ['an unknown status', '/api/v1/certificates?status=Sleeping', 'admin', 400],
      ['a repeated parameter', '/api/v1/certificates?environment=prod&environment=staging', 'admin', 400],
      ['an unknown parameter', '/api/v1/certificates?colour=blue', 'admin', 400],
      ['a page that is not a number', '/api/v1/certificates?page=two', 'admin', 400],
      ['per_page out of range', '/api/v1/certificates?per_page=100000', 'admin', 400],
      ['a bracketed parameter', '/api/v1/certificates?status[]=Active', 'admin', 400],
      ['no credentials', '/api/v1/certificates?status=Active', 'none', 401],
      ['an agent key (no certificate.read)', '/api/v1/certificates', 'fl-a', 403],
      ['a trailing slash (left to Express)', '/api/v1/certificates/?environment=prod', 'admin', 200],
      [
        'upper case (no route: paths are case-sensitive)',
        '/API/v1/certificates?environment=prod',
        'admin',
        404,
      ],
    ])('%s', async (_case, path, who, status) => {
      const response = await both('GET', path, { key: keyOf(who) });
      expect(response.status).toBe(status);
    });

    it('leaves HEAD to Express', async () => {
      const response = await both('HEAD', '/api/v1/certificates?environment=prod', { key: admin });
      expect(response.status).toBe(200);
    });
  });

  describe('GET /api/v1/agents/{id}/work', () => {
    it.each([
      ['its own agent', 'fl-a', 'fl-a', 200],
      ["another agent's key", 'fl-b', 'fl-a', 403],
      ['an admin', 'fl-b', 'admin', 200],
      ['a viewer (no agent.work.poll)', 'fl-a', 'viewer', 403],
      ['no credentials', 'fl-a', 'none', 401],
    ])('%s', async (_case, agent, who, status) => {
      const response = await both('GET', `/api/v1/agents/${agent}/work`, { key: keyOf(who) });
      expect(response.status).toBe(status);
      if (status === 200) expect(response.json()).toEqual({ jobs: [], count: 0 });
    });
  });

  describe('POST /api/v1/agents/{id}/heartbeat', () => {
    const facts = { version: '9.9.9', hostname: 'fl-a.example.com', os: 'linux', architecture: 'amd64' };

    it.each([
      ['host facts', { body: JSON.stringify(facts) }, 200],
      ['no body', {}, 200],
      ['an empty object', { body: '{}' }, 200],
      [
        'a body of another media type (refused, as by Express)',
        { body: 'os=bsd', headers: { 'content-type': 'text/plain' } },
        415,
      ],
      ['an unknown field', { body: JSON.stringify({ api_key_hash: 'x' }) }, 400],
      ['a field of the wrong type', { body: JSON.stringify({ hostname: 7 }) }, 400],
      ['malformed JSON', { body: '{"os":' }, 400],
      ['a JSON array', { body: '[1,2]' }, 400],
      ['a body over the size limit', { body: JSON.stringify({ hostname: 'x'.repeat(2_000_000) }) }, 413],
    ])('%s', async (_case, options, status) => {
      const response = await both('POST', '/api/v1/agents/fl-a/heartbeat', {
        key: agentKeys['fl-a'],
        ...options,
      });
      expect(response.status).toBe(status);
      if (status === 200) expect(response.json()).toMatchObject({ id: 'fl-a', status: 'Online' });
    });

    it("answers a retired agent's own revoked key with 410 on its heartbeat and 401 elsewhere", async () => {
      const asAdmin = (method: string, path: string, body?: unknown) =>
        call(system.services['api-gateway'].url, 'setup-retired', method, path, {
          key: admin,
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const registered = await asAdmin('POST', '/api/v1/agents', {
        id: 'fl-retired',
        name: 'fl-retired',
        hostname: 'fl-retired.example.com',
      });
      const key = (registered.json() as { api_key: string }).api_key;
      expect((await asAdmin('DELETE', '/api/v1/agents/fl-retired')).status).toBe(200);
      // Each gateway drops the key from its cache when the revocation event reaches it.
      await eventually(async () => {
        const answers = await Promise.all(
          [system.services['api-gateway'].url, expressOnly.url].map((base) =>
            call(base, 'wait-retired', 'GET', '/api/v1/agents/fl-retired/work', { key }),
          ),
        );
        return answers.every((answer) => answer.status === 401);
      }, 'the retired agent key revoked in both gateways');
      expect((await both('GET', '/api/v1/agents/fl-retired/work', { key })).status).toBe(401);
      const gone = await both('POST', '/api/v1/agents/fl-retired/heartbeat', { key });
      expect(gone.status).toBe(410);
      expect(gone.json()).toMatchObject({ code: 'agent_retired' });
      expect((await both('POST', '/api/v1/agents/fl-a/heartbeat', { key })).status).toBe(401);
    });

    it("refuses another agent's key, an unknown agent and a missing key alike", async () => {
      expect((await both('POST', '/api/v1/agents/fl-b/heartbeat', { key: agentKeys['fl-a'] })).status).toBe(
        403,
      );
      expect((await both('POST', '/api/v1/agents/fl-nobody/heartbeat', { key: admin })).status).toBe(404);
      expect((await both('POST', '/api/v1/agents/fl-a/heartbeat', {})).status).toBe(401);
    });
  });
});
