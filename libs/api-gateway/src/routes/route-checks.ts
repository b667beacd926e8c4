import { DEFAULT_ROLES, PERMISSIONS } from '@certlane/contracts';
import { ANY_AUTHENTICATED } from '../auth/route-access';
import { RouteEntry } from './route-table';

/**
 * The checks the route table feeds (spec 5.3, 6.1): the route-table spec, the authorization
 * matrix and the audit coverage call them with the gateway's table, so a route cannot be added
 * without the entries they demand.
 */

const ACCESS_RULES: readonly string[] = ['public', 'session', 'admin', ANY_AUTHENTICATED, ...PERMISSIONS];
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export const routeName = (route: Pick<RouteEntry, 'method' | 'path'>): string =>
  `${route.method} ${route.path}`;

/** The routes that do not name exactly one catalogued access rule, with what they name. */
export function accessRuleProblems(table: readonly RouteEntry[]): string[] {
  return table
    .filter((route) => route.access.length !== 1 || !ACCESS_RULES.includes(route.access[0]))
    .map((route) => `${routeName(route)}: ${JSON.stringify(route.access)}`);
}

/** The mutating routes that must prove their one audit record: all but those that say why they write none. */
export function auditedRoutes(table: readonly RouteEntry[]): string[] {
  return table.filter((route) => MUTATING.has(route.method) && route.notAudited === undefined).map(routeName);
}

/** The audited routes without a case in `cases` (keyed `METHOD /path`). */
export function routesWithoutAuditCase(
  table: readonly RouteEntry[],
  cases: Readonly<Record<string, unknown>>,
): string[] {
  return auditedRoutes(table).filter((route) => !(route in cases));
}

export type MatrixCaller = 'no credentials' | 'wrong key' | keyof typeof DEFAULT_ROLES;

export const MATRIX_CALLERS: readonly MatrixCaller[] = [
  'no credentials',
  'wrong key',
  ...(Object.keys(DEFAULT_ROLES) as MatrixCaller[]),
];

/**
 * What a caller must get from a route: 401 without a valid key (public routes excepted), 403
 * when the role lacks the route's rule, anything else when allowed. `session` routes check the
 * session cookie themselves: without one they answer 401 to every caller.
 */
export function expectedAnswer(route: RouteEntry, caller: MatrixCaller): 'allowed' | 401 | 403 {
  const [rule] = route.access;
  if (rule === 'public') return 'allowed';
  if (rule === 'session') return 401;
  if (caller === 'no credentials' || caller === 'wrong key') return 401;
  if (rule === ANY_AUTHENTICATED) return 'allowed';
  if (rule === 'admin') return caller === 'r-admin' ? 'allowed' : 403;
  return (DEFAULT_ROLES[caller].permissions as readonly string[]).includes(rule) ? 'allowed' : 403;
}

/** Every route x every caller of the authorization matrix. */
export function authorizationMatrix(
  table: readonly RouteEntry[],
): [name: string, caller: MatrixCaller, route: RouteEntry][] {
  return table.flatMap((route) =>
    MATRIX_CALLERS.map((caller): [string, MatrixCaller, RouteEntry] => [routeName(route), caller, route]),
  );
}
