import { RouteEntry } from '../routes/route-table';

/**
 * Spec 4.9: admin routes accept GET and POST only; any other method is 405 there, on a path no
 * route serves too. A known admin path answers 405 to the one of GET and POST it does not serve.
 */
export const ADMIN_PREFIX = '/api/v1/admin/';
export const ADMIN_METHODS: readonly string[] = ['GET', 'HEAD', 'POST'];

interface PathPattern {
  segments: (string | null)[];
  methods: Set<string>;
}

/**
 * Which methods a path answers to, from the gateway's route table, so that a known path called
 * with the wrong method gets 405 with an `Allow` header instead of 404. Path parameters (`:id`)
 * match any one segment.
 */
export class AllowedMethods {
  private readonly patterns: PathPattern[] = [];

  constructor(routes: readonly Pick<RouteEntry, 'method' | 'path'>[]) {
    const byPath = new Map<string, PathPattern>();
    for (const route of routes) {
      let pattern = byPath.get(route.path);
      if (!pattern) {
        pattern = {
          segments: split(route.path).map((segment) => (segment.startsWith(':') ? null : segment)),
          methods: new Set(),
        };
        byPath.set(route.path, pattern);
        this.patterns.push(pattern);
      }
      pattern.methods.add(route.method);
      if (route.method === 'GET') pattern.methods.add('HEAD');
    }
  }

  /**
   * The methods allowed on `path` when `method` is not one of them (the request deserves 405),
   * or null when the method is allowed or the path is unknown (routing decides).
   */
  refuse(method: string, path: string): string[] | null {
    if (method === 'OPTIONS') return null;
    const segments = split(path);
    const allowed = new Set<string>();
    for (const pattern of this.patterns) {
      if (matches(pattern.segments, segments)) pattern.methods.forEach((m) => allowed.add(m));
    }
    if (path.startsWith(ADMIN_PREFIX) && allowed.size === 0) {
      return ADMIN_METHODS.includes(method) ? null : [...ADMIN_METHODS];
    }
    if (allowed.size === 0 || allowed.has(method)) return null;
    return [...allowed].sort();
  }
}

const split = (path: string) => path.split('?')[0].split('/').filter(Boolean);

const matches = (pattern: (string | null)[], segments: string[]) =>
  pattern.length === segments.length && pattern.every((part, i) => part === null || part === segments[i]);
