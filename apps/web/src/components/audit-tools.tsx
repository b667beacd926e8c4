import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import {
  AuditExportQuery,
  auditExportQuery,
  defaultExportForm,
  EXPORT_LIMIT_MAX,
  filtersNotExported,
} from '../lib/audit-export';
import { ErrorNotice } from './widgets';

/**
 * The audit chain check and the NDJSON export. The export takes a time window, a limit and the
 * list's category (all the API's export takes): the window and limit are on the form and always
 * sent, and while the list is filtered by what the export cannot apply (actor, action, resource)
 * the export is refused with the reason, rather than exporting more than the list shows.
 */
export function AuditTools({ filters }: { filters: Readonly<Record<string, string>> }) {
  const verify = useMutation({ mutationFn: () => unwrap(api.GET('/api/v1/audit/verify')) });
  const [form, setForm] = useState(() => defaultExportForm(new Date()));
  const [invalid, setInvalid] = useState<string>();
  const [exported, setExported] = useState<string>();
  const category = filters.category || undefined;
  const notExported = filtersNotExported(filters);
  const exportFile = useMutation({
    mutationFn: async (query: AuditExportQuery) => {
      const answer = await api.GET('/api/v1/audit/export', { params: { query }, parseAs: 'blob' });
      const blob = (await unwrap(Promise.resolve(answer))) as Blob;
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = 'audit.ndjson';
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
      return query;
    },
    onSuccess: (query) =>
      setExported(
        `Exported the ${query.category ? `${query.category} ` : ''}events from ${query.from} to ${query.to}, at most ${query.limit}.`,
      ),
  });
  const start = () => {
    setExported(undefined);
    const built = auditExportQuery(form, category, new Date());
    if ('error' in built) return setInvalid(built.error);
    setInvalid(undefined);
    exportFile.mutate(built.query);
  };
  return (
    <div className="actions audit-tools">
      <button type="button" onClick={() => verify.mutate()} disabled={verify.isPending}>
        Verify the chain
      </button>
      {verify.data && (
        <p role="status" className="notice">
          {verify.data.ok
            ? `Chain intact: ${verify.data.checked} events checked.`
            : `Chain broken after ${verify.data.checked} events.`}
        </p>
      )}
      <ErrorNotice error={verify.error} />
      <fieldset className="audit-export">
        <legend>Export NDJSON</legend>
        <label htmlFor="audit-export-from">From</label>
        <input
          id="audit-export-from"
          type="datetime-local"
          value={form.from}
          onChange={(event) => setForm({ ...form, from: event.target.value })}
        />
        <label htmlFor="audit-export-to">To (empty: now)</label>
        <input
          id="audit-export-to"
          type="datetime-local"
          value={form.to}
          onChange={(event) => setForm({ ...form, to: event.target.value })}
        />
        <label htmlFor="audit-export-limit">Limit</label>
        <input
          id="audit-export-limit"
          type="number"
          min={1}
          max={EXPORT_LIMIT_MAX}
          step={1}
          value={form.limit}
          onChange={(event) => setForm({ ...form, limit: event.target.value })}
        />
        <p id="audit-export-scope" className="hint">
          {notExported.length > 0
            ? `The export cannot filter by ${notExported.join(', ')}: clear ${notExported.length === 1 ? 'that filter' : 'those filters'} to export.`
            : `Category: ${category ?? 'every category'}. At most 90 days.`}
        </p>
        <button
          type="button"
          onClick={start}
          disabled={exportFile.isPending || notExported.length > 0}
          aria-describedby="audit-export-scope"
        >
          Export NDJSON
        </button>
        {invalid && (
          <p role="alert" className="error">
            {invalid}
          </p>
        )}
        {exported && (
          <p role="status" className="notice">
            {exported}
          </p>
        )}
        <ErrorNotice error={exportFile.error} />
      </fieldset>
    </div>
  );
}
