/**
 * The audit page's NDJSON export (GET /api/v1/audit/export, spec 4.10 and 8): the query takes a
 * time window (at most 90 days; the API's default is the last 24 hours), a limit (1..100000,
 * default 10000) and the category, nothing else. The GUI always sends the window and the limit it
 * shows, so what is exported is what the page says, never a silent default.
 */
export const EXPORT_MAX_DAYS = 90;
export const EXPORT_LIMIT_MAX = 100_000;
export const EXPORT_LIMIT_DEFAULT = 10_000;
export const EXPORT_DEFAULT_HOURS = 24;

/** List filters the export cannot apply: exporting with them set would export more than listed. */
export const FILTERS_NOT_EXPORTED: Readonly<Record<string, string>> = {
  actor_id: 'actor',
  action: 'action',
  resource_type: 'resource type',
  resource_id: 'resource id',
};

/** What the export form holds: `datetime-local` values (local time; empty `to` is now) and the limit. */
export interface AuditExportForm {
  from: string;
  to: string;
  limit: string;
}

export interface AuditExportQuery {
  from: string;
  to: string;
  limit: number;
  category?: string;
}

/** A `datetime-local` value (local time, to the minute) for `date`. */
export function localInputValue(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The form a page opens with: the last 24 hours up to now, the API's default limit. */
export function defaultExportForm(now: Date): AuditExportForm {
  return {
    from: localInputValue(new Date(now.getTime() - EXPORT_DEFAULT_HOURS * 3600_000)),
    to: '',
    limit: String(EXPORT_LIMIT_DEFAULT),
  };
}

/** The list filters set that the export would not apply, in words. */
export function filtersNotExported(filters: Readonly<Record<string, string>>): string[] {
  return Object.entries(FILTERS_NOT_EXPORTED)
    .filter(([name]) => (filters[name] ?? '') !== '')
    .map(([, words]) => words);
}

/** The export query of the form and the list's category, or why it cannot be sent. */
export function auditExportQuery(
  form: AuditExportForm,
  category: string | undefined,
  now: Date,
): { query: AuditExportQuery } | { error: string } {
  const to = form.to ? new Date(form.to) : now;
  const from = form.from ? new Date(form.from) : new Date(to.getTime() - EXPORT_DEFAULT_HOURS * 3600_000);
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()))
    return { error: 'From and To must be dates.' };
  if (from.getTime() > to.getTime()) return { error: 'From must not be after To.' };
  if (to.getTime() - from.getTime() > EXPORT_MAX_DAYS * 86_400_000) {
    return { error: `The window from From to To must be at most ${EXPORT_MAX_DAYS} days.` };
  }
  const limit = Number(form.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > EXPORT_LIMIT_MAX) {
    return { error: `The limit must be a whole number from 1 to ${EXPORT_LIMIT_MAX}.` };
  }
  return {
    query: {
      from: from.toISOString(),
      to: to.toISOString(),
      limit,
      ...(category ? { category } : {}),
    },
  };
}
