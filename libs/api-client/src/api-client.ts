import type { operations } from './generated/openapi-types';
import { OperationId, OPERATIONS } from './generated/operations';
import { ApiClientConfigError } from './api-errors';
import type { IncomingMessage } from 'node:http';
import type { FileAnswer, HttpMethod, HttpsJsonClient } from './https-json-client';

type Operation<K extends OperationId> = operations[K];

type PathOf<K extends OperationId> = Operation<K>['parameters'] extends { path: infer P } ? P : never;
type QueryOf<K extends OperationId> = Operation<K>['parameters'] extends { query?: infer Q } ? Q : never;
type BodyOf<K extends OperationId> =
  Operation<K> extends {
    requestBody?: { content: { 'application/json': infer B } };
  }
    ? B
    : never;
type SuccessStatus = 200 | 201 | 202 | 204;

/** The JSON reply of an operation's success statuses (undefined for a bodiless one). */
export type ReplyOf<K extends OperationId> = {
  [S in keyof Operation<K>['responses'] & SuccessStatus]: Operation<K>['responses'][S] extends {
    content: { 'application/json': infer R };
  }
    ? R
    : undefined;
}[keyof Operation<K>['responses'] & SuccessStatus];

/** What a call carries: path parameters where the path has some, the query, the body where the operation reads one. */
export type InputOf<K extends OperationId> = ([PathOf<K>] extends [never] ? unknown : { path: PathOf<K> }) &
  ([QueryOf<K>] extends [never | undefined] ? unknown : { query?: QueryOf<K> }) &
  ([BodyOf<K>] extends [never] ? unknown : { body?: BodyOf<K> });

type QueryValue = string | number | boolean | null | undefined | readonly (string | number | boolean)[];

/**
 * Every JSON operation of the API description, typed from it (libs/api-client/src/generated,
 * written by tools/gen-openapi.mjs from docs/openapi.json): `call('getRenewalPolicy', { path:
 * { id } })`. A route that changes changes these types, so callers that no longer fit fail to
 * compile. File and stream operations (PEM/PKCS#12 downloads, CRL, OCSP, the audit export) are
 * not JSON: `call` refuses them, `download` reads them whole, `stream` as they arrive.
 */
export class ApiClient {
  constructor(private readonly http: HttpsJsonClient) {}

  call<K extends OperationId>(operationId: K, input: InputOf<K>): Promise<ReplyOf<K>> {
    const operation = OPERATIONS[operationId];
    if (!operation)
      throw new ApiClientConfigError(`no operation ${String(operationId)} in the API description`);
    if (!(operation.produces as readonly string[]).every((media) => media === 'application/json')) {
      throw new ApiClientConfigError(`${operationId} answers ${operation.produces.join(', ')}, not JSON`);
    }
    const { target, body } = requestOf(operation.path, input);
    return this.http.request<ReplyOf<K>>(operation.method as HttpMethod, target, body);
  }

  /**
   * A file or stream operation's answer as bytes with its media type (any operation works; the
   * Accept header lists the media types it produces), cut at `maxBytes` with `truncated` set.
   */
  download<K extends OperationId>(
    operationId: K,
    input: InputOf<K>,
    options: { maxBytes?: number } = {},
  ): Promise<FileAnswer> {
    const operation = OPERATIONS[operationId];
    if (!operation)
      throw new ApiClientConfigError(`no operation ${String(operationId)} in the API description`);
    const { target, body } = requestOf(operation.path, input);
    return this.http.requestFile(operation.method as HttpMethod, target, {
      body,
      accept: [...new Set([...operation.produces, 'application/json'])].join(', '),
      ...options,
    });
  }

  /** A stream operation's answer (the audit export), read by the caller as it arrives. */
  stream<K extends OperationId>(operationId: K, input: InputOf<K>): Promise<IncomingMessage> {
    const operation = OPERATIONS[operationId];
    if (!operation)
      throw new ApiClientConfigError(`no operation ${String(operationId)} in the API description`);
    const { target, body } = requestOf(operation.path, input);
    return this.http.stream(operation.method as HttpMethod, target, {
      body,
      accept: [...new Set([...operation.produces, 'application/json'])].join(', '),
    });
  }
}

function requestOf(template: string, input: unknown): { target: string; body: unknown } {
  const { path, query, body } = input as {
    path?: Record<string, string>;
    query?: Record<string, QueryValue>;
    body?: unknown;
  };
  return { target: `${expandPath(template, path ?? {})}${queryString(query ?? {})}`, body };
}

/** `/api/v1/agents/{id}/work` with `{ id: 'a/1' }` -> `/api/v1/agents/a%2F1/work`. */
export function expandPath(template: string, params: Readonly<Record<string, string>>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === '')
      throw new ApiClientConfigError(`the path parameter ${name} is missing`);
    // A URL resolves `.` and `..` away (`/api/v1/teams/..` is `/api/v1/`): another route.
    if (value === '.' || value === '..')
      throw new ApiClientConfigError(`the path parameter ${name} cannot be ${JSON.stringify(value)}`);
    return encodeURIComponent(value);
  });
}

/** `?a=1&tag=x&tag=y` from a query object; undefined and null values are left out. */
export function queryString(query: Readonly<Record<string, QueryValue>>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
