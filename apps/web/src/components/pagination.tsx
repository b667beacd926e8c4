import { lastPage, PER_PAGE_CHOICES } from '../lib/list-params';

export function Pagination(props: {
  page: number;
  perPage: number;
  total: number;
  onPage: (page: number) => void;
  onPerPage: (perPage: number) => void;
}) {
  const last = lastPage(props.total, props.perPage);
  return (
    <nav aria-label="Pages" className="pagination">
      <button type="button" disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
        Previous
      </button>
      <span data-testid="page-status">
        Page {props.page} of {last} ({props.total} in all)
      </span>
      <button type="button" disabled={props.page >= last} onClick={() => props.onPage(props.page + 1)}>
        Next
      </button>
      <label>
        Per page{' '}
        <select value={props.perPage} onChange={(event) => props.onPerPage(Number(event.target.value))}>
          {PER_PAGE_CHOICES.map((n) => (
            <option key={n}>{n}</option>
          ))}
        </select>
      </label>
    </nav>
  );
}
