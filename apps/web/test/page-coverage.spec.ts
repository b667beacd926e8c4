import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPERATIONS } from '@certlane/api-client';
import {
  DETAIL_LISTS,
  editOperation,
  LISTS_WITHOUT_A_PAGE,
  OPERATIONS_WITHOUT_A_CONTROL,
  RESOURCE_PAGES,
  scepProfileEditValues,
} from '../src/pages/resource-pages';
import { formFields, initialValues, JsonSchema, requestBody, secretStored } from '../src/lib/schema-fields';

/** The paths of every JSON list operation of the API description. */
const listPaths = Object.entries(OPERATIONS)
  .filter(([id, op]) => op.method === 'GET' && /^list|List[A-Z]/.test(id))
  .map(([, op]) => op.path as string);

/** The GUI's own pages beside the generic ones (the certificate page shows its versions). */
const DEDICATED = ['/api/v1/certificates', '/api/v1/certificates/{id}/versions'];

describe('every list the API serves has a page', () => {
  // A list shown in a record's details counts only when a page shows that detail.
  const details = RESOURCE_PAGES.flatMap((page) => (page.detail ? [DETAIL_LISTS[page.detail]] : []));
  const paged = new Set<string>([
    ...DEDICATED,
    ...RESOURCE_PAGES.map((page) => page.apiPath),
    ...details.filter((path): path is NonNullable<typeof path> => path !== undefined),
  ]);

  it('lists the API resources without a page (there must be none outside the known gaps)', () => {
    const missing = listPaths.filter((path) => !paged.has(path) && !(path in LISTS_WITHOUT_A_PAGE));
    expect(missing).toEqual([]);
  });

  it('keeps the known gaps honest: no entry that has a page or is not an operation', () => {
    for (const path of Object.keys(LISTS_WITHOUT_A_PAGE)) {
      expect(paged.has(path)).toBe(false);
      expect(listPaths).toContain(path);
    }
  });

  it('names each page once, under a path no other page uses', () => {
    const paths = RESOURCE_PAGES.map((page) => page.path);
    expect(new Set(paths).size).toBe(paths.length);
    for (const page of RESOURCE_PAGES) expect(listPaths).toContain(page.apiPath);
  });
});

describe('the row actions of the pages', () => {
  const operations = Object.values(OPERATIONS) as { method: string; path: string; body: string }[];
  const actions = RESOURCE_PAGES.flatMap((page) => (page.actions ?? []).map((action) => ({ page, action })));

  it('each names an operation of the API', () => {
    const unknown = actions.filter(
      ({ action }) => !operations.some((op) => op.method === action.method && op.path === action.path),
    );
    expect(unknown.map(({ action }) => `${action.method} ${action.path}`)).toEqual([]);
  });

  it('sends a body to each operation that requires one', () => {
    const bodiless = actions.filter(({ action }) => {
      const operation = operations.find((op) => op.method === action.method && op.path === action.path);
      return (
        operation?.body === 'required' &&
        !action.emptyBody &&
        action.reason?.in !== 'body' &&
        Object.keys(action.bodyFields ?? {}).length === 0
      );
    });
    expect(bodiless.map(({ action }) => `${action.method} ${action.path}`)).toEqual([]);
  });
});

