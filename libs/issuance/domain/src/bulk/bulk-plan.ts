import {
  BulkCriteria,
  BulkItemError,
  CertificateSource,
  CertificateStatus,
  JobStatus,
} from '@certlane/contracts';
import { nextCertificateStatus, skippedByBulkRenew } from '../certificates/certificate-status';

/**
 * The reference filters of criteria mode, ANDed (spec 4.2). `ca_id` is not a column: it selects
 * the certificates whose current version a CA or a CA below it signed (ADR 0076).
 */
export const BULK_FILTER_FIELDS = [
  'profile_id',
  'owner_id',
  'agent_id',
  'issuer_id',
  'team_id',
  'ca_id',
] as const;
export type BulkFilterField = (typeof BULK_FILTER_FIELDS)[number];

/**
 * Which certificates a bulk call selects: the ids it names (ids mode) or the rows matching every
 * given filter (criteria mode). `source` narrows either; `''` (Unspecified) matches any source.
 */
export type BulkSelection =
  | { mode: 'ids'; ids: string[]; filters: BulkFilters; source: CertificateSource }
  | { mode: 'criteria'; filters: BulkFilters; source: CertificateSource };

export type BulkFilters = Partial<Record<BulkFilterField, string>>;

export type SelectionResult = { ok: true; selection: BulkSelection } | { ok: false; message: string };

/**
 * Reads a bulk body into a selection. Empty criteria (nothing, empty strings, an empty id list,
 * or `source` alone) are refused: `source` narrows and is never a criterion on its own. Ids are
 * de-duplicated and sorted (batches walk them in key order). When both ids and filters are given,
 * ids mode wins and the filters narrow it too.
 */
export function bulkSelection(criteria: BulkCriteria, forcedSource?: CertificateSource): SelectionResult {
  const source: CertificateSource = forcedSource ?? criteria.source ?? '';
  const filters: BulkFilters = {};
  for (const field of BULK_FILTER_FIELDS) {
    const value = criteria[field];
    if (typeof value === 'string' && value !== '') filters[field] = value;
  }
  const ids = [...new Set(criteria.certificate_ids ?? [])].sort();
  if (ids.length > 0) return { ok: true, selection: { mode: 'ids', ids, filters, source } };
  if (Object.keys(filters).length > 0) return { ok: true, selection: { mode: 'criteria', filters, source } };
  const wanted = `name certificate_ids or at least one of ${BULK_FILTER_FIELDS.join(', ')}`;
  return {
    ok: false,
    message: criteria.source ? `source alone is too broad: ${wanted}` : `empty bulk criteria: ${wanted}`,
  };
}

/**
 * A certificate as a bulk batch reads it (locked for the batch's transaction). In ids mode,
 * `matches_filters` says whether it matches every filter given beside the ids.
 */
export interface BulkRow {
  id: string;
  status: CertificateStatus;
  source: CertificateSource;
  matches_filters?: boolean;
}

/** An id of ids mode that did not become a matched row: absent, excluded by a filter or by `source`. */
export function unmatchedIdErrors(
  ids: readonly string[],
  rows: readonly BulkRow[],
  source: CertificateSource,
): BulkItemError[] {
  const found = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id): BulkItemError[] => {
    const row = found.get(id);
    if (!row) return [{ certificate_id: id, message: 'not found' }];
    if (row.matches_filters === false) return [{ certificate_id: id, message: 'does not match the filters' }];
    if (source !== '' && row.source !== source) {
      return [{ certificate_id: id, message: `source is ${row.source || 'Unspecified'}, not ${source}` }];
    }
    return [];
  });
}

/** Whether an ids-mode row is one to change: it matches the filters and `source`. */
export function matchesSelection(row: BulkRow, source: CertificateSource): boolean {
  return row.matches_filters !== false && (source === '' || row.source === source);
}

export interface StatusChange {
  id: string;
  from: CertificateStatus;
  to: CertificateStatus;
}

export interface BatchPlan {
  change: StatusChange[];
  skipped: string[];
}

/** Bulk revoke: everything not yet Revoked becomes Revoked (the state machine's `revoke`). */
export function planBulkRevoke(rows: readonly BulkRow[]): BatchPlan {
  const plan: BatchPlan = { change: [], skipped: [] };
  for (const row of rows) {
    if (row.status === 'Revoked') {
      plan.skipped.push(row.id);
      continue;
    }
    const next = nextCertificateStatus(row.status, { kind: 'revoke' });
    if (next.ok) plan.change.push({ id: row.id, from: row.status, to: next.to });
    else plan.skipped.push(row.id);
  }
  return plan;
}

/**
 * Bulk renew: Archived, Revoked, Expired and RenewalInProgress are silently skipped (spec 3);
 * the rest move as a single renew without force would.
 */
export function planBulkRenew(rows: readonly BulkRow[]): BatchPlan {
  const plan: BatchPlan = { change: [], skipped: [] };
  for (const row of rows) {
    const next = skippedByBulkRenew(row.status)
      ? null
      : nextCertificateStatus(row.status, { kind: 'renew', force: false });
    if (next?.ok) plan.change.push({ id: row.id, from: row.status, to: next.to });
    else plan.skipped.push(row.id);
  }
  return plan;
}

export interface OwnedRow {
  id: string;
  owner_id: string | null;
  team_id: string | null;
}

/** Bulk reassign: rows already owned by the owner (and team, when one is given) are skipped. */
export function planBulkReassign(
  rows: readonly OwnedRow[],
  ownerId: string,
  teamId: string | undefined,
): { change: string[]; skipped: string[] } {
  const change: string[] = [];
  const skipped: string[] = [];
  for (const row of rows) {
    const same = row.owner_id === ownerId && (teamId === undefined || row.team_id === teamId);
    (same ? skipped : change).push(row.id);
  }
  return { change, skipped };
}

/** A renewal job's first status: AwaitingCSR when the agent makes the key, Pending when the server does. */
export function initialRenewalJobStatus(keygenMode: 'agent' | 'server'): JobStatus {
  return keygenMode === 'agent' ? 'AwaitingCSR' : 'Pending';
}

/**
 * A list that keeps at most `limit` items and counts the rest, so a bulk result stays small at
 * 100,000 certificates (its totals stay exact).
 */
export class CappedList<T> {
  readonly items: T[] = [];
  private dropped = 0;

  constructor(private readonly limit: number) {}

  push(...items: T[]): void {
    for (const item of items) {
      if (this.items.length < this.limit) this.items.push(item);
      else this.dropped++;
    }
  }

  get truncated(): boolean {
    return this.dropped > 0;
  }

  get total(): number {
    return this.items.length + this.dropped;
  }
}

/** Splits a sorted id list into batches. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
