import { RouteEntry } from '../routes/route-table';
import { openApiPath } from './openapi-document';

type Paths = Record<string, Record<string, unknown>>;

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

/** The routes of the table the document has no operation for (`GET /api/v1/x`). */
export function routesWithoutOperation(table: readonly RouteEntry[], document: { paths: Paths }): string[] {
  return table
    .filter((route) => !document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()])
    .map((route) => `${route.method} ${route.path}`);
}

/** The document's operations no route of the table serves (`GET /api/v1/{id}`). */
export function operationsWithoutRoute(table: readonly RouteEntry[], document: { paths: Paths }): string[] {
  const served = new Set(table.map((route) => `${route.method.toLowerCase()} ${openApiPath(route.path)}`));
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((method) => HTTP_METHODS.has(method) && !served.has(`${method} ${path}`))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/** The table's routes without API-description facts (neither declared nor @Documented). */
export const routesWithoutFacts = (table: readonly RouteEntry[]): string[] =>
  table.filter((route) => !route.operation).map((route) => `${route.method} ${route.path}`);