describe('the edit forms of the pages', () => {
  const operations = Object.values(OPERATIONS) as { method: string; path: string; body: string }[];

  it('are a PUT on the item path when a page says only that it edits', () => {
    expect(editOperation({ edit: true, apiPath: '/api/v1/teams' })).toEqual({
      method: 'PUT',
      path: '/api/v1/teams/{id}',
    });
    expect(editOperation({ apiPath: '/api/v1/teams' })).toBeUndefined();
  });

  it('each sends to an operation of the API that takes a body, with the id in its path', () => {
    const edits = RESOURCE_PAGES.flatMap((page) => {
      const edit = editOperation(page);
      return edit ? [edit] : [];
    });
    expect(edits.length).toBeGreaterThan(0);
    const unknown = edits.filter(
      (edit) =>
        !edit.path.includes('{id}') ||
        !operations.some((op) => op.method === edit.method && op.path === edit.path && op.body !== 'none'),
    );
    expect(unknown.map((edit) => `${edit.method} ${edit.path}`)).toEqual([]);
  });

  it('sends a SCEP profile update as the POST its admin routes take (spec 4.9)', () => {
    const scep = RESOURCE_PAGES.find((page) => page.path === 'admin/scep-profiles')!;
    expect(editOperation(scep)).toMatchObject({ method: 'POST', path: '/api/v1/admin/scep/profiles/{id}' });
    expect(editOperation(scep)?.values).toBe(scepProfileEditValues);
  });

  it('sends the edits, deletes and revokes of admin resources as POSTs (spec 4.9: no PUT or DELETE there)', () => {
    const admin = RESOURCE_PAGES.filter((page) => page.apiPath.startsWith('/api/v1/admin/'));
    const sent = admin.flatMap((page) => [
      ...(editOperation(page) ? [editOperation(page)!] : []),
      ...(page.actions ?? []),
    ]);
    expect(
      sent.filter((operation) => operation.method !== 'POST').map((o) => `${o.method} ${o.path}`),
    ).toEqual([]);
    const byPath = Object.fromEntries(admin.map((page) => [page.path, page]));
    expect(editOperation(byPath['admin/est-profiles'])).toEqual({
      method: 'POST',
      path: '/api/v1/admin/est/profiles/{id}',
    });
    expect(editOperation(byPath['admin/acme-profiles'])).toEqual({
      method: 'POST',
      path: '/api/v1/admin/acme/profiles/{id}',
    });
    const actionPaths = (path: string) => (byPath[path].actions ?? []).map((action) => action.path);
    expect(actionPaths('admin/est-profiles')).toContain('/api/v1/admin/est/profiles/{id}/delete');
    expect(actionPaths('admin/acme-profiles')).toContain('/api/v1/admin/acme/profiles/{id}/delete');
    expect(actionPaths('admin/est-key-encryption-keys')).toContain(
      '/api/v1/admin/est/key-encryption-keys/{id}/revoke',
    );
    expect(actionPaths('admin/acme-eab-keys')).toContain('/api/v1/admin/acme/eab-keys/{id}/revoke');
  });

  it("starts a SCEP profile's edit from its mdm block (spec 4.9: present only while MDM is enabled)", () => {
    const mdm = {
      audience: 'https://scep.example.test/scep/managed',
      trust_path: '/etc/certlane/mdm.pem',
      trust_anchor_count: 1,
      trust_loaded_at: '2026-11-28T10:00:00.000Z',
      trust_expires_at: '2026-12-28T10:00:00.000Z',
      device_state_url: null,
    };
    expect(scepProfileEditValues({ path_id: 'managed', owner: 'o', mdm })).toEqual({
      path_id: 'managed',
      owner: 'o',
      mdm,
      mdm_enabled: true,
      mdm_audience: 'https://scep.example.test/scep/managed',
      mdm_trust_path: '/etc/certlane/mdm.pem',
      device_state_url: null,
    });
    expect(scepProfileEditValues({ path_id: 'plain', owner: 'o' })).toEqual({
      path_id: 'plain',
      owner: 'o',
      mdm_enabled: false,
    });
  });
});

describe('the ACME orders page', () => {
  it('shows the enrollment approval an order waits for', () => {
    const orders = RESOURCE_PAGES.find((page) => page.apiPath === '/api/v1/admin/acme/orders')!;
    expect(orders.columns.map((column) => column.key)).toContain('approval_id');
  });
});

describe('renewal of the certificates under a CA (ADR 0076)', () => {
  it('is a row action of the CAs page sending the CA id as the ca_id criterion, after a confirmation', () => {
    const cas = RESOURCE_PAGES.find((page) => page.apiPath === '/api/v1/intermediate-cas')!;
    const action = cas.actions!.find((a) => a.path === OPERATIONS.bulkRenewCertificates.path)!;
    expect(action).toMatchObject({ method: 'POST', bodyFields: { ca_id: 'id' }, confirm: true });
    expect(action.when!({ status: 'revoked' })).toBe(true);
    expect(action.when!({ status: 'pending' })).toBe(false);
  });
});

