import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { apiQuery } from '../lib/list-params';
import { FilterBar } from '../components/filter-bar';
import { SchemaForm } from '../components/schema-form';
import { Pagination } from '../components/pagination';
import { useListParams } from '../components/use-list-params';
import {
  ConfirmDialog,
  ErrorNotice,
  Expiry,
  ReasonSelect,
  RevocationReason,
  StatusBadge,
} from '../components/widgets';
import { ResourceFilter } from './resource-pages';

const FILTERS: ResourceFilter[] = [
  {
    name: 'status',
    label: 'Status',
    options: [
      'Pending',
      'Active',
      'Expiring',
      'Expired',
      'RenewalInProgress',
      'Failed',
      'Revoked',
      'Archived',
    ],
  },
  { name: 'environment', label: 'Environment' },
  { name: 'issuer_id', label: 'Issuer id' },
  { name: 'owner_id', label: 'Owner id' },
  { name: 'team_id', label: 'Team id' },
  { name: 'ca_id', label: 'Under CA id' },
];

const VERBS = { renew: 'Renew', revoke: 'Revoke', reassign: 'Reassign' } as const;

type Bulk =
  | { kind: 'renew' }
  /** `estOnly`: the EST variant, which revokes only the selected certificates enrolled over EST. */
  | { kind: 'revoke'; reason: string; estOnly: boolean }
  | { kind: 'reassign'; ownerId: string; teamId: string };

