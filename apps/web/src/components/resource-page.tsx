import { useState, useSyncExternalStore } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { auth } from '../api/auth-store';
import { api, unwrap } from '../api/client';
import { apiQuery } from '../lib/list-params';
import { ResourceColumn, ResourcePageSpec, Row } from '../pages/resource-pages';
import { RowActions } from './row-actions';
import { AuditTools } from './audit-tools';
import { SchemaForm } from './schema-form';
import { RecordView } from './record-view';
import { CaTree, IssuerCrlStatus, JobVerification, PolicyViolations } from './page-tools';
import { ErrorNotice, Expiry, StatusBadge, Time } from './widgets';
import { Pagination } from './pagination';
import { useListParams } from './use-list-params';
import { FilterBar } from './filter-bar';

type Page = { data: Row[]; total: number };

export function Cell({ column, row }: { column: ResourceColumn; row: Row }) {
  const value = row[column.key];
  switch (column.kind) {
    case 'time':
      return <Time value={value as string | null} />;
    case 'expiry':
      return <Expiry value={value as string | null} />;
    case 'status':
      return value ? <StatusBadge status={String(value)} /> : null;
    case 'bool':
      return <>{value ? 'yes' : 'no'}</>;
    case 'certificate':
      return value ? <Link to={`/certificates/${String(value)}`}>{String(value)}</Link> : <>—</>;
    case 'list':
      return <>{Array.isArray(value) && value.length > 0 ? value.join(', ') : '—'}</>;
    default:
      return <>{value === null || value === undefined || value === '' ? '—' : String(value)}</>;
  }
}

/** A server-paginated table of one list operation, its filters and page in the URL. */
export function ResourcePage({ page }: { page: ResourcePageSpec }) {
  const filters = page.filters ?? [];
  const { params, setPage, setPerPage, setFilter, setFilters } = useListParams(filters.map((f) => f.name));
  const state = useSyncExternalStore(auth.subscribe, auth.get);
  const actorId = state.status === 'signed-in' ? state.actorId : '';
  const [notice, setNotice] = useState<string>();
  const [selected, setSelected] = useState<Row>();
  const actions = page.actions ?? [];
  const list = useQuery({
    queryKey: [page.apiPath, params],
    queryFn: async () => {
      const body = await unwrap(
        // The spec of the page names a list operation; its query is the page and its filters.
        api.GET(page.apiPath as '/api/v1/agents', { params: { query: apiQuery(params) } }),
      );
      const raw = body as unknown as Page | Row[];
      return Array.isArray(raw) ? { data: raw, total: raw.length } : raw;
    },
    placeholderData: (previous) => previous,
  });
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">{page.title}</h1>
      {filters.length > 0 && (
        <FilterBar filters={filters} values={params.filters} onChange={setFilter} onApply={setFilters} />
      )}
      {page.tool === 'audit' && <AuditTools category={params.filters.category} />}
      {page.create && <SchemaForm path={page.apiPath} title={page.create} invalidate={page.apiPath} />}
      {page.extraForm && (
        <SchemaForm
          path={page.extraForm.path}
          title={page.extraForm.label}
          invalidate={page.apiPath}
          submitLabel="Evaluate"
          doneLabel="Evaluated:"
        />
      )}
      {notice && (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
      <ErrorNotice error={list.error} />
      {list.data && list.data.data.length === 0 && <p className="empty">{page.empty}</p>}
      {list.data && list.data.data.length > 0 && (
        <table>
          <thead>
            <tr>
              {page.columns.map((column) => (
                <th key={column.key} scope="col">
                  {column.label}
                </th>
              ))}
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.data.map((row, index) => (
              <tr key={String(row.id ?? row.event_id ?? index)}>
                {page.columns.map((column) => (
                  <td key={column.key}>
                    <Cell column={column} row={row} />
                  </td>
                ))}
                <td>
                  <div className="row-actions">
                    <button
                      type="button"
                      aria-label={`Details of ${String(row.name ?? row.subject ?? row.id ?? row.actor_id ?? index)}`}
                      aria-pressed={selected === row}
                      onClick={() => setSelected(selected === row ? undefined : row)}
                    >
                      Details
                    </button>
                    {actions.length > 0 && (
                      <RowActions
                        actions={actions}
                        row={row}
                        actorId={actorId}
                        invalidate={page.apiPath}
                        onDone={setNotice}
                      />
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page.tool === 'ca-tree' && list.data && <CaTree rows={list.data.data} />}
      {selected && (
        <>
          <RecordView
            row={selected}
            title={`Details: ${String(selected.name ?? selected.subject ?? selected.id ?? selected.actor_id)}`}
          />
          {page.detail === 'issuer-crl' && <IssuerCrlStatus issuerId={String(selected.id)} />}
          {page.detail === 'policy-violations' && <PolicyViolations ruleId={String(selected.id)} />}
          {page.detail === 'job-verification' && <JobVerification jobId={String(selected.id)} />}
          {page.edit && (
            <SchemaForm
              key={String(selected.id)}
              path={`${page.apiPath}/{id}`}
              method="PUT"
              id={String(selected.id)}
              record={selected}
              title={`Edit ${String(selected.name ?? selected.id)}`}
              invalidate={page.apiPath}
              submitLabel="Save"
            />
          )}
        </>
      )}
      {list.data && (
        <Pagination
          page={params.page}
          perPage={params.perPage}
          total={list.data.total}
          onPage={setPage}
          onPerPage={setPerPage}
        />
      )}
    </section>
  );
}