describe('early renewal of every certificate of an ACME account or profile (RFC 9773 4.2)', () => {
  const bulkPath = '/api/v1/admin/acme/certificates/bulk-renew-early';
  const actionOf = (apiPath: string) =>
    RESOURCE_PAGES.find((page) => page.apiPath === apiPath)!.actions!.find((a) => a.path === bulkPath)!;

  it.each([
    ['/api/v1/admin/acme/accounts', { account_id: 'id' }],
    ['/api/v1/admin/acme/profiles', { acme_profile_id: 'id' }],
  ])('is a row action of %s sending the row id as its criterion, after a confirmation', (apiPath, fields) => {
    const action = actionOf(apiPath);
    expect(action).toMatchObject({ method: 'POST', bodyFields: fields, confirm: true });
    expect(OPERATIONS.acmeBulkRenewCertificatesEarly.path).toBe(bulkPath);
  });

  it('has a form beside the single renew-early on the ACME orders page, for the explanation and spread', () => {
    const orders = RESOURCE_PAGES.find((page) => page.apiPath === '/api/v1/admin/acme/orders')!;
    expect(orders.forms?.map((form) => form.path)).toEqual([
      '/api/v1/admin/acme/certificates/{id}/renew-early',
      bulkPath,
    ]);
  });

  it("sends from rows only body fields the operation's request schema has, and row fields the page's rows have", () => {
    const document = JSON.parse(readFileSync(join(__dirname, '../../../docs/openapi.json'), 'utf8')) as {
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: { $ref: string } }> } }>
      >;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    const withFields = RESOURCE_PAGES.flatMap((page) =>
      (page.actions ?? []).filter((a) => a.bodyFields).map((action) => ({ page, action })),
    );
    // The row schema of each page with such an action (its list's item).
    const ROW_SCHEMAS: Record<string, string> = {
      '/api/v1/admin/acme/accounts': 'AcmeAccountDto',
      '/api/v1/admin/acme/profiles': 'AcmeProfileDto',
      '/api/v1/admin/scep/profiles': 'ScepProfileDto',
      '/api/v1/intermediate-cas': 'CaCertificateDto',
    };
    expect(withFields.map(({ page }) => page.apiPath).sort()).toEqual(Object.keys(ROW_SCHEMAS).sort());
    for (const { page, action } of withFields) {
      const ref =
        document.paths[action.path][action.method.toLowerCase()].requestBody!.content['application/json']
          .schema.$ref;
      const properties = document.components.schemas[ref.split('/').pop()!].properties ?? {};
      const rowSchema = ROW_SCHEMAS[page.apiPath];
      for (const [field, rowField] of Object.entries(action.bodyFields!)) {
        expect(Object.keys(properties)).toContain(field);
        expect(Object.keys(document.components.schemas[rowSchema].properties ?? {})).toContain(rowField);
      }
    }
  });
});

/**
 * "A capability is done when a user can reach it everywhere": every operation the GUI sends, from
 * the page specs (list, create, edit, forms, row, bulk and page actions, detail lists) and from
 * the calls and schema forms written in its source.
 */
function operationsTheGuiSends(): Set<string> {
  const sent = new Set<string>();
  const add = (method: string, path: string) => sent.add(`${method} ${path}`);
  for (const page of RESOURCE_PAGES) {
    add('GET', page.apiPath);
    if (page.create) add('POST', page.apiPath);
    const edit = editOperation(page);
    if (edit) add(edit.method, edit.path);
    for (const form of page.forms ?? []) add(form.method ?? 'POST', form.path);
    for (const action of [...(page.actions ?? []), ...(page.pageActions ?? [])])
      add(action.method, action.path);
    for (const action of page.bulk?.actions ?? []) add('POST', action.path);
    const detail = page.detail ? DETAIL_LISTS[page.detail] : undefined;
    if (detail) add('GET', detail);
  }
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? sources(join(dir, entry.name))
        : /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.spec.ts')
          ? [join(dir, entry.name)]
          : [],
    );
  for (const file of sources(join(__dirname, '../src'))) {
    const text = readFileSync(file, 'utf8');
    for (const [, method, path] of text.matchAll(/api\.(GET|POST|PUT|DELETE)\(\s*'([^']+)'/g))
      add(method, path);
    for (const [tag] of text.matchAll(/<SchemaForm[^>]*>/g)) {
      const path = /path="([^"]+)"/.exec(tag)?.[1];
      if (path) add(/method="PUT"/.test(tag) ? 'PUT' : 'POST', path);
    }
  }
  return sent;
}

