import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { formFields } from '../lib/schema-fields';
import { FilterBar } from './filter-bar';
import { Pagination } from './pagination';
import { Field } from './schema-form';
import { ApiError } from '../api/client';
import { ErrorNotice, Expiry, ReasonSelect, Time } from './widgets';
import { describeAnswer } from './row-actions';
import { OidcSection, oidcFailure, oidcLoginHref } from '../auth/oidc-section';
import { MemoryRouter } from 'react-router';
import { ApprovalSubject } from './resource-page';

const noop = () => undefined;

describe('FilterBar', () => {
  const html = renderToStaticMarkup(
    createElement(FilterBar, {
      filters: [
        { name: 'status', label: 'Status', options: ['Active', 'Revoked'] },
        { name: 'team_id', label: 'Team id' },
      ],
      values: { status: 'Revoked', team_id: 'team-a' },
      onChange: noop,
      onApply: noop,
    }),
  );

  it('draws a menu for an enum with the URL value chosen, and a field for text with its value', () => {
    expect(html).toContain('<select name="status">');
    expect(html).toMatch(/<option selected="">Revoked<\/option>/);
    expect(html).toMatch(/<input name="team_id" value="team-a"\/>/);
    expect(html).toContain('>Apply</button>');
    expect(html).toContain('role="search"');
  });
});

describe('Pagination', () => {
  it('says where the page is and disables what cannot go further', () => {
    const first = renderToStaticMarkup(
      createElement(Pagination, { page: 1, perPage: 25, total: 60, onPage: noop, onPerPage: noop }),
    );
    expect(first).toContain('Page 1 of 3 (60 in all)');
    expect(first).toMatch(/<button type="button" disabled="">Previous<\/button>/);
    const last = renderToStaticMarkup(
      createElement(Pagination, { page: 3, perPage: 25, total: 60, onPage: noop, onPerPage: noop }),
    );
    expect(last).toMatch(/<button type="button" disabled="">Next<\/button>/);
  });
});

describe('Field (forms from schemas)', () => {
  const [id, secret, type] = formFields({
    required: ['id', 'type'],
    properties: {
      id: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,127}$', maxLength: 128 },
      client_secret: { type: 'string' },
      type: { type: 'string', enum: ['nginx', 'ssh'] },
    },
  });

  it('carries the schema constraints, escaped for the v flag', () => {
    const html = renderToStaticMarkup(
      createElement(Field, { prefix: 'f', field: id, value: '', onChange: noop }),
    );
    expect(html).toContain('<label for="ffield-id">id (required)</label>');
    expect(html).toContain('required=""');
    expect(html).toContain('maxLength="128"');
    expect(html).toContain('pattern="^[a-z0-9][a-z0-9._\\-]{0,127}$"');
  });

  it('makes a secret-named field a password field and shows an API error beside the field', () => {
    const html = renderToStaticMarkup(
      createElement(Field, { prefix: 'f', field: secret, value: '', error: 'too short', onChange: noop }),
    );
    expect(html).toContain('type="password"');
    expect(html).toContain('autoComplete="new-password"');
    expect(html).toContain('aria-describedby="ffield-client_secret-error"');
    expect(html).toContain('<p id="ffield-client_secret-error" class="field-error">too short</p>');
  });

  it('draws an enum as a menu that must be chosen when required', () => {
    const html = renderToStaticMarkup(
      createElement(Field, { prefix: 'f', field: type, value: '', onChange: noop }),
    );
    expect(html).toContain('<select id="ffield-type" required=""');
    expect(html).toContain('<option value="" selected="">Choose…</option>');
  });
});

describe('widgets', () => {
  it('states expiry in words as well as colour, and a revoked certificate as revoked', () => {
    const soon = new Date(Date.now() + 3 * 86400_000).toISOString();
    expect(renderToStaticMarkup(createElement(Expiry, { value: soon }))).toContain('(expires within 7 days)');
    expect(renderToStaticMarkup(createElement(Expiry, { value: soon, status: 'Revoked' }))).toContain(
      '(revoked)',
    );
    expect(renderToStaticMarkup(createElement(Expiry, { value: null }))).toContain('(not issued)');
  });

  it('shows a time in words and exactly, and names what blocks a conflict', () => {
    const html = renderToStaticMarkup(createElement(Time, { value: '2026-01-02T03:04:05Z' }));
    expect(html).toContain('2026-01-02 03:04 UTC');
    expect(html).toContain('dateTime="2026-01-02T03:04:05Z"');
    const conflict = new ApiError(409, 'agent_has_dependencies', 'the agent has dependencies', {
      counts: { targets: 2, certificates: 3 },
    });
    expect(renderToStaticMarkup(createElement(ErrorNotice, { error: conflict }))).toContain(
      'Blocked by: 2 targets, 3 certificates.',
    );
  });

  it('offers the RFC 5280 reasons with none chosen at first', () => {
    const html = renderToStaticMarkup(createElement(ReasonSelect, { value: '', onChange: noop }));
    expect(html).toContain('<select id="revocation-reason" required=""');
    expect(html).toContain('<option value="keyCompromise">keyCompromise</option>');
    expect(html).not.toContain('removeFromCRL');
  });
});

