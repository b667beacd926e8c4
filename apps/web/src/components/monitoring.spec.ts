import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { sparklineSegments } from '../lib/sparkline';
import { RESOURCE_PAGES, Row, rowName } from '../pages/resource-pages';
import { Cell, pageOf } from './resource-page';
import { actionBody, actionPathParams, actionQuery, describeAnswer } from './row-actions';
import { onceSecret } from './shown-once';
import { Sparkline } from './monitoring-tools';

describe('sparklineSegments', () => {
  it('spreads the values over the width with the largest at the top', () => {
    expect(sparklineSegments([10, 20, 30], 100, 10)).toEqual(['0,10 50,5 100,0']);
  });

  it('breaks the line where a value is missing instead of drawing it as zero', () => {
    expect(sparklineSegments([5, null, 5, 15], 30, 10)).toEqual(['0,10', '20,10 30,0']);
  });

  it('draws nothing without a value, and a flat line in the middle of one', () => {
    expect(sparklineSegments([null, null], 10, 10)).toEqual([]);
    expect(sparklineSegments([7], 10, 10)).toEqual(['5,10']);
  });
});

describe('Sparkline', () => {
  it('is an image with its words for screen readers and no inline style', () => {
    const html = renderToStaticMarkup(createElement(Sparkline, { values: [1, 2], label: '2 probes' }));
    expect(html).toContain('role="img"');
    expect(html).toContain('aria-label="2 probes"');
    expect(html).toContain('<polyline points="0,40 240,0">');
    expect(html).not.toContain('style=');
  });
});

describe('pageOf', () => {
  it('reads {data, total}, a bare array, and rows under another key', () => {
    expect(pageOf({ data: [{ id: 'a' }], total: 9 })).toEqual({ data: [{ id: 'a' }], total: 9 });
    expect(pageOf([{ id: 'a' }, { id: 'b' }])).toEqual({ data: [{ id: 'a' }, { id: 'b' }], total: 2 });
    expect(pageOf({ probes: [{ id: 'p' }], limit: 25 }, 'probes')).toEqual({ data: [{ id: 'p' }], total: 1 });
  });
});