describe('every operation of the API is in the GUI (or named as machine-only or a known gap)', () => {
  const sent = operationsTheGuiSends();
  const operations = Object.entries(OPERATIONS) as [string, { method: string; path: string }][];
  const reached = (op: { method: string; path: string }) => sent.has(`${op.method} ${op.path}`);

  it('lists the operations no control sends and that are not named (there must be none)', () => {
    const missing = operations
      .filter(([id, op]) => !reached(op) && !(id in OPERATIONS_WITHOUT_A_CONTROL))
      .map(([id, op]) => `${id} ${op.method} ${op.path}`);
    expect(missing).toEqual([]);
  });

  it('keeps the named ones honest: each an operation the GUI does not send, machine-only or a gap', () => {
    for (const [id, why] of Object.entries(OPERATIONS_WITHOUT_A_CONTROL)) {
      const op = (OPERATIONS as Record<string, { method: string; path: string }>)[id];
      expect([id, op && reached(op)]).toEqual([id, false]);
      expect(why).toMatch(/^(machine|gap): /);
    }
  });

  it('sends every operation it names to the API with the method the API takes', () => {
    const unknown = [...sent].filter(
      (key) => !operations.some(([, op]) => `${op.method} ${op.path}` === key),
    );
    expect(unknown).toEqual([]);
  });
});

describe('OIDC sign-in administration (spec 4.10)', () => {
  const document = JSON.parse(readFileSync(join(__dirname, '../../../docs/openapi.json'), 'utf8')) as {
    components: { schemas: Record<string, JsonSchema> };
  };
  const byPath = (path: string) => RESOURCE_PAGES.find((page) => page.path === path)!;

  it('has a providers page with create, edit, key refresh, key set, delete and an issuer test', () => {
    const providers = byPath('admin/oidc-providers');
    expect(providers).toMatchObject({ apiPath: OPERATIONS.listOidcProviders.path, group: 'admin' });
    expect(providers.create).toBeDefined();
    expect(editOperation(providers)).toEqual({ method: 'PUT', path: OPERATIONS.updateOidcProvider.path });
    expect(providers.detail).toBe('oidc-key-set');
    expect(providers.forms?.map((form) => form.path)).toEqual([OPERATIONS.testOidcProvider.path]);
    expect(providers.actions?.map((action) => `${action.method} ${action.path}`)).toEqual([
      `POST ${OPERATIONS.refreshOidcProvider.path}`,
      `DELETE ${OPERATIONS.deleteOidcProvider.path}`,
    ]);
    const remove = providers.actions![1];
    expect(remove).toMatchObject({ confirm: true, destructive: true });
    expect(remove.refusal!({ user_count: 2 }, 'a')).toContain('disable it instead');
    expect(remove.refusal!({ user_count: 0 }, 'a')).toBeUndefined();
  });

  it('has a group mappings page filtered by provider, with create and delete', () => {
    const mappings = byPath('admin/oidc-group-mappings');
    expect(mappings.apiPath).toBe(OPERATIONS.listOidcGroupMappings.path);
    expect(mappings.create).toBeDefined();
    expect(mappings.filters?.map((filter) => filter.name)).toEqual(['provider_id']);
    expect(mappings.actions?.map((action) => `${action.method} ${action.path}`)).toEqual([
      `DELETE ${OPERATIONS.deleteOidcGroupMapping.path}`,
    ]);
  });

  it('types the client secret into a password field and never shows it back (write-only)', () => {
    for (const name of ['CreateOidcProviderRequest', 'UpdateOidcProviderRequest']) {
      const fields = formFields(document.components.schemas[name]);
      const secret = fields.find((field) => field.name === 'client_secret')!;
      expect(secret.kind).toBe('secret');
      const provider = { name: 'corp', client_id: 'c', has_client_secret: true, client_secret: 'x' };
      expect(initialValues(fields, provider)).not.toHaveProperty('client_secret');
      expect(secretStored(secret, provider)).toBe(true);
      expect(secretStored(secret, { has_client_secret: false })).toBe(false);
      // Left empty, the stored secret is kept: nothing is sent.
      expect(requestBody(fields, { name: 'corp', client_secret: '' }).body).not.toHaveProperty(
        'client_secret',
      );
    }
  });

  it('names the browser handshake as machine-only: links and redirects, not API calls', () => {
    for (const id of ['oidcLogin', 'oidcCallback', 'oidcBackChannelLogout'])
      expect(OPERATIONS_WITHOUT_A_CONTROL[id]).toMatch(/^machine: /);
  });
});
