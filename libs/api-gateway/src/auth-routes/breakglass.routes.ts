import { PageQuery, SetBreakGlassCredentialRequest } from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

const BASE = '/api/v1/auth/breakglass/credentials';

/**
 * Break-glass credential administration (spec 4.10, 5.7), served by the auth service:
 * auth.breakglass.admin, and 404 to everyone while break-glass is disabled. The login sets
 * cookies: BreakGlassLoginController's.
 */
export const BREAKGLASS_CREDENTIAL_ROUTES = [
  declareRoute({
    method: 'GET',
    path: BASE,
    permission: 'auth.breakglass.admin',
    breakGlass: true,
    status: 200,
    errors: [400, 401, 403, 404],
    subject: 'auth.v1.list-breakglass-credentials',
    query: PageQuery,
    response: 'Page<BreakGlassCredentialDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  /** Sets (201) or rotates (200) the password of a credential. */
  declareRoute({
    method: 'POST',
    path: BASE,
    permission: 'auth.breakglass.admin',
    breakGlass: true,
    status: 201,
    alsoStatus: { 200: 'BreakGlassCredentialDto' },
    errors: [400, 401, 403, 404, 413],
    subject: 'auth.v1.set-breakglass-credential',
    body: SetBreakGlassCredentialRequest,
    response: 'BreakGlassCredentialDto',
    audit: 'auth.breakglass_credential_set',
    payload: ({ body }) => body,
    statusOf: (result) => (result.created ? 201 : 200),
    reply: (result) => result.credential,
  }),
  declareRoute({
    method: 'DELETE',
    path: `${BASE}/:actorId`,
    permission: 'auth.breakglass.admin',
    breakGlass: true,
    status: 204,
    errors: [401, 403, 404],
    subject: 'auth.v1.delete-breakglass-credential',
    response: null,
    audit: 'auth.breakglass_credential_deleted',
    payload: ({ params }) => ({ actor_id: params.actorId }),
  }),
  declareRoute({
    method: 'POST',
    path: `${BASE}/:actorId/unlock`,
    permission: 'auth.breakglass.admin',
    breakGlass: true,
    status: 200,
    errors: [401, 403, 404],
    subject: 'auth.v1.unlock-breakglass-credential',
    response: 'BreakGlassCredentialDto',
    audit: 'auth.breakglass_unlocked',
    payload: ({ params }) => ({ actor_id: params.actorId }),
  }),
];
