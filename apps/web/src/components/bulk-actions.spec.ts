import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { RESOURCE_PAGES } from '../pages/resource-pages';
import { BulkResult, BulkToolbar, bulkBody, bulkSummary, countOf } from './bulk-actions';
import { SelectAll, SelectRow } from './row-selection';

const noop = () => undefined;
const discovered = RESOURCE_PAGES.find((page) => page.path === 'discovered-certificates')!;
const [claim, dismiss] = discovered.bulk!.actions;
const row = (id: string, status: string) => ({ id, subject: `CN=${id}.test`, status });

describe('row selection', () => {
  it('names each row checkbox after its row and the header one after the page', () => {
    const html = renderToStaticMarkup(
      createElement(SelectRow, { name: 'CN=a.test', checked: true, onChange: noop }),
    );
    expect(html).toBe('<input type="checkbox" aria-label="Select CN=a.test" checked=""/>');
    const all = renderToStaticMarkup(createElement(SelectAll, { selected: 2, total: 2, onChange: noop }));
    expect(all).toContain('aria-label="Select all rows on this page"');
    expect(all).toContain('checked=""');
    const some = renderToStaticMarkup(createElement(SelectAll, { selected: 1, total: 2, onChange: noop }));
    expect(some).not.toContain('checked=""');
  });
});

describe('the bulk toolbar', () => {
  const toolbar = (rows: Record<string, unknown>[]) =>
    renderToStaticMarkup(
      createElement(BulkToolbar, {
        actions: [claim, dismiss],
        rows,
        busy: false,
        onStart: noop,
        onClear: noop,
      }),
    );

  it('says how many are selected and offers each action only when some selected row is eligible', () => {
    expect(toolbar([])).toContain('None selected');
    expect(toolbar([])).toMatch(/<button type="button" disabled="">Claim selected<\/button>/);
    const mixed = toolbar([row('a', 'Unmanaged'), row('b', 'Dismissed')]);
    expect(mixed).toContain('2 selected');
    expect(mixed).toMatch(/<button type="button">Claim selected<\/button>/);
    expect(mixed).toMatch(/<button type="button" class="danger">Dismiss selected<\/button>/);
    // A dismissed certificate can still be claimed, not dismissed again; a claimed one neither.
    const dismissedOnly = toolbar([row('b', 'Dismissed'), row('c', 'Claimed')]);
    expect(dismissedOnly).toMatch(
      /<button type="button" class="danger" disabled="">Dismiss selected<\/button>/,
    );
    expect(dismissedOnly).toContain('role="toolbar"');
  });

  it('refuses more than one call takes (100 ids)', () => {
    const many = Array.from({ length: 101 }, (_, index) => row(`r${index}`, 'Unmanaged'));
    expect(toolbar(many)).toMatch(/disabled="" title="At most 100 at once">Dismiss selected/);
  });
});

describe('bulk requests and results', () => {
  it('sends the ids under the action key beside its fixed fields', () => {
    expect(bulkBody(dismiss, ['a', 'b'])).toEqual({ ids: ['a', 'b'] });
    expect(bulkBody({ ...claim, body: { team_id: 'ops' } }, ['a'])).toEqual({ team_id: 'ops', ids: ['a'] });
    expect(countOf(1, discovered.bulk!.noun)).toBe('1 discovered certificate');
    expect(countOf(2, discovered.bulk!.noun)).toBe('2 discovered certificates');
  });

  it('counts what succeeded and lists each failure by row name with its code and message', () => {
    const answer = {
      total_requested: 3,
      total_changed: 1,
      total_unchanged: 1,
      total_failed: 1,
      errors: [{ id: 'c', code: 'discovered_certificate_claimed', message: 'already claimed' }],
    };
    expect(bulkSummary('Dismiss', answer)).toBe('Dismiss: 1 of 3 succeeded, 1 unchanged, 1 failed.');
    const html = renderToStaticMarkup(
      createElement(BulkResult, { label: 'Dismiss', answer, rows: [row('c', 'Claimed')] }),
    );
    expect(html).toContain('role="status"');
    expect(html).toContain('aria-label="Dismiss: failures"');
    expect(html).toContain('CN=c.test</span>: discovered_certificate_claimed — already claimed');
    const clean = { ...answer, total_changed: 3, total_unchanged: 0, total_failed: 0, errors: [] };
    expect(bulkSummary('Claim', clean)).toBe('Claim: 3 of 3 succeeded.');
    expect(
      renderToStaticMarkup(createElement(BulkResult, { label: 'Claim', answer: clean, rows: [] })),
    ).not.toContain('<ul');
  });
});
