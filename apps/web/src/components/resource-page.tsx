import { useState, useSyncExternalStore } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { auth } from '../api/auth-store';
import { api, unwrap } from '../api/client';
import { apiQuery, ListParams } from '../lib/list-params';
import { editOperation, ResourceColumn, ResourcePageSpec, Row, rowName } from '../pages/resource-pages';
import { RowActions } from './row-actions';
import { PageActions } from './page-actions';
import { ShownOnce, useOnceSecret } from './shown-once';
import { AuditTools } from './audit-tools';
import { SchemaForm } from './schema-form';
import { RecordView } from './record-view';
import {
  CaCertificatesUnder,
  CaCrossCertificates,
  CaTree,
  IssuerCrlStatus,
  JobVerification,
  OidcKeySet,
  PolicyViolations,
} from './page-tools';
import { DiscoverySummary, HealthHistory, HealthSummary } from './monitoring-tools';
import { AcmeOrderAuthorizations, ScepMdmStats } from './protocol-tools';
import { ExpiryDigest } from './digest-tools';
import { PermissionCatalogue } from './role-tools';
import { ErrorNotice, Expiry, StatusBadge, Time } from './widgets';
import { Pagination } from './pagination';
import { useListParams } from './use-list-params';
import { FilterBar } from './filter-bar';
import { BulkActions, rowId } from './bulk-actions';
import { SelectAll, SelectRow } from './row-selection';

type Page = { data: Row[]; total: number };

/** Text longer than this may break anywhere (a fingerprint in an error). */
const LONG_TEXT = 40;

/** How often a page with work in progress (a running scan) asks again. */
const LIVE_INTERVAL_MS = 2000;

/** The API query of a page: its filters, with the paging its operation takes. */
function pageQuery(page: ResourcePageSpec, params: ListParams): Record<string, string | number> {
  if (page.paging === 'none') return { ...params.filters };
  if (page.paging === 'limit') return { ...params.filters, limit: params.perPage };
  return apiQuery(params);
}

/** The rows and total of a list answer: `{data, total}`, a bare array, or rows under another key. */
export function pageOf(body: unknown, rowsKey = 'data'): Page {
  if (Array.isArray(body)) return { data: body as Row[], total: body.length };
  const record = body as Record<string, unknown>;
  const rows = (record[rowsKey] ?? []) as Row[];
  return { data: rows, total: typeof record.total === 'number' ? record.total : rows.length };
}

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
    case 'approval-subject':
      return <ApprovalSubject row={row} />;
    case 'list':
      // Objects with a `value` (ACME identifiers) show it.
      return (
        <>
          {Array.isArray(value) && value.length > 0
            ? value
                .map((item) => (typeof item === 'object' && item && 'value' in item ? item.value : item))
                .join(', ')
            : '—'}
        </>
      );
    case 'progress': {
      const done = Number(value ?? 0);
      const whole = Number(row[column.of ?? ''] ?? 0);
      return (
        <span className="progress">
          <progress max={Math.max(whole, 1)} value={done} aria-label={`${done} of ${whole}`} /> {done} of{' '}
          {whole}
        </span>
      );
    }
    default: {
      if (value === null || value === undefined || value === '') return <>—</>;
      const text = String(value);
      // Only long text may break inside a word: names, badges and buttons keep theirs whole.
      return text.length > LONG_TEXT ? <span className="long-text">{text}</span> : <>{text}</>;
    }
  }
}

/**
 * What an approval is for: an external enrollment (SCEP) shows its CSR's subject, DNS names and
 * key, where it came from and how it stands, with the certificate once issued; a managed
 * certificate's issuance links to the certificate.
 */
export function ApprovalSubject({ row }: { row: Row }) {
  const certificate = row.certificate_id ? (
    <Link to={`/certificates/${String(row.certificate_id)}`}>{String(row.certificate_id)}</Link>
  ) : null;
  const enrollment = row.enrollment as
    | {
        source: string;
        state: string;
        subject: string;
        dns_names: string[];
        key_algorithm: string;
        reference: Record<string, string>;
      }
    | null
    | undefined;
  if (!enrollment) return certificate ?? <>—</>;
  const where = Object.entries(enrollment.reference)
    .map(([key, value]) => `${key} ${value.length > 16 ? `${value.slice(0, 16)}…` : value}`)
    .join(', ');
  return (
    <span className="approval-subject">
      <strong>{enrollment.source} enrollment</strong>{' '}
      <span className="long-text">{enrollment.subject || '(no subject)'}</span>
      {enrollment.dns_names.length > 0 ? <> · DNS {enrollment.dns_names.join(', ')}</> : null} ·{' '}
      {enrollment.key_algorithm}
      {where ? <> · {where}</> : null}
      {enrollment.state !== 'pending' ? <> · {enrollment.state}</> : null}
      {certificate ? <> · {certificate}</> : null}
    </span>
  );
}

