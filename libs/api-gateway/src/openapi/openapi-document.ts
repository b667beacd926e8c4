import { STATUS_CODES } from 'node:http';
import { RouteEntry } from '../routes/route-table';

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = Record<string, unknown>;

/** What the document is built from besides the route table. */
export interface DocumentSources {
  routes: readonly RouteEntry[];
  /** Component schemas by name: the DTOs the routes read and the contracts types they reply. */
  schemas: Readonly<Record<string, JsonSchema>>;
  /** Every error code by the status it answers (libs/platform error-status). */
  errorCodes: Readonly<Record<number, readonly string[]>>;
  version: string;
}

/** The statuses any route may answer whatever it declares: an unexpected failure, a service that is down or slow. */
export const INFRASTRUCTURE_STATUSES = [500, 503, 504] as const;
/** Hostile input (a NUL byte in a path parameter, an oversized query) is refused at the edge on any route (ADR 0040). */
export const EDGE_STATUSES = [400] as const;
/** The statuses any route that reads a body may answer before validation (malformed, too large, wrong type). */
export const BODY_STATUSES = [400, 413, 415] as const;

const SCHEMA_REF = '#/components/schemas/';
const ref = (name: string) => ({ $ref: `${SCHEMA_REF}${name}` });

/**
 * The component schema of a DTO class: its own, or for a class that only extends another
 * (`class BulkRenewRequest extends BulkCriteria {}`, no metadata of its own) its parent's.
 */
export function dtoSchemaName(
  dto: new (...args: never[]) => unknown,
  schemas: Readonly<Record<string, JsonSchema>>,
): string {
  for (
    let type: unknown = dto;
    typeof type === 'function' && type !== Function.prototype;
    type = Object.getPrototypeOf(type)
  ) {
    if (schemas[(type as { name: string }).name]) return (type as { name: string }).name;
  }
  throw new Error(`the DTO ${dto.name} has no schema (no class-validator metadata)`);
}

/** The component name of a reply's contracts type (names allow letters, digits, `.-_`): `Page<JobDto>` -> `PageOfJobDto`. */
export const replyComponentName = (typeName: string): string =>
  typeName.replace(/\s+/g, '').replace(/</g, 'Of').replace(/,/g, 'And').replace(/>/g, '');

/** `/api/v1/agents/:id/work` -> `/api/v1/agents/{id}/work`. */
export const openApiPath = (expressPath: string): string => expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** The tag of a route: the resource after `/api/v1` (`/api/v1/auth/roles` -> `auth`). */
export const tagOf = (path: string): string => path.replace(/^\/api\/v1\//, '/').split('/')[1] ?? 'root';

/**
 * The API description (spec 9: OpenAPI 3.1.0, version 2.0.0), built from the route table alone:
 * one operation per route, with its access rule, parameters, body, every status it answers and
 * the schemas of the bodies. Pure: the generator (tools/gen-openapi.mjs) feeds it.
 */
export function buildOpenApiDocument(sources: DocumentSources): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of sources.routes) {
    if (!route.operation) continue;
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route, sources) };
  }
  const used = referencedSchemas(paths, sources.schemas);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Certlane API',
      version: sources.version,
      description:
        'The public API of Certlane, the certificate lifecycle management platform. Every route ' +
        'answers JSON errors `{code, message, request_id, details?}`; the codes are stable.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/' }],
    tags: [...new Set(sources.routes.map((route) => tagOf(route.path)))].sort().map((name) => ({ name })),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      schemas: Object.fromEntries([...used].sort().map((name) => [name, sources.schemas[name]])),
      responses: errorResponses(sources.errorCodes),
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (spec 5.2): `Authorization: Bearer <key>`.',
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'service_session',
          description:
            'The session cookie of a break-glass or OIDC sign-in (spec 5.4); state-changing ' +
            'requests also send the `service_csrf` cookie value in `X-CSRF-Token`.',
        },
      },
    },
  };
}

