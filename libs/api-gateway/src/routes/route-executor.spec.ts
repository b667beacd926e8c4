import type { ServerResponse } from 'node:http';
import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { BuildInfo, CertlaneConfig, createLogger, MessageBus } from '@certlane/platform';
import { Actor, NO_SCOPED_PERMISSIONS } from '../auth/actor';
import { Authenticator } from '../auth/authenticator';
import { PrincipalCache } from '../auth/principal-cache';
import { RetiredAgentKeys } from '../auth/retired-agent-keys';
import { IdempotencyKeys } from '../idempotency/idempotency-keys';
import { declareAnsweredRoute, declareRoute, RouteDeclaration } from './route-declaration';
import { RouteExecutor, RouteRequest } from './route-executor';

const actor = (admin: boolean): Actor => ({
  id: admin ? 'actor-admin' : 'actor-operator',
  kind: 'api-key',
  admin,
  roleIds: [],
  permissions: new Set(['renewal_policy.delete']),
  scopedPermissions: NO_SCOPED_PERMISSIONS,
});

/** The parts of a Node response the executor writes, recorded. */
function recordingResponse() {
  const headers: Record<string, unknown> = {};
  const written = { status: 0, body: '' as string | undefined, headers };
  const response = {
    headersSent: false,
    set statusCode(status: number) {
      written.status = status;
    },
    get statusCode() {
      return written.status;
    },
    setHeader: (name: string, value: unknown) => {
      headers[name.toLowerCase()] = value;
    },
    end: (body?: string) => {
      written.body = body;
    },
  };
  return { response: response as unknown as ServerResponse, written };
}

function executorFor(caller: Actor, reply = '{"deleted":true}', breakGlassEnabled = true) {
  const sent: unknown[] = [];
  const dropped: string[] = [];
  const bus = {
    requestRaw: (_subject: string, payload: unknown) => {
      sent.push(payload);
      return Promise.resolve(reply);
    },
  } as unknown as MessageBus;
  const authenticator = { authenticate: () => Promise.resolve(caller) } as unknown as Authenticator;
  const principals = {
    dropKey: (id: string) => dropped.push(`key ${id}`),
    dropActor: (id: string) => dropped.push(`actor ${id}`),
  } as unknown as PrincipalCache;
  const logger = createLogger({ service: 'api-gateway', version: 'test', level: 'fatal' });
  const config = { breakGlass: { enabled: breakGlassEnabled } } as CertlaneConfig;
  const build: BuildInfo = { version: '2.0.0', commit: 'c', modified: 'false', build_time: 't' };
  const executor = new RouteExecutor(
    authenticator,
    {} as RetiredAgentKeys,
    {} as IdempotencyKeys,
    principals,
    bus,
    logger,
    config,
    build,
  );
  return { executor, sent, dropped };
}

const request = (params: Record<string, string>): RouteRequest => ({
  method: 'DELETE',
  params,
  headers: {},
  requestId: 'req-1',
  path: '/api/v1/things/x',
  body: () => Promise.resolve(undefined),
  query: () => ({}),
});

const deleteRoute = (changes: Partial<RouteDeclaration> = {}): RouteDeclaration =>
  ({
    ...declareRoute({
      method: 'DELETE',
      path: '/api/v1/things/:id',
      permission: 'renewal_policy.delete',
      status: 204,
      errors: [401, 403, 404],
      subject: 'issuance.v1.delete-renewal-policy',
      response: null,
      audit: 'thing.deleted',
      payload: ({ params }) => ({ id: params.id }),
    }),
    ...changes,
  }) as RouteDeclaration;

