import type { ServerResponse } from 'node:http';
import { createLogger, MessageBus } from '@certlane/platform';
import { Actor, NO_SCOPED_PERMISSIONS } from '../auth/actor';
import { Authenticator } from '../auth/authenticator';
import { RetiredAgentKeys } from '../auth/retired-agent-keys';
import { declareRoute, RouteDeclaration } from './route-declaration';
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

function executorFor(caller: Actor) {
  const sent: unknown[] = [];
  const bus = {
    requestRaw: (_subject: string, payload: unknown) => {
      sent.push(payload);
      return Promise.resolve('{"deleted":true}');
    },
  } as unknown as MessageBus;
  const authenticator = { authenticate: () => Promise.resolve(caller) } as unknown as Authenticator;
  const logger = createLogger({ service: 'api-gateway', version: 'test', level: 'fatal' });
  const executor = new RouteExecutor(authenticator, {} as RetiredAgentKeys, bus, logger);
  return { executor, sent };
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
});