describe('row actions', () => {
  const action = (path: string, field?: string) => ({ label: 'x', method: 'DELETE' as const, path, field });

  it('fills every path parameter from the field of its name', () => {
    expect(
      actionPathParams(action('/api/v1/contacts/{kind}/{subject_id}'), { kind: 'team', subject_id: 't-1' }),
    ).toEqual({ kind: 'team', subject_id: 't-1' });
    expect(actionPathParams(action('/api/v1/x/{id}'), { id: 'a' })).toEqual({ id: 'a' });
  });

  it('fills a lone parameter from the field the action names', () => {
    expect(
      actionPathParams(action('/api/v1/auth/breakglass/credentials/{actorId}', 'actor_id'), {
        actor_id: 'ops',
      }),
    ).toEqual({ actorId: 'ops' });
  });

  it('fills camelCase parameters from their snake_case fields, and the query from the row', () => {
    const revoke = {
      ...action('/api/v1/auth/grants/{actorId}/{roleId}'),
      queryFields: { scope: 'scope' },
    };
    const grant = { actor_id: 'ops', role_id: 'r-viewer', scope: 'team:payments' };
    expect(actionPathParams(revoke, grant)).toEqual({ actorId: 'ops', roleId: 'r-viewer' });
    expect(actionQuery(revoke, grant, '')).toEqual({ scope: 'team:payments' });
    expect(actionQuery(action('/api/v1/x/{id}'), { id: 'a' }, '')).toBeUndefined();
    const force = { ...action('/api/v1/x/{id}'), reason: { required: true, in: 'force-query' as const } };
    expect(actionQuery(force, { id: 'a' }, 'gone')).toEqual({ force: 'true', reason: 'gone' });
  });

  it('describes sessions signed out, trust reloaded and a deployment verified', () => {
    expect(describeAnswer({ revoked: 2 })).toBe('2 sessions signed out.');
    expect(describeAnswer({ reloaded: ['a'], kept_previous: [{ path_id: 'b', reason: 'no PEM' }] })).toBe(
      'reloaded a; kept the previous trust of b: no PEM.',
    );
    expect(describeAnswer({ path_id: 'm', trust_anchor_count: 1, trust_loaded_at: 'x' })).toBe(
      '1 trust anchor loaded.',
    );
    expect(describeAnswer({ endpoint: 'h:443', result: 'unreachable', error: 'refused' })).toBe(
      'h:443: unreachable (refused).',
    );
  });

  it('sends the fields an action takes from the row, a reason in the body, or {} when a body is needed', () => {
    const bulk = {
      label: 'Renew all early',
      method: 'POST' as const,
      path: '/api/v1/admin/acme/certificates/bulk-renew-early',
      bodyFields: { account_id: 'id' },
    };
    expect(actionBody(bulk, { id: 'acct-0001', status: 'valid' }, '')).toEqual({ account_id: 'acct-0001' });
    const withReason = { ...action('/api/v1/x/{id}'), reason: { required: true, in: 'body' as const } };
    expect(actionBody(withReason, { id: 'a' }, 'moved')).toEqual({ reason: 'moved' });
    expect(actionBody({ ...action('/api/v1/x/{id}'), emptyBody: true }, { id: 'a' }, '')).toEqual({});
    expect(actionBody(action('/api/v1/x/{id}'), { id: 'a' }, '')).toBeUndefined();
  });

  it('describes an early renewal (RFC 9773) by its window, and a bulk one by its count too', () => {
    const suggested_window = { start: '2026-01-10T00:00:00.000Z', end: '2026-01-10T01:00:00.000Z' };
    expect(describeAnswer({ certificate_id: 'c', suggested_window })).toBe(
      'renew between 2026-01-10T00:00:00.000Z and 2026-01-10T01:00:00.000Z.',
    );
    expect(describeAnswer({ account_id: 'a', total_moved: 3, suggested_window })).toBe(
      '3 certificates told to renew between 2026-01-10T00:00:00.000Z and 2026-01-10T01:00:00.000Z.',
    );
    expect(describeAnswer({ acme_profile_id: 'p', total_moved: 1, suggested_window })).toMatch(
      /^1 certificate told to renew/,
    );
  });

  it("describes a notifier's test send", () => {
    expect(describeAnswer({ delivered: true, error: null })).toBe('delivered.');
    expect(describeAnswer({ delivered: false, error: 'HTTP 503' })).toBe('not delivered: HTTP 503');
  });

  it("names a new EST key-encryption key's id but leaves its key to the shown-once box", () => {
    const answer = { id: 'ab12', status: 'active', secret_key: '00ff' };
    expect(describeAnswer(answer)).toBe(
      'key-encryption key id ab12 created: copy its AES-256 key now from the box below.',
    );
    expect(onceSecret(answer)).toEqual({
      label: 'The AES-256 key of key-encryption key ab12',
      value: '00ff',
    });
  });
});

describe('rowName', () => {
  it('names a row by its name, title, subject or path before its id', () => {
    expect(rowName({ id: 'n-1', title: 'cert-a expires in 6 days' })).toBe('cert-a expires in 6 days');
    expect(rowName({ kind: 'team', subject_id: 'team-a', addresses: [] })).toBe('team-a');
    expect(rowName({ id: 'p-1', path_id: 'devices' })).toBe('devices');
    expect(rowName({ actor_id: 'ops' })).toBe('ops');
  });
});

describe('Cell', () => {
  it('draws progress as a bar and as words', () => {
    const row: Row = { endpoints_done: 3, endpoints_total: 8 };
    const html = renderToStaticMarkup(
      createElement(Cell, {
        column: { key: 'endpoints_done', label: 'Progress', kind: 'progress', of: 'endpoints_total' },
        row,
      }),
    );
    expect(html).toContain('<progress max="8" value="3" aria-label="3 of 8">');
    expect(html).toContain('</progress> 3 of 8</span>');
  });
});

describe('the page table', () => {
  it('gives every row action path parameters a row of its page can fill', () => {
    for (const page of RESOURCE_PAGES) {
      for (const action of page.actions ?? []) {
        const params = [...action.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
        expect(params.length === 1 || !action.field).toBe(true);
        const snake = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
        if (params.length > 1)
          for (const param of params) expect(page.columns.map((c) => c.key)).toContain(snake(param));
        for (const field of Object.values(action.queryFields ?? {}))
          expect(page.columns.map((c) => c.key)).toContain(field);
      }
    }
  });
});

describe('a text cell', () => {
  const cell = (value: string) =>
    renderToStaticMarkup(
      createElement(Cell, { column: { key: 'last_error', label: 'Last error' }, row: { last_error: value } }),
    );

  it('lets only long text break inside a word', () => {
    expect(cell('gui-served')).toBe('gui-served');
    expect(cell(`served ${'ab'.repeat(32)}`)).toMatch(/^<span class="long-text">served ab/);
  });
});