function operation(route: RouteEntry, sources: DocumentSources): Record<string, unknown> {
  const facts = route.operation!;
  const isPublic = route.access.includes('public');
  const successes: [number, string | null][] = [
    [facts.status, facts.response],
    ...Object.entries(facts.alsoStatus ?? {}).map(([status, reply]): [number, string | null] => [
      Number(status),
      reply,
    ]),
  ];
  const errorStatuses = new Set([
    ...facts.errors,
    ...(facts.body ? BODY_STATUSES : []),
    ...(isPublic || route.access.includes('session') ? [] : [401]),
    ...EDGE_STATUSES,
    ...INFRASTRUCTURE_STATUSES,
  ]);
  const responses: Record<string, unknown> = {};
  for (const [status, reply] of successes) responses[status] = successResponse(status, reply, facts.produces);
  const main = responses[facts.status] as { content?: Record<string, unknown> };
  for (const media of facts.alsoProduces ?? [])
    main.content = { ...main.content, [media]: { schema: { type: 'string' } } };
  for (const status of [...errorStatuses].sort())
    responses[status] = { $ref: `#/components/responses/Error${status}` };
  const parameters = [...pathParameters(route.path), ...queryParameters(facts.query, sources)];
  return {
    operationId: facts.operationId,
    tags: [tagOf(route.path)],
    summary: facts.summary ?? `${route.method} ${route.path}`,
    description: accessSentence(route.access),
    'x-certlane-access': route.access,
    security: isPublic || route.access.includes('session') ? [] : [{ apiKey: [] }, { session: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(facts.body
      ? {
          requestBody: {
            required: !facts.optionalBody,
            content: { 'application/json': { schema: ref(dtoSchemaName(facts.body, sources.schemas)) } },
          },
        }
      : {}),
    responses,
  };
}

function successResponse(status: number, reply: string | null, produces: string | undefined) {
  const description = STATUS_CODES[status] ?? String(status);
  if (status === 204 || (reply === null && !produces)) return { description };
  const media = produces ?? 'application/json';
  const schema =
    reply !== null ? ref(replyComponentName(reply)) : { type: media.includes('json') ? 'object' : 'string' };
  return { description, content: { [media]: { schema } } };
}

function accessSentence(access: readonly string[]): string {
  if (access.includes('public')) return 'Public: no credentials needed.';
  if (access.includes('session')) return 'Authenticated by the session cookie itself.';
  if (access.includes('admin')) return 'Admins only.';
  if (access.includes('authenticated')) return 'Any authenticated caller.';
  return `Requires the permission \`${access.join('`, `')}\`.`;
}

function pathParameters(path: string) {
  return [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
}

function queryParameters(query: NonNullable<RouteEntry['operation']>['query'], sources: DocumentSources) {
  if (!query) return [];
  const schema = sources.schemas[dtoSchemaName(query, sources.schemas)] ?? {};
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema: property,
  }));
}

/** One reusable response per error status, naming the codes it may carry. */
function errorResponses(errorCodes: Readonly<Record<number, readonly string[]>>) {
  return Object.fromEntries(
    Object.entries(errorCodes).map(([status, codes]) => [
      `Error${status}`,
      {
        description: `${STATUS_CODES[Number(status)] ?? status}: one of the codes ${codes.map((c) => `\`${c}\``).join(', ')}.`,
        content: {
          'application/json': {
            schema: {
              allOf: [ref('ErrorBody'), { type: 'object', properties: { code: { enum: [...codes] } } }],
            },
            example: { code: codes[0], message: `${codes[0]}`, request_id: 'req-1' },
          },
        },
      },
    ]),
  );
}

/** The names of the component schemas the paths reach, following $refs through the schemas. */
function referencedSchemas(paths: unknown, schemas: Readonly<Record<string, JsonSchema>>): Set<string> {
  const found = new Set<string>(['ErrorBody']);
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMA_REF)) {
        const name = value.slice(SCHEMA_REF.length);
        if (!schemas[name]) throw new Error(`no schema ${name}`);
        if (!found.has(name)) {
          found.add(name);
          visit(schemas[name]);
        }
      } else visit(value);
    }
  };
  visit(paths);
  visit(schemas.ErrorBody);
  return found;
}
