import {
  AuthCheck,
  AuthCheckQuery,
  AuthMe,
  CertlaneError,
  ErrorCode,
  permittedBy,
} from '@certlane/contracts';
import { Actor, grantsOf } from '../auth/actor';
import { declareAnsweredRoute } from '../routes/route-declaration';

const authenticated = (actor: Actor | undefined): Actor => {
  if (!actor) throw new CertlaneError(ErrorCode.Unauthenticated, 'not authenticated');
  return actor;
};

/** The caller's own identity (spec 4.1), answered by the gateway from the authenticated caller. */
export const ME_ROUTES = [
  /** `{status}`; with `?permission=` (and `&scope=`) also whether the caller holds it there. */
  declareAnsweredRoute({
    method: 'GET',
    path: '/api/v1/auth/check',
    anyAuthenticated: true,
    status: 200,
    errors: [400, 401],
    query: AuthCheckQuery,
    response: 'AuthCheck',
    audit: null,
    answer: ({ query, actor }): AuthCheck => {
      if (!query.permission) return { status: 'ok' };
      const via = permittedBy(grantsOf(authenticated(actor)), query.permission, query.scope);
      return {
        status: 'ok',
        permission: query.permission,
        scope: query.scope ?? '*',
        allowed: via !== null,
        via,
      };
    },
  }),
  declareAnsweredRoute({
    method: 'GET',
    path: '/api/v1/auth/me',
    anyAuthenticated: true,
    status: 200,
    errors: [401],
    response: 'AuthMe',
    audit: null,
    answer: ({ actor }): AuthMe => {
      const caller = authenticated(actor);
      return {
        actor_id: caller.id,
        actor_type: caller.kind,
        admin: caller.admin,
        role_ids: [...caller.roleIds],
        effective_permissions: [...caller.permissions].sort(),
        scoped_permissions: Object.fromEntries(
          [...caller.scopedPermissions].map(([scope, permissions]) => [scope, [...permissions].sort()]),
        ),
      };
    },
  }),
];
