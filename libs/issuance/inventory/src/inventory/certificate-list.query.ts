import type { CertificateStatus } from '@certlane/contracts';

/**
 * The SQL of GET /api/v1/certificates (spec 2.1, 4.2; ADR 0024), written once so its plans can be
 * reviewed and measured (bench/inventory, bench/README.md "## inventory"). Pure: no I/O, no Nest.
 *
 * - Filters are ANDed equalities; each has an index ending in `id` (migration 0004), so a page is
 *   an index range read in list order. Values go in as parameters, never into the text.
 * - A first page (nothing skipped) reads its rows straight from that index range.
 * - The page is a *deferred join*: the ids of the page are found first, by an index-only scan of
 *   the filter's index (or the primary key), and only those `per_page` rows are read from the
 *   table. A deep OFFSET then skips index entries, not table rows: page 10,000 of 50 reads
 *   500,000 index tuples (a few tens of ms after VACUUM) instead of 500,000 heap rows.
 * - `total` is exact: with at most one filter it is read from the per-filter counts of migration
 *   0005 (a COUNT(*) of a million rows costs 100+ ms even as a parallel index-only scan); with
 *   more it is COUNT(*) with the same filter. Index-only scans need the visibility map to be
 *   current: autovacuum keeps it so in steady state; a bulk load must be followed by VACUUM.
 * - Run the page and the count concurrently (two statements on two pool connections).
 * - With no filter or one, a statement is named (prepared once per connection, parsed once): an
 *   equality on one column with an index on (column, id) has one best plan whatever the value.
 *   With two or more, which index wins depends on the values (a rare status with a common
 *   environment, or the reverse), so those stay unnamed. Postgres still plans a named deferred
 *   join for its values each time (`plan_cache_mode` auto: its generic plan, with LIMIT and OFFSET
 *   unknown, would hash-join the whole table, and is costed accordingly, so never chosen); the
 *   first-page form's generic plan is the index range itself.
 */
export interface CertificateListFilter {
  status?: CertificateStatus;
  environment?: string;
  owner_id?: string;
  team_id?: string;
  issuer_id?: string;
  /**
   * The certificates under a CA (underCaCondition): the CA and every CA below it, as caTreeQuery
   * reads them. Never a named statement, always counted.
   */
  ca_tree?: readonly string[];
}

