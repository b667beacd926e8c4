import { DtoClass, ErrorCode, Permission, RequestOf, RequestSubject, ResponseOf } from '@certlane/contracts';
import type { BuildInfo, CertlaneConfig } from '@certlane/platform';
import { Actor } from '../auth/actor';
import { ANY_AUTHENTICATED } from '../auth/route-access';
import { OperationFacts } from '../operation-facts/operation-facts';

/** The methods a declared route may answer (GET also answers HEAD, as Express does). */
export type DeclaredMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

type AccessKinds = {
  permission: Permission;
  adminOnly: true;
  anyAuthenticated: true;
  public: true;
};

/**
 * Who may call a route, exactly one of: one permission (spec 5.3), admins only, any authenticated
 * caller (their own identity), or anyone (`public`: no credentials are read).
 */
export type RouteAccess = {
  [K in keyof AccessKinds]: { [P in K]: AccessKinds[P] } & { [P in Exclude<keyof AccessKinds, K>]?: never };
}[keyof AccessKinds];

/** What a route's request carries once checked and validated. */
export interface RouteInput<B, Q> {
  params: Readonly<Record<string, string>>;
  body: B;
  query: Q;
  /** The caller (undefined only on a public route). */
  actor: Actor | undefined;
}

/** What the gateway knows of itself, for the routes it answers without a service. */
export interface GatewayFacts {
  config: CertlaneConfig;
  build: BuildInfo;
}

/** The parts every declared route has, however it is answered. */
type RouteCommon<B extends object, Q extends object> = RouteAccess & {
  method: DeclaredMethod;
  /** The Express pattern (`/api/v1/renewal-policies/:id`); also the route label of the metrics. */
  path: string;
  /** The documented success status. */
  status: number;
  /**
   * The other success statuses the route may answer (`statusOf` picks), each with its reply's
   * contracts type, or null for a bodiless one: agent retirement 200 or 204, say.
   */
  alsoStatus?: Readonly<Record<number, string | null>>;
  /** The API description's operation id, when the one derived from the subject does not fit. */
  operationId?: string;
  summary?: string;
  /** The other statuses the route answers itself or passes on from its service (spec 7). */
  errors: readonly number[];
  /** The body's DTO, validated as the Nest pipe validated @Body(); `optionalBody`: none reads as `{}`. */
  body?: DtoClass<B>;
  optionalBody?: boolean;
  /** The query string's DTO; a route without one ignores any query string. */
  query?: DtoClass<Q>;
  /** The reply's contracts type at `status`, or null for a bodiless reply (204). */
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
  /** Break-glass routes (spec 5.7) answer 404 `route_not_found` to everyone while it is disabled. */
  breakGlass?: boolean;
  /**
   * A rule on the validated request beyond the access rule (who may grant r-admin, say), checked
   * before anything is sent; it throws the refusal.
   */
  check?(input: RouteInput<B, Q>): void;
};

/** A route answered by one bus subject. */
type Forwarded<S extends RequestSubject, B extends object, Q extends object> = {
  subject: S;
  /** The bus payload from the validated input. */
  payload(input: RouteInput<B, Q>): RequestOf<S>;
  /** How long the gateway waits for the reply, when not SERVICE_BUS_REQUEST_TIMEOUT. */
  timeoutMs?: number;
  /** The success status from the service's reply, when it depends on it (`status` or `alsoStatus`). */
  statusOf?(reply: ResponseOf<S>): number;
  /** The body written from the service's reply, when it is not the reply as it came. */
  reply?(reply: ResponseOf<S>): unknown;
  /**
   * Whether concurrent requests of the route travel to their service together (RequestCoalescer,
   * ADR 0036): for the small, frequent requests of an agent fleet.
   */
  coalesce?: boolean;
  /**
   * Honours the Idempotency-Key header (ADR 0045; IdempotencyKeys): a retry is answered with the
   * first attempt's stored answer, without running again.
   */
  idempotent?: boolean;
  /**
   * An idempotent create whose client may leave `id` out (ADR 0045): with an Idempotency-Key the id
   * derives from the actor and the key (`<prefix>-…`), and when the service answers `exists` (the
   * first attempt made it, but its answer was lost) the reply is what `get` answers for that id.
   */
  keyedId?: { prefix: string; exists: ErrorCode; get: RequestSubject };
  /** The cached principal the route changes, by `:id` (PrincipalCache): a key, or an actor. */
  evicts?: 'api-key' | 'actor';
  answer?: never;
};

/** A route the gateway answers itself, from the caller and its own configuration: no bus request. */
type Answered<B extends object, Q extends object> = {
  answer(input: RouteInput<B, Q>, gateway: GatewayFacts): object;
  subject?: never;
  payload?: never;
  timeoutMs?: never;
  statusOf?: never;
  reply?: never;
  coalesce?: never;
  idempotent?: never;
  keyedId?: never;
  evicts?: never;
};

/**
 * One gateway route that needs no handling of its own (ADR 0014, 0035): it checks its caller and
 * forwards to one bus subject, or answers from what the gateway knows. The route executor serves
 * it (in front of Express, and through Express for the requests the front lane leaves), and the
 * route table, the 405 fallback, the authorization matrix and the audit coverage read it from here.
 */
export type RouteDeclaration<
  S extends RequestSubject = RequestSubject,
  B extends object = object,
  Q extends object = object,
> = RouteCommon<B, Q> & (Forwarded<S, B, Q> | Answered<B, Q>);

/** A route declaration typed against its subject, DTOs and payload, kept in a list of any routes. */
export const declareRoute = <S extends RequestSubject, B extends object = object, Q extends object = object>(
  declaration: RouteCommon<B, Q> & Forwarded<S, B, Q>,
): RouteDeclaration => declaration as unknown as RouteDeclaration;

/** A route the gateway answers itself (`answer`), typed against its DTOs, kept in a list of any routes. */
export const declareAnsweredRoute = <B extends object = object, Q extends object = object>(
  declaration: RouteCommon<B, Q> & Answered<B, Q>,
): RouteDeclaration => declaration as unknown as RouteDeclaration;

/** The access rule of a declared route, as the route table names it. */
export const accessRule = (route: RouteDeclaration): string =>
  route.public
    ? 'public'
    : route.adminOnly
      ? 'admin'
      : route.anyAuthenticated
        ? ANY_AUTHENTICATED
        : (route.permission as string);

/** The operation id derived from a subject: `issuance.v1.list-renewal-policies` -> `listRenewalPolicies`. */
export const operationIdOf = (subject: string): string =>
  (subject.split('.').pop() ?? subject).replace(/-([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

/** A gateway-answered route's operation id: `GET /api/v1/auth/runtime-config` -> `getRuntimeConfig`. */
const answeredOperationId = (route: RouteDeclaration): string =>
  operationIdOf(`${route.method.toLowerCase()}-${route.path.split('/').pop() ?? ''}`);

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
    operationId:
      route.operationId ?? (route.subject ? operationIdOf(route.subject) : answeredOperationId(route)),
    ...(route.summary ? { summary: route.summary } : {}),
  };
}
