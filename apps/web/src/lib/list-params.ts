/**
 * A list page's state in the URL (shareable links, survives a reload): the page, the page size
 * and the filters the operation accepts. Values outside what the API accepts are dropped here,
 * so a hand-edited link never sends a request the API refuses.
 */
export interface ListParams {
  page: number;
  perPage: number;
  filters: Record<string, string>;
}

export const PER_PAGE_CHOICES = [25, 50, 100] as const;
const DEFAULT_PER_PAGE = 25;

export function parseListParams(search: URLSearchParams, filterNames: readonly string[]): ListParams {
  const page = Number(search.get('page'));
  const perPage = Number(search.get('per_page'));
  const filters: Record<string, string> = {};
  for (const name of filterNames) {
    const value = search.get(name);
    if (value) filters[name] = value;
  }
  return {
    page: Number.isInteger(page) && page >= 1 ? page : 1,
    perPage: (PER_PAGE_CHOICES as readonly number[]).includes(perPage) ? perPage : DEFAULT_PER_PAGE,
    filters,
  };
}

/** The URL query of a list state; defaults are left out so links stay short. */
export function listSearch(params: ListParams): URLSearchParams {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params.filters).sort(([a], [b]) => a.localeCompare(b))) {
    if (value) search.set(name, value);
  }
  if (params.page > 1) search.set('page', String(params.page));
  if (params.perPage !== DEFAULT_PER_PAGE) search.set('per_page', String(params.perPage));
  return search;
}

/** The API query of a list state (`page`, `per_page` and the filters). */
export function apiQuery(params: ListParams): Record<string, string | number> {
  return { ...params.filters, page: params.page, per_page: params.perPage };
}

/** The last page of `total` rows (at least 1). */
export function lastPage(total: number, perPage: number): number {
  return Math.max(1, Math.ceil(total / perPage));
}
