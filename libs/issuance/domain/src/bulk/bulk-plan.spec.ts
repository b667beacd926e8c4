import { CERTIFICATE_STATUSES, CertificateStatus } from '@certlane/contracts';
import {
  bulkSelection,
  CappedList,
  chunks,
  initialRenewalJobStatus,
  planBulkReassign,
  planBulkRenew,
  planBulkRevoke,
  matchesSelection,
  unmatchedIdErrors,
} from './bulk-plan';

const rows = (statuses: readonly CertificateStatus[]) =>
  statuses.map((status, i) => ({ id: `c${i}`, status, source: '' as const }));

describe(bulkSelection.name, () => {
  it.each([
    ['nothing', {}],
    ['empty strings', { owner_id: '', team_id: '' }],
    ['an empty id list', { certificate_ids: [] }],
  ])('refuses %s as empty criteria', (_what, body) => {
    expect(bulkSelection(body)).toEqual({
      ok: false,
      message: expect.stringMatching(/^empty bulk criteria/),
    });
  });

  it('refuses source alone as too broad, also when the EST route forces it', () => {
    expect(bulkSelection({ source: 'EST' })).toEqual({
      ok: false,
      message: expect.stringMatching(/too broad/),
    });
    expect(bulkSelection({}, 'EST').ok).toBe(false);
  });

  it('ANDs every reference filter and keeps source as a narrowing', () => {
    expect(bulkSelection({ owner_id: 'alice', issuer_id: 'iss-local', source: 'API' })).toEqual({
      ok: true,
      selection: { mode: 'criteria', filters: { owner_id: 'alice', issuer_id: 'iss-local' }, source: 'API' },
    });
  });

  it('treats an absent or Unspecified source as any source', () => {
    const result = bulkSelection({ team_id: 'payments' });
    expect(result.ok && result.selection.source).toBe('');
  });

  it('uses ids mode when certificate_ids is given, de-duplicated and sorted', () => {
    expect(bulkSelection({ certificate_ids: ['b', 'a', 'b'] })).toEqual({
      ok: true,
      selection: { mode: 'ids', ids: ['a', 'b'], filters: {}, source: '' },
    });
  });

  it('keeps the filters given beside the ids, to narrow them', () => {
    expect(bulkSelection({ certificate_ids: ['a'], owner_id: 'alice', team_id: '' })).toEqual({
      ok: true,
      selection: { mode: 'ids', ids: ['a'], filters: { owner_id: 'alice' }, source: '' },
    });
  });

  it('forces the source of the EST route over the body', () => {
    const result = bulkSelection({ profile_id: 'p', source: 'API' }, 'EST');
    expect(result.ok && result.selection.source).toBe('EST');
  });
});

describe(planBulkRevoke.name, () => {
  it('revokes every status but Revoked, which is skipped', () => {
    const plan = planBulkRevoke(rows(CERTIFICATE_STATUSES));
    expect(plan.skipped).toEqual(['c6']);
    expect(plan.change.map((c) => [c.from, c.to])).toEqual(
      CERTIFICATE_STATUSES.filter((s) => s !== 'Revoked').map((s) => [s, 'Revoked']),
    );
  });
});

describe(planBulkRenew.name, () => {
  it('silently skips Archived, Revoked, Expired and RenewalInProgress and renews the rest', () => {
    const plan = planBulkRenew(rows(CERTIFICATE_STATUSES));
    const skipped = plan.skipped.map((id) => CERTIFICATE_STATUSES[Number(id.slice(1))]);
    expect(skipped.sort()).toEqual(['Archived', 'Expired', 'RenewalInProgress', 'Revoked']);
    expect(plan.change.map((c) => `${c.from}->${c.to}`)).toEqual([
      'Pending->RenewalInProgress',
      'Active->RenewalInProgress',
      'Expiring->RenewalInProgress',
      'Failed->RenewalInProgress',
    ]);
  });
});

describe(planBulkReassign.name, () => {
  const owned = [
    { id: 'a', owner_id: 'bob', team_id: 'ops' },
    { id: 'b', owner_id: 'bob', team_id: 'web' },
    { id: 'c', owner_id: 'eve', team_id: 'ops' },
    { id: 'd', owner_id: null, team_id: null },
  ];

  it('skips certificates the owner already holds when no team is given', () => {
    expect(planBulkReassign(owned, 'bob', undefined)).toEqual({ change: ['c', 'd'], skipped: ['a', 'b'] });
  });

  it('skips only those with both the owner and the team when a team is given', () => {
    expect(planBulkReassign(owned, 'bob', 'ops')).toEqual({ change: ['b', 'c', 'd'], skipped: ['a'] });
  });
});

describe(unmatchedIdErrors.name, () => {
  it('reports absent ids as not found and ids of another source as not matching', () => {
    const found = [
      { id: 'a', status: 'Active' as const, source: 'EST' as const },
      { id: 'b', status: 'Active' as const, source: '' as const },
    ];
    expect(unmatchedIdErrors(['a', 'b', 'x'], found, 'EST')).toEqual([
      { certificate_id: 'b', message: 'source is Unspecified, not EST' },
      { certificate_id: 'x', message: 'not found' },
    ]);
    expect(unmatchedIdErrors(['a', 'b'], found, '')).toEqual([]);
  });

  it('reports ids that do not match the filters given beside them, and never changes them', () => {
    const found = [
      { id: 'a', status: 'Active' as const, source: '' as const, matches_filters: true },
      { id: 'b', status: 'Active' as const, source: '' as const, matches_filters: false },
    ];
    expect(unmatchedIdErrors(['a', 'b'], found, '')).toEqual([
      { certificate_id: 'b', message: 'does not match the filters' },
    ]);
    expect(found.filter((row) => matchesSelection(row, '')).map((row) => row.id)).toEqual(['a']);
  });
});

describe(initialRenewalJobStatus.name, () => {
  it('waits for the agent CSR in agent mode and is pending in server mode', () => {
    expect(initialRenewalJobStatus('agent')).toBe('AwaitingCSR');
    expect(initialRenewalJobStatus('server')).toBe('Pending');
  });
});

describe(CappedList.name, () => {
  it('keeps the first items, counts all of them and says when it cut', () => {
    const list = new CappedList<number>(2);
    list.push(1, 2);
    expect(list.truncated).toBe(false);
    list.push(3, 4);
    expect(list.items).toEqual([1, 2]);
    expect(list.total).toBe(4);
    expect(list.truncated).toBe(true);
  });
});

describe(chunks.name, () => {
  it('splits in order with a short last batch', () => {
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  });
});
