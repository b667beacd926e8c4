/** A path parameter the lane takes as it is: nothing to decode, nothing Express would read otherwise. */
const PLAIN_PARAMETER = /^[A-Za-z0-9._~-]{1,256}$/;

interface Pattern<T> {
  method: string;
  segments: readonly string[];
  /** Whether the route reads a query string (taken raw, as Express's `simple` parser reads it). */
  query: boolean;
  value: T;
}

export interface RouteMatch<T> {
  value: T;
  params: Record<string, string>;
  /** The text after `?` ('' when there is none); only for routes that read a query string. */
  query: string;
}

/**
 * Matches a request line against route patterns (`/api/v1/agents/:id/work`) in their one exact
 * spelling: literal segments as written, parameters of plain characters, no trailing slash, no
 * query string. Anything else is left to Express, whose matching is looser (case, slashes,
 * percent-decoding), so the lane never answers a request Express would route differently. A
 * route declared with `query` also takes a query string, handed over as raw text.
 */
export class RouteMatcher<T> {
  private readonly patterns: Pattern<T>[];

  constructor(routes: readonly { method: string; path: string; query?: boolean; value: T }[]) {
    this.patterns = routes.map(({ method, path, query, value }) => ({
      method,
      segments: path.split('/'),
      query: query === true,
      value,
    }));
  }

  match(method: string | undefined, url: string | undefined): RouteMatch<T> | null {
    if (!method || !url || url.includes('#')) return null;
    const mark = url.indexOf('?');
    const segments = (mark < 0 ? url : url.slice(0, mark)).split('/');
    for (const pattern of this.patterns) {
      if (pattern.method !== method || pattern.segments.length !== segments.length) continue;
      if (mark >= 0 && !pattern.query) continue;
      const params = matchSegments(pattern.segments, segments);
      if (params) return { value: pattern.value, params, query: mark < 0 ? '' : url.slice(mark + 1) };
    }
    return null;
  }
}

function matchSegments(
  pattern: readonly string[],
  segments: readonly string[],
): Record<string, string> | null {
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const part = pattern[i];
    if (part.startsWith(':')) {
      if (!PLAIN_PARAMETER.test(segments[i])) return null;
      params[part.slice(1)] = segments[i];
    } else if (part !== segments[i]) {
      return null;
    }
  }
  return params;
}
