import {
  CERTIFICATE_COLUMNS,
  certificateListAfterQuery,
  certificateListAnchorsQuery,
  certificateListCountedPageQuery,
  certificateListCountQuery,
  certificateListTextPageQuery,
  certificateListPageQuery,
  certificateListWhere,
  underCaCondition,
  caTreeQuery,
} from './certificate-list.query';

describe('certificate list SQL', () => {
  it('leaves Archived certificates out when no status is asked for, and only then', () => {
    expect(certificateListWhere({})).toEqual({ clause: "WHERE status <> 'Archived'", values: [] });
    expect(certificateListWhere({ environment: 'prod' }, 1, 'c.')).toEqual({
      clause: "WHERE c.environment = $1 AND c.status <> 'Archived'",
      values: ['prod'],
    });
    expect(certificateListWhere({ status: 'Archived' })).toEqual({
      clause: 'WHERE status = $1',
      values: ['Archived'],
    });
  });

  it('counts with no filter or one from the per-filter counts, with more by COUNT(*)', () => {
    const fromCounts =
      'SELECT coalesce(sum(delta), 0)::int AS total FROM certificate_count_deltas WHERE dimension = $1 AND value = $2';
    const name = 'certificate-list-count';
    expect(certificateListCountQuery({})).toEqual({ text: fromCounts, values: ['', ''], name });
    expect(certificateListCountQuery({ team_id: 't1' })).toEqual({
      text: fromCounts,
      values: ['team_id', 't1'],
      name,
    });
    expect(certificateListCountQuery({ status: 'Active', environment: 'prod' })).toEqual({
      text: 'SELECT count(*)::int AS total FROM certificates WHERE status = $1 AND environment = $2',
      values: ['Active', 'prod'],
      name: undefined,
    });
  });

  it('ANDs every filter as a parameter, in a fixed order whatever the input order', () => {
    const where = certificateListWhere({ issuer_id: 'iss-a', status: 'Active', team_id: 't1' });
    expect(where).toEqual({
      clause: 'WHERE status = $1 AND team_id = $2 AND issuer_id = $3',
      values: ['Active', 't1', 'iss-a'],
    });
  });

  it('selects the certificates under a CA tree as one array parameter after the equalities', () => {
    const tree = ['ca-a', 'ca-b'];
    const where = certificateListWhere({ ca_tree: tree, team_id: 't1' }, 3, 'n.');
    expect(where.values).toEqual(['t1', tree]);
    expect(where.clause).toBe(
      `WHERE n.team_id = $3 AND ${underCaCondition('$4', 'n.')} AND n.status <> 'Archived'`,
    );
    expect(underCaCondition('$4', 'n.')).toContain(
      'under_version.certificate_id = n.id AND under_version.id = n.current_version_id',
    );
    expect(underCaCondition('$4', 'n.')).toContain(
      "under_issued.purpose = 'leaf' AND under_issued.ca_id = ANY($4::text[])",
    );
    // Without an alias the certificate's columns are still qualified: a bare id would be the version's.
    expect(underCaCondition('$1')).toContain('under_version.certificate_id = certificates.id');
  });

  it('reads a CA tree by its id, in one named statement', () => {
    expect(caTreeQuery('ca-a')).toMatchObject({ values: ['ca-a'], name: 'ca-tree' });
    expect(caTreeQuery('ca-a').text).toContain('JOIN tree ON child.parent_id = tree.id');
  });

  it('counts and pages a CA tree with unnamed statements: its plan depends on the tree', () => {
    const filter = { ca_tree: ['ca-a'] };
    const count = certificateListCountQuery(filter);
    expect(count.text).toBe(
      `SELECT count(*)::int AS total FROM certificates ${certificateListWhere(filter).clause}`,
    );
    expect(count.values).toEqual([['ca-a']]);
    expect(count.name).toBeUndefined();
    const page = certificateListTextPageQuery(filter, { per_page: 50, offset: 0 });
    expect(page.name).toBeUndefined();
    expect(page.values).toEqual([50, 0, ['ca-a']]);
    expect(certificateListCountedPageQuery(filter, { per_page: 50, offset: 0 }).name).toBeUndefined();
  });

  it('never puts a value into the text', () => {
    const hostile = "x' OR '1'='1";
    const { text, values } = certificateListPageQuery({ owner_id: hostile }, { per_page: 50, offset: 0 });
    expect(text).not.toContain(hostile);
    expect(values).toEqual([50, 0, hostile]);
  });

  it('finds the page ids first (LIMIT/OFFSET on the index), then reads only those rows, in id order', () => {
    const { text, values } = certificateListPageQuery(
      { status: 'Expired' },
      { per_page: 50, offset: 499_950 },
    );
    expect(text).toContain(
      'FROM (SELECT id FROM certificates WHERE status = $3 ORDER BY id LIMIT $1 OFFSET $2) AS page',
    );
    expect(text).toMatch(/ORDER BY c\.id$/);
    expect(values).toEqual([50, 499_950, 'Expired']);
    for (const column of CERTIFICATE_COLUMNS) expect(text).toContain(`c.${column}`);
  });

  it('reads a keyset page after an id, with the filters', () => {
    expect(certificateListAfterQuery({ status: 'Active' }, 'mc-0500000', 50)).toEqual({
      text: `SELECT ${CERTIFICATE_COLUMNS.join(', ')} FROM certificates WHERE status = $3 AND id > $2 ORDER BY id LIMIT $1`,
      values: [50, 'mc-0500000', 'Active'],
    });
    expect(certificateListAfterQuery({}, 'x', 10).text).toContain(
      "WHERE status <> 'Archived' AND id > $2 ORDER BY id LIMIT $1",
    );
  });

  it('prefixes filter columns with an alias when asked', () => {
    expect(certificateListWhere({ status: 'Active', issuer_id: 'i' }, 2, 'n.').clause).toBe(
      'WHERE n.status = $2 AND n.issuer_id = $3',
    );
  });

  it('reads the text page from the same deferred join, each column under its DTO name in DTO order', () => {
    const { text, values } = certificateListTextPageQuery(
      { status: 'Active' },
      { per_page: 50, offset: 100 },
    );
    expect(text).toContain(
      'FROM (SELECT id FROM certificates WHERE status = $3 ORDER BY id LIMIT $1 OFFSET $2) AS page',
    );
    expect(text).toMatch(/ORDER BY c\.id$/);
    expect(text).toContain(`(c.created_at AT TIME ZONE 'UTC')::text AS created_at`);
    expect(values).toEqual([50, 100, 'Active']);
    const positions = CERTIFICATE_COLUMNS.map((column) => text.indexOf(` AS ${column}`));
    expect(positions.every((position) => position > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('seeks a text page after an anchor id, the filters numbered after it', () => {
    const seek = certificateListTextPageQuery(
      { status: 'Active', team_id: 't1' },
      { per_page: 50, offset: 950, afterId: 'mc-0498999' },
    );
    expect(seek.text).toContain(
      '(SELECT id FROM certificates WHERE status = $4 AND team_id = $5 AND id > $3 ORDER BY id LIMIT $1 OFFSET $2)',
    );
    expect(seek.values).toEqual([50, 950, 'mc-0498999', 'Active', 't1']);
    expect(certificateListTextPageQuery({}, { per_page: 5, offset: 3, afterId: 'x' }).text).toContain(
      "(SELECT id FROM certificates WHERE status <> 'Archived' AND id > $3 ORDER BY id LIMIT $1 OFFSET $2)",
    );
  });

  it('reads a page that skips nothing straight from the index range, from the start or an anchor', () => {
    const first = certificateListTextPageQuery({ status: 'Active' }, { per_page: 50, offset: 0 });
    expect(first.text).toMatch(
      /\nFROM certificates c WHERE c\.status = \$3 ORDER BY c\.id LIMIT \$1 OFFSET \$2$/,
    );
    expect(first.text).not.toContain('JOIN');
    expect(first.values).toEqual([50, 0, 'Active']);
    expect(first.name).toBe('certificate-list-page-first-status');
    const anchored = certificateListTextPageQuery({}, { per_page: 5, offset: 0, afterId: 'x' });
    expect(anchored.text).toMatch(
      /\nFROM certificates c WHERE c\.status <> 'Archived' AND c\.id > \$3 ORDER BY c\.id LIMIT \$1 OFFSET \$2$/,
    );
    expect(anchored.values).toEqual([5, 0, 'x']);
    expect(anchored.name).toBe('certificate-list-page-first-after');
    // The same select list as the deferred form.
    const deferred = certificateListTextPageQuery({ status: 'Active' }, { per_page: 50, offset: 1 });
    expect(first.text.split('\nFROM ')[0]).toBe(deferred.text.split('\nFROM ')[0]);
  });

  it('builds anchors by hopping `spacing` index entries at a time, filters as parameters', () => {
    const hostile = "x' OR '1'='1";
    const { text, values } = certificateListAnchorsQuery({ status: 'Active', owner_id: hostile }, 1000);
    expect(text).toContain(
      '(SELECT id FROM certificates WHERE status = $2 AND owner_id = $3 ORDER BY id OFFSET $1 - 1 LIMIT 1)',
    );
    expect(text).toContain(
      'SELECT n.id FROM certificates n WHERE n.status = $2 AND n.owner_id = $3 AND n.id > a.id ORDER BY n.id OFFSET $1 - 1 LIMIT 1',
    );
    expect(text).not.toContain(hostile);
    expect(values).toEqual([1000, 'Active', hostile]);
    expect(certificateListAnchorsQuery({}, 10).text).toContain(
      "FROM certificates n WHERE n.status <> 'Archived' AND n.id > a.id",
    );
  });

  it('names only statements whose plan fits every value, one name per text', () => {
    const columns = ['status', 'environment', 'owner_id', 'team_id', 'issuer_id'] as const;
    const textOf = new Map<string, string>();
    let named = 0;
    for (let mask = 0; mask < 1 << columns.length; mask++) {
      const filter = Object.fromEntries(
        columns.filter((_, bit) => mask & (1 << bit)).map((column) => [column, 'Active']),
      );
      const filters = Object.keys(filter).length;
      const statements = [
        certificateListCountQuery(filter),
        certificateListTextPageQuery(filter, { per_page: 50, offset: 0 }),
        certificateListTextPageQuery(filter, { per_page: 50, offset: 7, afterId: 'mc-1' }),
      ];
      for (const statement of statements) {
        if (filters >= 2) {
          expect(statement.name).toBeUndefined();
          continue;
        }
        expect(statement.name).toBeDefined();
        named++;
        const name = statement.name as string;
        expect(textOf.get(name) ?? statement.text).toBe(statement.text);
        textOf.set(name, statement.text);
      }
    }
    // One count for every shape, a page and a seek page per filter column and for none.
    expect(named).toBe(18);
    expect(textOf.size).toBe(1 + 2 * (columns.length + 1));
  });

  it('reads a first page with its total in one statement, the count numbered after the page', () => {
    const none = certificateListCountedPageQuery({}, { per_page: 50, offset: 100 });
    expect(none.text).toContain(
      ", (SELECT coalesce(sum(delta), 0)::int AS total FROM certificate_count_deltas WHERE dimension = $3 AND value = $4) AS total\nFROM (SELECT id FROM certificates WHERE status <> 'Archived' ORDER BY id LIMIT $1 OFFSET $2) AS page",
    );
    expect(none.values).toEqual([50, 100, '', '']);
    expect(none.name).toBe('certificate-list-counted-page');

    const one = certificateListCountedPageQuery({ team_id: 't1' }, { per_page: 10, offset: 0 });
    expect(one.text).toContain('WHERE dimension = $4 AND value = $5) AS total');
    expect(one.text).toContain(
      "\nFROM certificates c WHERE c.team_id = $3 AND c.status <> 'Archived' ORDER BY c.id LIMIT $1 OFFSET $2",
    );
    expect(one.values).toEqual([10, 0, 't1', 'team_id', 't1']);
    expect(one.name).toBe('certificate-list-counted-page-first-team_id');

    const two = certificateListCountedPageQuery(
      { status: 'Active', owner_id: 'o1' },
      { per_page: 5, offset: 0 },
    );
    expect(two.text).toContain(
      ', (SELECT count(*)::int AS total FROM certificates WHERE status = $5 AND owner_id = $6) AS total',
    );
    expect(two.values).toEqual([5, 0, 'Active', 'o1', 'Active', 'o1']);
    expect(two.name).toBeUndefined();
    // The select list is the text page's, with the total last.
    const page = certificateListTextPageQuery({ team_id: 't1' }, { per_page: 10, offset: 0 });
    expect(one.text.startsWith(page.text.slice(0, page.text.indexOf('\nFROM ')))).toBe(true);
  });
});
