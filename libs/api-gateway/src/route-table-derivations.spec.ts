import { Permission } from '@certlane/contracts';
import { gatewayRouteTable } from './api-gateway.module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { AllowedMethods } from './http/allowed-methods';
import { routesWithoutOperation } from './openapi/document-checks';
import { buildOpenApiDocument, JsonSchema } from './openapi/openapi-document';
import { DECLARED_ROUTES } from './declared-routes';
import { declareRoute, RouteDeclaration } from './routes/route-declaration';
import {
  accessRuleProblems,
  auditedRoutes,
  authorizationMatrix,
  expectedAnswer,
  MATRIX_CALLERS,
  routeName,
  routesWithoutAuditCase,
} from './routes/route-checks';

/** A route declared the way a new one would be: the checks fed by the route table must notice it. */
const toyRoute = (changes: Partial<RouteDeclaration> = {}): RouteDeclaration =>
  ({
    ...declareRoute({
      method: 'POST',
      path: '/api/v1/toys/:id/squeak',
      permission: 'renewal_policy.edit',
      status: 200,
      errors: [401, 403, 404],
      subject: 'auth.v1.ping',
      response: 'PingResponse',
      audit: 'toy.squeaked',
      payload: () => ({}) as never,
    }),
    ...changes,
  }) as RouteDeclaration;

const committedDocument = JSON.parse(readFileSync(join(__dirname, '../../../docs/openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, JsonSchema> };
};

describe('a route added to the declarations', () => {
  const today = gatewayRouteTable();
  const withToy = (toy = toyRoute()) => gatewayRouteTable(undefined, [...DECLARED_ROUTES, toy]);
  const toyName = 'POST /api/v1/toys/:id/squeak';

  it('enters the route table with its access rule', () => {
    expect(withToy()).toContainEqual(
      expect.objectContaining({
        method: 'POST',
        path: '/api/v1/toys/:id/squeak',
        access: ['renewal_policy.edit'],
      }),
    );
    expect(withToy(toyRoute({ adminOnly: true, permission: undefined })).map(routeName)).toContain(toyName);
    expect(withToy(toyRoute({ adminOnly: true, permission: undefined }))).toContainEqual(
      expect.objectContaining({ path: '/api/v1/toys/:id/squeak', access: ['admin'] }),
    );
  });

  it('enters the route table as public when it reads no credentials, and the matrix expects everyone through', () => {
    const open = toyRoute({ public: true, permission: undefined });
    expect(withToy(open)).toContainEqual(
      expect.objectContaining({ path: '/api/v1/toys/:id/squeak', access: ['public'] }),
    );
    const rows = authorizationMatrix(withToy(open)).filter(([name]) => name === toyName);
    expect(rows.map(([, caller, route]) => expectedAnswer(route, caller))).toEqual(
      MATRIX_CALLERS.map(() => 'allowed'),
    );
  });

  it('is refused by the access-rule check when its permission is not catalogued (spec 5.3)', () => {
    expect(accessRuleProblems(today)).toEqual([]);
    const uncatalogued = toyRoute({ permission: 'toy.squeak' as Permission });
    expect(accessRuleProblems(withToy(uncatalogued))).toEqual([`${toyName}: ["toy.squeak"]`]);
  });

  it('gets a row per caller in the authorization matrix, with the answers its permission implies', () => {
    const rows = authorizationMatrix(withToy()).filter(([name]) => name === toyName);
    expect(rows.map(([, caller]) => caller)).toEqual(MATRIX_CALLERS);
    const answers = Object.fromEntries(
      rows.map(([, caller, route]) => [caller, expectedAnswer(route, caller)]),
    );
    expect(answers).toMatchObject({
      'no credentials': 401,
      'wrong key': 401,
      'r-admin': 'allowed',
      'r-viewer': 403,
    });
  });

  it('is demanded an audit case when it mutates (spec 6.1)', () => {
    const casesForEveryRouteToday = Object.fromEntries(auditedRoutes(today).map((route) => [route, true]));
    expect(routesWithoutAuditCase(withToy(), casesForEveryRouteToday)).toEqual([toyName]);
    const silent = toyRoute({ audit: { notAudited: 'a toy' } });
    expect(routesWithoutAuditCase(withToy(silent), casesForEveryRouteToday)).toEqual([]);
  });

  it('is demanded an operation in the API description, which the generator builds from its declaration (spec 9)', () => {
    expect(routesWithoutOperation(withToy(), committedDocument)).toEqual([toyName]);
    const regenerated = buildOpenApiDocument({
      routes: withToy(),
      schemas: {
        ...validationMetadatasToSchemas({ refPointerPrefix: '#/components/schemas/' }),
        ...committedDocument.components.schemas,
        PingResponse: { type: 'object' },
      },
      errorCodes: {
        401: ['unauthenticated'],
        403: ['forbidden'],
        404: ['not_found'],
        500: ['internal_error'],
        503: ['service_unavailable'],
        504: ['upstream_timeout'],
      },
      version: '2.0.0',
    }) as typeof committedDocument;
    expect(routesWithoutOperation(withToy(), regenerated)).toEqual([]);
    expect(regenerated.paths['/api/v1/toys/{id}/squeak'].post).toMatchObject({
      operationId: 'ping',
      'x-certlane-access': ['renewal_policy.edit'],
      parameters: [{ name: 'id', in: 'path', required: true }],
      responses: {
        200: { content: { 'application/json': { schema: { $ref: '#/components/schemas/PingResponse' } } } },
      },
    });
  });

  it('answers 405 with its methods in Allow to the others (spec 4.9)', () => {
    expect(new AllowedMethods(today).refuse('PATCH', '/api/v1/toys/t-1/squeak')).toBeNull();
    expect(new AllowedMethods(withToy()).refuse('PATCH', '/api/v1/toys/t-1/squeak')).toEqual(['POST']);
  });
});

describe('the declared routes', () => {
  it.each(DECLARED_ROUTES.map((route) => [routeName(route), route]))(
    '%s says what it audits: an action when it mutates, none when it reads',
    (_name, route) => {
      const mutates = route.method !== 'GET';
      expect(mutates ? route.audit !== null : route.audit === null).toBe(true);
    },
  );

  it.each(DECLARED_ROUTES.filter((route) => route.statusOf).map((route) => [routeName(route), route]))(
    '%s lists the other statuses its reply may choose, with their reply types',
    (_name, route) => {
      expect(Object.keys(route.alsoStatus ?? {}).length).toBeGreaterThan(0);
      expect(Object.keys(route.alsoStatus ?? {})).not.toContain(String(route.status));
    },
  );

  it.each(DECLARED_ROUTES.map((route) => [routeName(route), route]))(
    '%s declares a reply type unless it answers 204',
    (_name, route) => {
      expect(route.response === null).toBe(route.status === 204);
    },
  );
});
