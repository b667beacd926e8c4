import {
  CERTIFICATE_COLUMNS,
  certificateListAfterQuery,
  certificateListCountQuery,
  certificateListPageQuery,
  certificateListWhere,
} from './certificate-list.query';

describe('certificate list SQL', () => {
  it('filters by nothing when no filter is given', () => {
    expect(certificateListWhere({})).toEqual({ clause: '', values: [] });
  });

  it('counts with no filter or one from the per-filter counts, with more by COUNT(*)', () => {
    const fromCounts =
      'SELECT coalesce(sum(delta), 0)::int AS total FROM certificate_count_deltas WHERE dimension = $1 AND value = $2';
    expect(certificateListCountQuery({})).toEqual({ text: fromCounts, values: ['', ''] });
    expect(certificateListCountQuery({ team_id: 't1' })).toEqual({
      text: fromCounts,
      values: ['team_id', 't1'],
    });
    expect(certificateListCountQuery({ status: 'Active', environment: 'prod' })).toEqual({
      text: 'SELECT count(*)::int AS total FROM certificates WHERE status = $1 AND environment = $2',
      values: ['Active', 'prod'],
    });
  });

  it('ANDs every filter as a parameter, in a fixed order whatever the input order', () => {
    const where = certificateListWhere({ issuer_id: 'iss-a', status: 'Active', team_id: 't1' });
    expect(where).toEqual({
      clause: 'WHERE status = $1 AND team_id = $2 AND issuer_id = $3',
      values: ['Active', 't1', 'iss-a'],
    });
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
    expect(certificateListAfterQuery({}, 'x', 10).text).toContain('WHERE id > $2 ORDER BY id LIMIT $1');
  });
});
