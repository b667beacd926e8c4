import {
  CreateRoleRequest,
  DEFAULT_ROLES,
  GrantRequest,
  GrantScopeQuery,
  ListGrantsRequest,
  PageQuery,
  PERMISSIONS,
  PermissionCatalogue,
  RoleChanges,
} from '@certlane/contracts';
import { assertNoEscalation, callerRights } from './escalation';
import { declareAnsweredRoute, declareRoute } from '../routes/route-declaration';

const ROLES = '/api/v1/auth/roles';
const GRANTS = '/api/v1/auth/grants';

/** The permission catalogue (spec 5.3), with the default roles that hold each permission. */
function permissionCatalogue(): PermissionCatalogue {
  const data = PERMISSIONS.map((name) => ({
    name,
    default_roles: Object.entries(DEFAULT_ROLES)
      .filter(([, role]) => role.permissions.includes(name))
      .map(([id]) => id),
  }));
  return { data, total: data.length };
}

/**
 * Roles, grants of roles to actors, and the permission catalogue (spec 5.3; design:
 * docs/decisions/0014-rbac-catalogue-and-route-table.md), served by the auth service. Granting
 * r-admin takes an admin caller.
 */
export const ROLE_ROUTES = [
  declareRoute({
    method: 'GET',
    path: ROLES,
    permission: 'auth.role.list',
    status: 200,
    errors: [400, 401, 403],
    subject: 'auth.v1.list-roles',
    query: PageQuery,
    response: 'Page<RoleDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  declareRoute({
    method: 'POST',
    path: ROLES,
    permission: 'auth.role.create',
    status: 201,
    errors: [400, 401, 403, 409, 413],
    subject: 'auth.v1.create-role',
    body: CreateRoleRequest,
    response: 'RoleDto',
    audit: 'auth.role_created',
    check: ({ body, actor }) => assertNoEscalation(actor, body.permissions, 'this role'),
    payload: ({ body }) => body,
  }),
  declareRoute({
    method: 'GET',
    path: `${ROLES}/:id`,
    permission: 'auth.role.list',
    status: 200,
    errors: [401, 403, 404],
    subject: 'auth.v1.get-role',
    response: 'RoleDto',
    audit: null,
    payload: ({ params }) => ({ id: params.id }),
  }),
  declareRoute({
    method: 'PUT',
    path: `${ROLES}/:id`,
    permission: 'auth.role.edit',
    status: 200,
    errors: [400, 401, 403, 404, 409, 413],
    subject: 'auth.v1.update-role',
    body: RoleChanges,
    response: 'RoleDto',
    audit: 'auth.role_updated',
    check: ({ body, actor }) => assertNoEscalation(actor, body.permissions ?? [], 'this role change'),
    payload: ({ params, body }) => ({ ...body, id: params.id }),
  }),
  declareRoute({
    method: 'DELETE',
    path: `${ROLES}/:id`,
    permission: 'auth.role.delete',
    status: 204,
    errors: [401, 403, 404, 409],
    subject: 'auth.v1.delete-role',
    response: null,
    audit: 'auth.role_deleted',
    payload: ({ params }) => ({ id: params.id }),
  }),
  declareRoute({
    method: 'GET',
    path: GRANTS,
    permission: 'auth.role.list',
    status: 200,
    errors: [400, 401, 403],
    subject: 'auth.v1.list-grants',
    query: ListGrantsRequest,
    response: 'Page<GrantDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  declareRoute({
    method: 'POST',
    path: GRANTS,
    permission: 'auth.role.assign',
    status: 201,
    errors: [400, 401, 403, 404, 409, 413],
    subject: 'auth.v1.grant-role',
    body: GrantRequest,
    response: 'GrantDto',
    audit: 'auth.role_granted',
    payload: ({ body, actor }) => ({ ...body, granted_by: actor?.id ?? 'unknown', ...callerRights(actor) }),
  }),
  declareRoute({
    method: 'DELETE',
    path: `${GRANTS}/:actorId/:roleId`,
    permission: 'auth.role.assign',
    status: 204,
    errors: [400, 401, 403, 404],
    subject: 'auth.v1.revoke-role',
    query: GrantScopeQuery,
    response: null,
    audit: 'auth.role_revoked',
    payload: ({ params, query }) => ({
      actor_id: params.actorId,
      role_id: params.roleId,
      scope: query.scope,
    }),
  }),
  declareAnsweredRoute({
    method: 'GET',
    path: '/api/v1/auth/permissions',
    permission: 'auth.role.list',
    status: 200,
    errors: [401, 403],
    response: 'PermissionCatalogue',
    audit: null,
    answer: permissionCatalogue,
  }),
];