describe('Field for a stored secret', () => {
  it('is masked, not required, and says an empty value keeps the stored one', () => {
    const html = renderToStaticMarkup(
      createElement(Field, {
        prefix: 'p-',
        field: { name: 'key_path', kind: 'secret', required: true },
        value: '',
        secretKept: true,
        onChange: noop,
      }),
    );
    expect(html).toContain('type="password"');
    expect(html).toContain('placeholder="set (leave empty to keep)"');
    expect(html).not.toContain('required=""');
  });
});

describe('the single sign-on section', () => {
  it('is a link to the OIDC login built from the provider field, not a form submission', () => {
    const html = renderToStaticMarkup(createElement(OidcSection, { provider: 'corp' }));
    // A form's redirect to the identity provider is blocked by `form-action 'self'` in Chromium.
    expect(html).not.toContain('action=');
    expect(html).not.toContain('method="get"');
    expect(html).toMatch(/<input id="oidc-provider" required=""[^>]* name="provider" value="corp"\/>/);
    expect(html).toContain(
      '<a class="button" href="/auth/oidc/login?provider=corp">Sign in with single sign-on</a>',
    );
    expect(html).not.toContain('role="alert"');
  });

  it('encodes the provider into the link, and offers no link without one', () => {
    expect(oidcLoginHref(' corp & co/x ')).toBe('/auth/oidc/login?provider=corp%20%26%20co%2Fx');
    const html = renderToStaticMarkup(createElement(OidcSection, { provider: '' }));
    expect(html).not.toContain('href=');
    expect(html).toContain('aria-disabled="true"');
  });

  it("says when the callback came back failed, with the reason's category only", () => {
    expect(oidcFailure('?error=oidc_failed&reason=state_mismatch')).toBe(
      'Single sign-on did not complete (state_mismatch). Try again, or use another way.',
    );
    expect(oidcFailure('?error=oidc_failed&reason=<script>')).toContain('(script)');
    expect(oidcFailure('?provider=corp')).toBeUndefined();
    const html = renderToStaticMarkup(createElement(OidcSection, { provider: '', failure: 'failed' }));
    expect(html).toContain('<p role="alert" class="field-error">failed</p>');
  });
});

describe('ApprovalSubject', () => {
  const render = (row: Record<string, unknown>) =>
    renderToStaticMarkup(createElement(MemoryRouter, null, createElement(ApprovalSubject, { row })));

  it("shows a SCEP enrollment's CSR summary instead of a certificate link while it waits", () => {
    const html = render({
      certificate_id: null,
      enrollment: {
        source: 'SCEP',
        state: 'pending',
        subject: 'CN=device-1',
        dns_names: ['device-1.example.com'],
        key_algorithm: 'RSA-2048',
        reference: { scep_profile: 'phones', transaction_id: '0123456789abcdef0123' },
      },
    });
    expect(html).toContain('SCEP enrollment');
    expect(html).toContain('CN=device-1');
    expect(html).toContain('DNS device-1.example.com');
    expect(html).toContain('RSA-2048');
    expect(html).toContain('scep_profile phones, transaction_id 0123456789abcdef…');
    expect(html).not.toContain('href');
  });

  it('adds the issued certificate once approved, and links a managed certificate as before', () => {
    const issued = render({
      certificate_id: 'mc-1',
      enrollment: {
        source: 'SCEP',
        state: 'issued',
        subject: 'CN=device-1',
        dns_names: [],
        key_algorithm: 'RSA-2048',
        reference: {},
      },
    });
    expect(issued).toContain('issued');
    expect(issued).toContain('href="/certificates/mc-1"');
    const managed = render({ certificate_id: 'mc-2', enrollment: null });
    expect(managed).toMatch(/^<a href="\/certificates\/mc-2"[^>]*>mc-2<\/a>$/);
  });
});

describe('OIDC answers', () => {
  it('says what an issuer test and a key refresh found', () => {
    const tested = { issuer: 'https://idp.test', key_count: 2, usable_key_count: 1 };
    expect(describeAnswer({ ...tested, ok: true, problems: [] })).toBe(
      'https://idp.test works: 1 usable of 2 signing keys.',
    );
    expect(describeAnswer({ ...tested, ok: false, problems: ['no S256'] })).toBe(
      'https://idp.test would not work: no S256 (1 usable of 2 signing keys).',
    );
    const jwks = { provider_id: 'p', key_count: 3, usable_key_count: 2, keys: [], jwks_uri: null };
    expect(describeAnswer({ ...jwks, status: 'ok', error: null })).toBe('key set ok: 2 usable of 3 keys.');
    expect(describeAnswer({ ...jwks, status: 'error', error: 'timeout' })).toBe(
      'key set error: timeout (2 usable of 3 keys).',
    );
  });
});