describe('RouteExecutor', () => {
  it('answers a bodiless route with its status, no body and no content type, after sending the payload', async () => {
    const { executor, sent } = executorFor(actor(false));
    const { response, written } = recordingResponse();
    await executor.serve(deleteRoute(), request({ id: 'rp-1' }), response);
    expect(sent).toEqual([{ id: 'rp-1' }]);
    expect(written).toEqual({ status: 204, body: undefined, headers: {} });
  });

  it('refuses a caller who is not an admin on an admin-only route with 403, without asking the service', async () => {
    const { executor, sent } = executorFor(actor(false));
    const { response, written } = recordingResponse();
    await executor.serve(
      deleteRoute({ adminOnly: true, permission: undefined }),
      request({ id: 'x' }),
      response,
    );
    expect(sent).toEqual([]);
    expect(written.status).toBe(403);
    expect(JSON.parse(written.body ?? '')).toMatchObject({ code: 'forbidden', request_id: 'req-1' });
  });

  it('serves an admin on an admin-only route', async () => {
    const { executor, sent } = executorFor(actor(true));
    const { response, written } = recordingResponse();
    await executor.serve(
      deleteRoute({ adminOnly: true, permission: undefined }),
      request({ id: 'x' }),
      response,
    );
    expect(sent).toEqual([{ id: 'x' }]);
    expect(written.status).toBe(204);
  });

  it('refuses a caller without the route permission with 403, without asking the service', async () => {
    const { executor, sent } = executorFor({ ...actor(false), permissions: new Set() });
    const { response, written } = recordingResponse();
    await executor.serve(deleteRoute(), request({ id: 'x' }), response);
    expect(sent).toEqual([]);
    expect(written.status).toBe(403);
  });

  it('picks the status from the reply, with no body for a bodiless one (agent retirement: 200 or 204)', async () => {
    const retire = deleteRoute({
      status: 200,
      alsoStatus: { 204: null },
      response: 'AgentRetirement',
      statusOf: (reply: { already_retired?: boolean }) => (reply.already_retired ? 204 : 200),
    } as Partial<RouteDeclaration>);
    const done = recordingResponse();
    await executorFor(actor(false), '{"already_retired":false}').executor.serve(
      retire,
      request({ id: 'a' }),
      done.response,
    );
    expect([done.written.status, done.written.body]).toEqual([200, '{"already_retired":false}']);
    const again = recordingResponse();
    await executorFor(actor(false), '{"already_retired":true}').executor.serve(
      retire,
      request({ id: 'a' }),
      again.response,
    );
    expect([again.written.status, again.written.body]).toEqual([204, undefined]);
  });

  it('writes the body the route shapes from the reply', async () => {
    const shaped = deleteRoute({
      status: 201,
      response: 'Thing',
      reply: (reply: { thing: object; secret: string }) => ({ ...reply.thing, secret: reply.secret }),
    } as Partial<RouteDeclaration>);
    const { response, written } = recordingResponse();
    await executorFor(actor(false), '{"thing":{"id":"t"},"secret":"s"}').executor.serve(
      shaped,
      request({ id: 't' }),
      response,
    );
    expect([written.status, JSON.parse(written.body ?? '')]).toEqual([201, { id: 't', secret: 's' }]);
  });

  it("refuses with the route's own check before asking the service", async () => {
    const { executor, sent } = executorFor(actor(false));
    const { response, written } = recordingResponse();
    const checked = deleteRoute({
      check: () => {
        throw new CertlaneError(ErrorCode.Forbidden, 'not this one');
      },
    });
    await executor.serve(checked, request({ id: 'x' }), response);
    expect([sent, written.status]).toEqual([[], 403]);
  });

  it('answers 404 on a break-glass route while break-glass is disabled, before authentication', async () => {
    const { executor, sent } = executorFor(actor(true), '{}', false);
    const { response, written } = recordingResponse();
    await executor.serve(deleteRoute({ breakGlass: true }), request({ id: 'x' }), response);
    expect([sent, written.status, JSON.parse(written.body ?? '').code]).toEqual([[], 404, 'route_not_found']);
  });

  it('lets the principal cache forget the key or actor the route changed', async () => {
    const { executor, dropped } = executorFor(actor(false));
    await executor.serve(
      deleteRoute({ evicts: 'api-key' }),
      request({ id: 'k-1' }),
      recordingResponse().response,
    );
    await executor.serve(
      deleteRoute({ evicts: 'actor' }),
      request({ id: 'u-1' }),
      recordingResponse().response,
    );
    expect(dropped).toEqual(['key k-1', 'actor u-1']);
  });

  it('answers a public route without reading credentials, and a route the gateway answers itself', async () => {
    const refusing = { authenticate: () => Promise.reject(new Error('no credentials read')) };
    const { executor } = executorFor(actor(false));
    (executor as unknown as { authenticator: unknown }).authenticator = refusing;
    const version = declareAnsweredRoute({
      method: 'GET',
      path: '/api/v1/version',
      public: true,
      status: 200,
      errors: [],
      response: 'VersionResponse',
      audit: null,
      answer: (_input, { build }) => ({ version: build.version }),
    });
    const { response, written } = recordingResponse();
    await executor.serve(version, { ...request({}), method: 'GET' }, response);
    expect([written.status, JSON.parse(written.body ?? '')]).toEqual([200, { version: '2.0.0' }]);
  });
});
