import { DtoClass, Permission, RequestOf, RequestSubject } from '@certlane/contracts';
import { OperationFacts } from '../openapi/operation-facts';

/** The methods a declared route may answer (GET also answers HEAD, as Express does). */
export type DeclaredMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Who may call a route: one permission (spec 5.3), or admins only. */
export type RouteAccess =
  { permission: Permission; adminOnly?: never } | { adminOnly: true; permission?: never };

/** What a route's request carries once validated: the path parameters, the body, the query string. */
export interface RouteInput<B, Q> {
  params: Readonly<Record<string, string>>;
  body: B;
  query: Q;
}

/**
 * One gateway route that checks its caller and forwards to one bus subject, declared once (ADR
 * 0014, 0035): the route executor serves it (in front of Express, and through Express for the
 * requests the front lane leaves), and the route table, the 405 fallback, the authorization
 * matrix and the audit coverage read it from here.
 */
export type RouteDeclaration<
  S extends RequestSubject = RequestSubject,
  B extends object = object,
  Q extends object = object,
> = RouteAccess & {
  method: DeclaredMethod;
  /** The Express pattern (`/api/v1/renewal-policies/:id`); also the route label of the metrics. */
  path: string;
  /** The success status. */
  status: number;
  /** Other success statuses the route answers, each with its reply's contracts type or null. */
  alsoStatus?: Readonly<Record<number, string | null>>;
  /** The API description's operation id, when the one derived from the subject does not fit. */
  operationId?: string;
  summary?: string;
  /** The other statuses the route answers itself or passes on from its service (spec 7). */
  errors: readonly number[];
  subject: S;
  /** The body's DTO, validated as the Nest pipe validated @Body(); `optionalBody`: none reads as `{}`. */
  body?: DtoClass<B>;
  optionalBody?: boolean;
  /** The query string's DTO; a route without one ignores any query string. */
  query?: DtoClass<Q>;
  /** The reply's contracts type (the bus subject's response), or null for a bodiless reply (204). */
  response: string | null;
  /**
   * The audit action its service records (spec 6.1), or why it records none: reads, or
   * `{ notAudited: reason }` for a mutating route that writes no audit record.
   */
  audit: string | { notAudited: string } | null;
  /** The agent work rule (assertOwnWork): only the agent of `:id`, or an admin. */
  ownWork?: boolean;
  /** Retired agent `:id`'s own key gets 410 `agent_retired`, not 401 (ADR 0033). */
  retiredAgent?: boolean;
  /**
   * Whether concurrent requests of the route travel to their service together (RequestCoalescer,
   * ADR 0036): for the small, frequent requests of an agent fleet.
   */
  coalesce?: boolean;
  /** The bus payload from the validated input. */
  payload(input: RouteInput<B, Q>): RequestOf<S>;
};

/** A route declaration typed against its subject, DTOs and payload, kept in a list of any routes. */
export const declareRoute = <S extends RequestSubject, B extends object = object, Q extends object = object>(
  declaration: RouteDeclaration<S, B, Q>,
): RouteDeclaration => declaration as unknown as RouteDeclaration;

/** The access rule of a declared route, as the route table names it. */
export const accessRule = (route: RouteDeclaration): string =>
  route.adminOnly ? 'admin' : (route.permission as string);

/** The operation id derived from a subject: `issuance.v1.list-renewal-policies` -> `listRenewalPolicies`. */
export const operationIdOf = (subject: string): string =>
  (subject.split('.').pop() ?? subject).replace(/-([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

/** What the API description says of a declared route. */
export function declaredFacts(route: RouteDeclaration): OperationFacts {
  return {
    status: route.status,
    ...(route.alsoStatus ? { alsoStatus: route.alsoStatus } : {}),
    errors: route.errors,
    ...(route.body ? { body: route.body } : {}),
    ...(route.optionalBody ? { optionalBody: true } : {}),
    ...(route.query ? { query: route.query } : {}),
    response: route.response,
    operationId: route.operationId ?? operationIdOf(route.subject),
    ...(route.summary ? { summary: route.summary } : {}),
  };
}