/** The inventory: server-paginated, filters in the URL, selection with bulk renew and revoke. */
export function CertificatesPage() {
  const { params, setPage, setPerPage, setFilter, setFilters } = useListParams(FILTERS.map((f) => f.name));
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [bulk, setBulk] = useState<Bulk>();
  const [outcome, setOutcome] = useState<string>();
  const queryClient = useQueryClient();
  const list = useQuery({
    queryKey: ['certificates', params],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/certificates', { params: { query: apiQuery(params) as Record<string, never> } }),
      ),
    placeholderData: (previous) => previous,
  });
  const run = useMutation({
    mutationFn: async (action: Bulk) => {
      const certificate_ids = [...selected];
      if (action.kind === 'renew') {
        const result = await unwrap(
          api.POST('/api/v1/certificates/bulk-renew', { body: { certificate_ids } }),
        );
        return `Renewal queued for ${result.total_enqueued} of ${result.total_matched}; ${result.total_failed} failed.`;
      }
      if (action.kind === 'reassign') {
        const result = await unwrap(
          api.POST('/api/v1/certificates/bulk-reassign', {
            body: {
              certificate_ids,
              owner_id: action.ownerId,
              ...(action.teamId ? { team_id: action.teamId } : {}),
            },
          }),
        );
        return `Reassigned ${result.total_reassigned} of ${result.total_matched}; ${result.total_skipped} skipped, ${result.total_failed} failed.`;
      }
      const body = { certificate_ids, reason: action.reason as RevocationReason };
      const result = await unwrap(
        action.estOnly
          ? api.POST('/api/v1/est/certificates/bulk-revoke', { body })
          : api.POST('/api/v1/certificates/bulk-revoke', { body }),
      );
      const caNotTold =
        result.total_recorded_only > 0
          ? ` ${result.total_recorded_only} recorded in Certlane only (their issuer cannot revoke at its CA yet: revoke them there too).`
          : '';
      return `Revoked ${result.total_revoked} of ${result.total_matched}; ${result.total_skipped} skipped, ${result.total_failed} failed.${caNotTold}`;
    },
    onSuccess: (message) => {
      setOutcome(message);
      setSelected(new Set());
      setBulk(undefined);
      void queryClient.invalidateQueries({ queryKey: ['certificates'] });
      void queryClient.invalidateQueries({ queryKey: ['stats-summary'] });
    },
  });
  const rows = list.data?.data ?? [];
  const toggle = (id: string) =>
    setSelected((was) => {
      const next = new Set(was);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const allOnPage = rows.length > 0 && rows.every((row) => selected.has(row.id));
  const count = selected.size;
  const noun = `${count} certificate${count === 1 ? '' : 's'}`;
  const estOnly = bulk?.kind === 'revoke' && bulk.estOnly;
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Certificates</h1>
      <SchemaForm path="/api/v1/certificates" title="New certificate" invalidate="certificates" />
      <FilterBar filters={FILTERS} values={params.filters} onChange={setFilter} onApply={setFilters} />
      <div className="bulk-bar" aria-live="polite">
        <span>{count > 0 ? `${noun} selected` : 'Select certificates for bulk actions'}</span>
        <button type="button" disabled={count === 0} onClick={() => setBulk({ kind: 'renew' })}>
          Renew selected
        </button>
        <button
          type="button"
          disabled={count === 0}
          onClick={() => setBulk({ kind: 'reassign', ownerId: '', teamId: '' })}
        >
          Reassign selected
        </button>
        <button
          type="button"
          className="danger"
          disabled={count === 0}
          onClick={() => setBulk({ kind: 'revoke', reason: '', estOnly: false })}
        >
          Revoke selected
        </button>
        <button
          type="button"
          className="danger"
          disabled={count === 0}
          onClick={() => setBulk({ kind: 'revoke', reason: '', estOnly: true })}
        >
          Revoke the selected EST certificates
        </button>
      </div>
      {outcome && (
        <p role="status" className="notice">
          {outcome}
        </p>
      )}
      <ErrorNotice error={list.error} />
      {list.data && rows.length === 0 && (
        <p className="empty">
          No certificates match. Clear the filters, or create one with POST /api/v1/certificates.
        </p>
      )}
      {rows.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">
                <input
                  type="checkbox"
                  aria-label="Select every certificate on this page"
                  checked={allOnPage}
                  onChange={() =>
                    setSelected((was) => {
                      const next = new Set(was);
                      for (const row of rows) {
                        if (allOnPage) next.delete(row.id);
                        else next.add(row.id);
                      }
                      return next;
                    })
                  }
                />
              </th>
              <th scope="col">Name</th>
              <th scope="col">Common name</th>
              <th scope="col">Status</th>
              <th scope="col">Environment</th>
              <th scope="col">Expires</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Select ${row.name}`}
                    checked={selected.has(row.id)}
                    onChange={() => toggle(row.id)}
                  />
                </td>
                <td>
                  <Link to={`/certificates/${row.id}`}>{row.name}</Link>
                </td>
                <td>{row.common_name}</td>
                <td>
                  <StatusBadge status={row.status} />
                </td>
                <td>{row.environment}</td>
                <td>
                  <Expiry value={row.expires_at} status={row.status} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
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
      {bulk && (
        <ConfirmDialog
          title={`${VERBS[bulk.kind]} ${noun}${estOnly ? ' (EST only)' : ''}?`}
          confirmLabel={`${VERBS[bulk.kind]} ${noun}${estOnly ? ' (EST only)' : ''}`}
          confirmDisabled={
            run.isPending ||
            (bulk.kind === 'revoke' && !bulk.reason) ||
            (bulk.kind === 'reassign' && !bulk.ownerId.trim())
          }
          onCancel={() => setBulk(undefined)}
          onConfirm={() => run.mutate(bulk)}
        >
          {bulk.kind === 'revoke' && (
            <>
              {bulk.estOnly && (
                <p>Only those enrolled over EST are revoked; the others selected are left as they are.</p>
              )}
              <p>Revocation cannot be undone (except certificateHold).</p>
              <ReasonSelect value={bulk.reason} onChange={(reason) => setBulk({ ...bulk, reason })} />
            </>
          )}
          {bulk.kind === 'reassign' && (
            <>
              <label htmlFor="reassign-owner">New owner id (required)</label>
              <input
                id="reassign-owner"
                required
                value={bulk.ownerId}
                onChange={(event) => setBulk({ ...bulk, ownerId: event.target.value })}
              />
              <label htmlFor="reassign-team">New team id (optional)</label>
              <input
                id="reassign-team"
                value={bulk.teamId}
                onChange={(event) => setBulk({ ...bulk, teamId: event.target.value })}
              />
            </>
          )}
          <ErrorNotice error={run.error} />
        </ConfirmDialog>
      )}
    </section>
  );
}
