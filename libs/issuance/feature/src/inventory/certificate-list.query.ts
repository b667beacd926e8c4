import type { CertificateStatus } from '@certlane/contracts';

/**
 * The SQL of GET /api/v1/certificates (spec 2.1, 4.2; ADR 0024), written once so its plans can be
 * reviewed and measured (bench/inventory, bench/README.md "## inventory"). Pure: no I/O, no Nest.
 *
 * - Filters are ANDed equalities; each has an index ending in `id` (migration 0004), so a page is
 *   an index range read in list order. Values go in as parameters, never into the text.
 * - The page is a *deferred join*: the ids of the page are found first, by an index-only scan of
 *   the filter's index (or the primary key), and only those `per_page` rows are read from the
 *   table. A deep OFFSET then skips index entries, not table rows: page 10,000 of 50 reads
 *   500,000 index tuples (a few tens of ms after VACUUM) instead of 500,000 heap rows.
 * - `total` is exact: with at most one filter it is read from the per-filter counts of migration
 *   0005 (a COUNT(*) of a million rows costs 100+ ms even as a parallel index-only scan); with
 *   more it is COUNT(*) with the same filter. Index-only scans need the visibility map to be
 *   current: autovacuum keeps it so in steady state; a bulk load must be followed by VACUUM.
 * - Run the page and the count concurrently (two statements on two pool connections).
 */
export interface CertificateListFilter {
  status?: CertificateStatus;
  environment?: string;
  owner_id?: string;
  team_id?: string;
  issuer_id?: string;
}

export interface SqlStatement {
  text: string;
  values: unknown[];
}

/** Every stored column of a certificate, in ADR 0024's order. */
export const CERTIFICATE_COLUMNS = [
  'id',
  'name',
  'common_name',
  'sans',
  'environment',
  'owner_id',
  'team_id',
  'issuer_id',
  'renewal_policy_id',
  'profile_id',
  'agent_id',
  'source',
  'status',
  'key_algorithm',
  'tags',
  'not_before',
  'expires_at',
  'current_version_id',
  'last_renewed_at',
  'revoked_at',
  'revocation_reason',
  'created_at',
  'updated_at',
] as const;

/** The filterable columns, in the order their conditions are written. */
const FILTER_COLUMNS = ['status', 'environment', 'owner_id', 'team_id', 'issuer_id'] as const;

/** `WHERE a = $k AND b = $k+1 ...` for the filters present (none: ''), numbering from `first`. */
export function certificateListWhere(
  filter: CertificateListFilter,
  first = 1,
): { clause: string; values: string[] } {
  const conditions: string[] = [];
  const values: string[] = [];
  for (const column of FILTER_COLUMNS) {
    const value = filter[column];
    if (value === undefined) continue;
    values.push(value);
    conditions.push(`${column} = $${first + values.length - 1}`);
  }
  return { clause: conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '', values };
}

/**
 * One page in id order: `per_page` rows after `offset` of the filtered list. The inner query
 * touches only the index; the outer join reads the page's rows by primary key.
 */
export function certificateListPageQuery(
  filter: CertificateListFilter,
  page: { per_page: number; offset: number },
): SqlStatement {
  const { clause, values } = certificateListWhere(filter, 3);
  const columns = CERTIFICATE_COLUMNS.map((column) => `c.${column}`).join(', ');
  return {
    text: `SELECT ${columns}
FROM (SELECT id FROM certificates ${clause} ORDER BY id LIMIT $1 OFFSET $2) AS page
JOIN certificates c ON c.id = page.id
ORDER BY c.id`,
    values: [page.per_page, page.offset, ...values],
  };
}

/**
 * Keyset alternative for deep pages (not part of spec 2.1's page/per_page; an additive
 * `after=<id>` parameter would expose it): the `per_page` rows after `afterId` in id order. Its
 * cost does not grow with depth, where OFFSET skips `offset` index entries (about 20-50 ms at
 * 500,000 on the bench VM, bench/README.md "## inventory").
 */
export function certificateListAfterQuery(
  filter: CertificateListFilter,
  afterId: string,
  perPage: number,
): SqlStatement {
  const { clause, values } = certificateListWhere(filter, 3);
  const where = clause ? `${clause} AND id > $2` : 'WHERE id > $2';
  const columns = CERTIFICATE_COLUMNS.join(', ');
  return {
    text: `SELECT ${columns} FROM certificates ${where} ORDER BY id LIMIT $1`,
    values: [perPage, afterId, ...values],
  };
}

/**
 * The exact number of certificates the filter matches (`total` of the envelope). With no filter
 * or one, the sum of that key's deltas in certificate_count_deltas (migration 0005: kept by
 * triggers, compacted by CertificateCountCompactor), a few index entries instead of up to a
 * million. With two or more filters, COUNT(*) on the most selective index the planner finds.
 */
export function certificateListCountQuery(filter: CertificateListFilter): SqlStatement {
  const { clause, values } = certificateListWhere(filter);
  if (values.length <= 1) {
    const dimension = FILTER_COLUMNS.find((column) => filter[column] !== undefined) ?? '';
    return {
      text: `SELECT coalesce(sum(delta), 0)::int AS total FROM certificate_count_deltas WHERE dimension = $1 AND value = $2`,
      values: [dimension, values[0] ?? ''],
    };
  }
  return { text: `SELECT count(*)::int AS total FROM certificates ${clause}`, values };
}