/** A server-paginated table of one list operation, its filters and page in the URL. */
export function ResourcePage({ page }: { page: ResourcePageSpec }) {
  const filters = page.filters ?? [];
  const { params, setPage, setPerPage, setFilter, setFilters } = useListParams(filters.map((f) => f.name));
  const state = useSyncExternalStore(auth.subscribe, auth.get);
  const actorId = state.status === 'signed-in' ? state.actorId : '';
  const [notice, setNotice] = useState<string>();
  const [secret, setSecret] = useOnceSecret();
  const [picked, setSelected] = useState<Row>();
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const actions = page.actions ?? [];
  const edit = editOperation(page);
  const list = useQuery({
    queryKey: [page.apiPath, params],
    queryFn: async () => {
      const body = await unwrap(
        // The spec of the page names a list operation; its query is the page and its filters.
        api.GET(page.apiPath as '/api/v1/agents', {
          params: { query: pageQuery(page, params) as ReturnType<typeof apiQuery> },
        }),
      );
      return pageOf(body, page.rowsKey);
    },
    placeholderData: (previous) => previous,
    refetchInterval: (query) =>
      page.liveWhile && query.state.data?.data.some(page.liveWhile) ? LIVE_INTERVAL_MS : false,
  });
  // Only rows on the page shown stay selected: a row that left it (dismissed, filtered) drops out.
  const rows = list.data?.data ?? [];
  // The record whose details are open, as listed now: after an edit is saved the list is asked
  // again, and the details and the edit form show (and start from) what was stored.
  const selected =
    picked && picked.id !== undefined ? (rows.find((row) => row.id === picked.id) ?? picked) : picked;
  const selectedRows = page.bulk ? rows.filter((row) => chosen.has(rowId(row))) : [];
  const toggle = (ids: readonly string[], on: boolean) =>
    setChosen((before) => {
      const next = new Set(before);
      for (const id of ids)
        if (on) next.add(id);
        else next.delete(id);
      return next;
    });
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">{page.title}</h1>
      {filters.length > 0 && (
        <FilterBar filters={filters} values={params.filters} onChange={setFilter} onApply={setFilters} />
      )}
      {page.tool === 'audit' && <AuditTools filters={params.filters} />}
      {page.tool === 'health-summary' && <HealthSummary />}
      {page.tool === 'discovery-summary' && <DiscoverySummary />}
      {page.tool === 'permission-catalogue' && <PermissionCatalogue />}
      {page.create && <SchemaForm path={page.apiPath} title={page.create} invalidate={page.apiPath} />}
      {page.forms?.map((form) => (
        <SchemaForm
          key={form.path}
          path={form.path}
          method={form.method}
          title={form.label}
          invalidate={page.apiPath}
          submitLabel={form.submitLabel}
          doneLabel={form.doneLabel}
          pathOptions={form.pathOptions}
        />
      ))}
      {page.pageActions && (
        <PageActions actions={page.pageActions} invalidate={page.apiPath} onDone={setNotice} />
      )}
      {notice && (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
      {secret && <ShownOnce secret={secret} onDismiss={() => setSecret(undefined)} />}
      <ErrorNotice error={list.error} />
      {page.bulk && rows.length > 0 && (
        <BulkActions
          actions={page.bulk.actions}
          rows={selectedRows}
          noun={page.bulk.noun}
          invalidate={page.apiPath}
          onClear={() => setChosen(new Set())}
        />
      )}
      {list.data && list.data.data.length === 0 && <p className="empty">{page.empty}</p>}
      {list.data && list.data.data.length > 0 && (
        <table>
          <thead>
            <tr>
              {page.bulk && (
                <th scope="col" className="select">
                  <SelectAll
                    selected={selectedRows.length}
                    total={rows.length}
                    onChange={(on) => toggle(rows.map(rowId), on)}
                  />
                </th>
              )}
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
              <tr
                key={String(row.id ?? row.event_id ?? `${rowName(row)}-${index}`)}
                className={page.bulk && chosen.has(rowId(row)) ? 'selected' : undefined}
              >
                {page.bulk && (
                  <td className="select">
                    <SelectRow
                      name={rowName(row)}
                      checked={chosen.has(rowId(row))}
                      onChange={(on) => toggle([rowId(row)], on)}
                    />
                  </td>
                )}
                {page.columns.map((column) => (
                  <td key={column.key}>
                    <Cell column={column} row={row} />
                  </td>
                ))}
                <td>
                  <div className="row-actions">
                    <button
                      type="button"
                      aria-label={`Details of ${rowName(row)}`}
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
                        onDone={(message, shown) => {
                          setNotice(message);
                          setSecret(shown);
                        }}
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
          <RecordView row={selected} title={`Details: ${rowName(selected)}`} />
          {page.detail === 'issuer-crl' && <IssuerCrlStatus issuerId={String(selected.id)} />}
          {page.detail === 'ca-cross-certificates' && (
            <>
              <CaCertificatesUnder caId={String(selected.id)} />
              <CaCrossCertificates caId={String(selected.id)} />
            </>
          )}
          {page.detail === 'policy-violations' && <PolicyViolations ruleId={String(selected.id)} />}
          {page.detail === 'job-verification' && <JobVerification jobId={String(selected.id)} />}
          {page.detail === 'health-history' && <HealthHistory checkId={String(selected.id)} />}
          {page.detail === 'oidc-key-set' && <OidcKeySet providerId={String(selected.id)} />}
          {page.detail === 'acme-order' && <AcmeOrderAuthorizations orderId={String(selected.id)} />}
          {page.detail === 'scep-mdm-stats' && <ScepMdmStats pathId={String(selected.path_id)} />}
          {page.detail === 'owner-digest' && <ExpiryDigest kind="owner" subjectId={String(selected.id)} />}
          {page.detail === 'team-digest' && <ExpiryDigest kind="team" subjectId={String(selected.id)} />}
          {edit && (
            <SchemaForm
              key={String(selected.id)}
              path={edit.path}
              method={edit.method}
              id={String(selected.id)}
              record={edit.values ? edit.values(selected) : selected}
              title={`Edit ${rowName(selected)}`}
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
