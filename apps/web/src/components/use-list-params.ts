import { useSearchParams } from 'react-router';
import { ListParams, listSearch, parseListParams } from '../lib/list-params';

/** A list's page, size and filters, read from and written to the URL. */
export function useListParams(filterNames: readonly string[]) {
  const [search, setSearch] = useSearchParams();
  const params = parseListParams(search, filterNames);
  const update = (next: Partial<ListParams>) => setSearch(listSearch({ ...params, ...next }));
  return {
    params,
    setPage: (page: number) => update({ page }),
    setPerPage: (perPage: number) => update({ perPage, page: 1 }),
    setFilters: (filters: Record<string, string>) => update({ filters, page: 1 }),
    setFilter: (name: string, value: string) =>
      update({ filters: { ...params.filters, [name]: value }, page: 1 }),
  };
}