export interface SqlStatement {
  text: string;
  values: unknown[];
  /**
   * Set when one plan fits every value of the parameters, so the statement may be prepared once
   * per connection and run by this name (planning is a third of a page's Postgres time).
   */
  name?: string;
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

/**
 * The ids of a CA and of every CA below it (its children, their children...): the tree
 * underCaCondition takes, read first so the planner sees the ids themselves (a recursive CTE in
 * the same statement is estimated at a hundred rows whatever it holds, and the plan with it).
 */
export function caTreeQuery(caId: string): SqlStatement {
  return {
    text: `WITH RECURSIVE tree(id) AS (
  SELECT $1::text
  UNION
  SELECT child.id FROM ca_certificates child JOIN tree ON child.parent_id = tree.id)
SELECT array_agg(id ORDER BY id) AS ids FROM tree`,
    values: [caId],
    name: 'ca-tree',
  };
}

/**
 * The certificates whose current version was signed by one of the CAs `param` lists (a CA tree,
 * caTreeQuery; ADR 0076): what chains through that CA, so what a revocation or retirement of it
 * leaves to be renewed. A certificate renewed under another CA since is no longer under this one;
 * an imported certificate (no issued record here) is under none. Written as a correlated EXISTS
 * so the planner can go either way: from the tree's leaves (migration 0023's index on
 * issued_certificates) to their certificates by primary key when the tree signed few, or along
 * the certificates probing each one's version and issued record when it signed most of them.
 */
export function underCaCondition(param: string, alias = ''): string {
  // Qualified even without an alias: a bare `id` in the subquery would be the version's.
  const certificate = alias || 'certificates.';
  return `EXISTS (
  SELECT 1 FROM certificate_versions under_version
    JOIN issued_certificates under_issued
      ON under_issued.issuer_id = under_version.issuer_id AND under_issued.serial_hex = under_version.serial_number
   WHERE under_version.certificate_id = ${certificate}id AND under_version.id = ${certificate}current_version_id
     AND under_issued.purpose = 'leaf' AND under_issued.ca_id = ANY(${param}::text[]))`;
}

/** Whether a filter can be answered by a named statement and counted from the per-filter counts. */
const equalitiesOnly = (filter: CertificateListFilter): boolean => filter.ca_tree === undefined;

/**
 * `WHERE a = $k AND b = $k+1 ...` for the filters present, numbering from `first`; columns
 * prefixed with `alias` (like 'n.') when given. Without a status filter, Archived certificates are
 * left out (ADR 0043): a constant condition, so `values` (and which statements are named) depend
 * on the filters given only; the unfiltered list reads migration 0013's partial index.
 */
export function certificateListWhere(
  filter: CertificateListFilter,
  first = 1,
  alias = '',
): { clause: string; values: unknown[] } {
  const conditions: string[] = [];
  const values: unknown[] = [];
  for (const column of FILTER_COLUMNS) {
    const value = filter[column];
    if (value === undefined) continue;
    values.push(value);
    conditions.push(`${alias}${column} = $${first + values.length - 1}`);
  }
  if (filter.ca_tree !== undefined) {
    values.push(filter.ca_tree);
    conditions.push(underCaCondition(`$${first + values.length - 1}`, alias));
  }
  if (filter.status === undefined) conditions.push(`${alias}status <> 'Archived'`);
  return { clause: `WHERE ${conditions.join(' AND ')}`, values };
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
export function certificateListCountQuery(filter: CertificateListFilter, first = 1): SqlStatement {
  const { clause, values } = certificateListWhere(filter, first);
  if (values.length <= 1 && equalitiesOnly(filter)) {
    const dimension = FILTER_COLUMNS.find((column) => filter[column] !== undefined) ?? '';
    return {
      text: `SELECT coalesce(sum(delta), 0)::int AS total FROM certificate_count_deltas WHERE dimension = $${first} AND value = $${first + 1}`,
      values: [dimension, values[0] ?? ''],
      name: first === 1 ? 'certificate-list-count' : undefined,
    };
  }
  return { text: `SELECT count(*)::int AS total FROM certificates ${clause}`, values };
}

/**
 * `timestamptz` as the text of the UTC timestamp (`YYYY-MM-DD HH:MM:SS[.ffffff]` in DateStyle ISO,
 * which the pool pins): certificatePageJson turns it into `toISOString()`'s form. Half the Postgres
 * time of `to_char`, which reads its format pattern on every call.
 */
const utcText = (column: string) => `(${column} AT TIME ZONE 'UTC')::text`;

/**
 * Each column as the text its JSON needs (certificate-page-json.ts writes the page from these):
 * timestamps as UTC timestamp text, `sans` as a compact JSON array, `tags` as jsonb
 * text, owner/team/issuer ids '' for none. Plain strings on the wire: no `Date`, array or jsonb parsing
 * in the service (ADR 0034).
 */
const CERTIFICATE_TEXT_SELECT: Record<(typeof CERTIFICATE_COLUMNS)[number], string> = {
  id: 'c.id',
  name: 'c.name',
  common_name: 'c.common_name',
  sans: 'array_to_json(c.sans)::text',
  environment: 'c.environment',
  owner_id: "coalesce(c.owner_id, '')",
  team_id: "coalesce(c.team_id, '')",
  issuer_id: "coalesce(c.issuer_id, '')",
  renewal_policy_id: 'c.renewal_policy_id',
  profile_id: 'c.profile_id',
  agent_id: 'c.agent_id',
  source: 'c.source',
  status: 'c.status',
  key_algorithm: 'c.key_algorithm',
  tags: 'c.tags::text',
  not_before: utcText('c.not_before'),
  expires_at: utcText('c.expires_at'),
  current_version_id: 'c.current_version_id',
  last_renewed_at: utcText('c.last_renewed_at'),
  revoked_at: utcText('c.revoked_at'),
  revocation_reason: 'c.revocation_reason',
  created_at: utcText('c.created_at'),
  updated_at: utcText('c.updated_at'),
};

export interface SeekPage {
  per_page: number;
  /** Rows to skip after `afterId` (or from the start when there is none). */
  offset: number;
  /** Keyset start: only ids greater than this one (an anchor, list-anchors.ts). */
  afterId?: string;
}

/**
 * One page in id order, every column as text ready for JSON (CERTIFICATE_TEXT_SELECT). A page that
 * skips rows (`offset` > 0) is the same deferred join as certificateListPageQuery: the page's ids
 * from the index, then only those rows; with `afterId` the index range starts after that id, so a
 * deep page skips only `offset` entries past its anchor. A page that skips nothing reads its rows
 * straight from the filter's index in id order, half the Postgres time of the join (measured in
 * bench/README.md "## inventory"): there are no skipped rows for the join to save.
 */
export function certificateListTextPageQuery(filter: CertificateListFilter, page: SeekPage): SqlStatement {
  const after = page.afterId !== undefined;
  const direct = page.offset === 0;
  const { clause, values } = certificateListWhere(filter, after ? 4 : 3, direct ? 'c.' : '');
  const id = direct ? 'c.id' : 'id';
  const where = after ? (clause ? `${clause} AND ${id} > $3` : `WHERE ${id} > $3`) : clause;
  const columns = CERTIFICATE_COLUMNS.map((column) => `${CERTIFICATE_TEXT_SELECT[column]} AS ${column}`).join(
    ', ',
  );
  const filtered = FILTER_COLUMNS.filter((column) => filter[column] !== undefined);
  const shape = `${direct ? '-first' : ''}${after ? '-after' : ''}${filtered.length ? `-${filtered[0]}` : ''}`;
  return {
    text: direct
      ? `SELECT ${columns}
FROM certificates c ${where} ORDER BY c.id LIMIT $1 OFFSET $2`
      : `SELECT ${columns}
FROM (SELECT id FROM certificates ${where} ORDER BY id LIMIT $1 OFFSET $2) AS page
JOIN certificates c ON c.id = page.id
ORDER BY c.id`,
    values: after
      ? [page.per_page, page.offset, page.afterId, ...values]
      : [page.per_page, page.offset, ...values],
    name: filtered.length <= 1 && equalitiesOnly(filter) ? `certificate-list-page${shape}` : undefined,
  };
}

/**
 * The anchors of a filtered list: the id of every `spacing`-th row (positions spacing-1,
 * 2*spacing-1, ... counted from 0), in order. Each step hops `spacing` index entries from the
 * previous anchor, index-only, so the whole list is walked once (about 70 ms per million entries).
 */
export function certificateListAnchorsQuery(filter: CertificateListFilter, spacing: number): SqlStatement {
  const { clause, values } = certificateListWhere(filter, 2);
  const inner = certificateListWhere(filter, 2, 'n.').clause;
  const next = inner ? `${inner} AND n.id > a.id` : 'WHERE n.id > a.id';
  return {
    text: `WITH RECURSIVE a(id) AS (
  (SELECT id FROM certificates ${clause} ORDER BY id OFFSET $1 - 1 LIMIT 1)
  UNION ALL
  SELECT (SELECT n.id FROM certificates n ${next} ORDER BY n.id OFFSET $1 - 1 LIMIT 1)
  FROM a WHERE a.id IS NOT NULL
)
SELECT id FROM a WHERE id IS NOT NULL ORDER BY id`,
    values: [spacing, ...values],
  };
}

/**
 * A page and its total in one statement (one round trip instead of two): the text page of
 * certificateListTextPageQuery (from the start or after an anchor) with the count of
 * certificateListCountQuery as a `total` column, an uncorrelated subquery Postgres evaluates once.
 * A page with no rows carries no total; the caller counts separately then (a page past the end, or
 * a filter nothing matches).
 */
export function certificateListCountedPageQuery(filter: CertificateListFilter, page: SeekPage): SqlStatement {
  const rows = certificateListTextPageQuery(filter, page);
  const count = certificateListCountQuery(filter, rows.values.length + 1);
  const [select, from] = splitOnce(rows.text, '\nFROM ');
  return {
    text: `${select}, (${count.text}) AS total\nFROM ${from}`,
    values: [...rows.values, ...count.values],
    name: rows.name?.replace('certificate-list-page', 'certificate-list-counted-page'),
  };
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return [text.slice(0, at), text.slice(at + separator.length)];
}
