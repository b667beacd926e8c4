import { Browser, Page } from 'playwright-core';
import { HttpsResult, startTestSystem, TestSystem } from '@certlane/testing';
import { axeProblems, callApi, launchChromium, openContext, signInWithKey } from './gui-harness';

/**
 * What an operator reaches in the GUI beside the API, the CLI and the MCP tools (ADR 0052
 * amendment): deletes and grant revocation as row actions, a certificate's edit and archive,
 * signing out one's other sessions, a deployment's verification, and the API's refusals (a URL
 * with credentials, an issuer kind that cannot issue) shown as the API words them.
 */
const PASSWORD = 'gui-reach-break-glass-password-1';

jest.setTimeout(120_000);

describe('the operations an operator reaches in Chromium', () => {
  let system: TestSystem;
  let gateway: string;
  let browser: Browser;
  let adminKey: string;

  const api = (method: string, path: string, body?: unknown): Promise<HttpsResult> =>
    callApi({ url: gateway, ca: system.ca, key: adminKey }, method, path, body);
  const created = async (path: string, body: unknown) => {
    const answer = await api('POST', path, body);
    expect(`${path} ${answer.status} ${answer.text}`).toMatch(/ 201 /);
    return answer.json() as { id: string };
  };
  const open = (options: { bypassCSP?: boolean } = {}) => openContext(browser, gateway, options);
  const signedIn = async (options: { bypassCSP?: boolean } = {}) => {
    const opened = await open(options);
    await signInWithKey(opened.page, adminKey);
    return opened;
  };
  /** Confirms the open dialog with its button of this name. */
  const confirm = (page: Page, name: string) =>
    page.getByRole('dialog').getByRole('button', { name, exact: true }).click();

  beforeAll(async () => {
    system = await startTestSystem('web-gui-reach', ['auth', 'issuance', 'api-gateway'], {
      SERVICE_KEYGEN_MODE: 'server',
      SERVICE_BREAKGLASS_ENABLED: 'true',
    });
    gateway = system.services['api-gateway'].url;
    const minted = await callApi(
      { url: gateway, ca: system.ca, key: system.env.SERVICE_AUTH_SECRET! },
      'POST',
      '/api/v1/auth/api-keys',
      { name: 'reach-admin', actor_id: 'reach-admin', admin: true, role_ids: ['r-admin'] },
    );
    expect(minted.status).toBe(201);
    adminKey = (minted.json() as { key: string }).key;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('deletes a team after a confirmation naming it', async () => {
    await created('/api/v1/teams', { id: 'team-doomed', name: 'Doomed team' });
    const { context, page } = await signedIn({ bypassCSP: true });
    await page.goto('/teams');
    await page.getByRole('button', { name: 'Delete Doomed team' }).click();
    await page.getByRole('heading', { name: 'Delete Doomed team?' }).waitFor();
    const problems = await axeProblems(page, 'delete confirmation');
    await confirm(page, 'Delete');
    await page.getByRole('status').getByText('Delete Doomed team: Done.').waitFor();
    expect((await api('GET', '/api/v1/teams/team-doomed')).status).toBe(404);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('revokes the grant of the row it is on: the scoped one, leaving the global one', async () => {
    await created('/api/v1/auth/grants', { actor_id: 'reach-viewer', role_id: 'r-viewer' });
    await created('/api/v1/auth/grants', {
      actor_id: 'reach-viewer',
      role_id: 'r-operator',
      scope: 'team:payments',
    });
    const { context, page } = await signedIn();
    await page.goto('/admin/grants?actor_id=reach-viewer');
    const scoped = page.getByRole('row').filter({ hasText: 'team:payments' });
    await scoped.getByRole('button', { name: 'Revoke reach-viewer' }).click();
    await confirm(page, 'Revoke');
    await page.getByRole('status').getByText('Revoke reach-viewer: Done.').waitFor();
    const grants = (await api('GET', '/api/v1/auth/grants?actor_id=reach-viewer')).json() as {
      data: { role_id: string; scope: string }[];
    };
    expect(grants.data.map((grant) => grant.role_id)).toEqual(['r-viewer']);
    await context.close();
  });

  it('edits a certificate from its page, sending only what changed, then archives it after a confirmation', async () => {
    await created('/api/v1/certificates', {
      id: 'reach-edit',
      name: 'reach-edit',
      common_name: 'edit.example.com',
    });
    const sent: unknown[] = [];
    const { context, page } = await signedIn();
    page.on('request', (request) => {
      if (request.method() === 'PUT') sent.push(request.postDataJSON());
    });
    await page.goto('/certificates/reach-edit');
    await page.getByText('Edit reach-edit').click();
    const edit = page.getByRole('form', { name: 'Edit reach-edit' });
    await expect(edit.getByLabel('common_name', { exact: true }).inputValue()).resolves.toBe(
      'edit.example.com',
    );
    await edit.getByLabel('environment', { exact: true }).fill('staging');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    expect(sent).toEqual([{ environment: 'staging' }]);
    expect((await api('GET', '/api/v1/certificates/reach-edit')).json()).toMatchObject({
      environment: 'staging',
    });

    await page.getByRole('button', { name: 'Archive…' }).click();
    await confirm(page, 'Archive');
    await page.getByRole('status').getByText('Archived.').waitFor();
    expect((await api('GET', '/api/v1/certificates/reach-edit')).json()).toMatchObject({
      status: 'Archived',
    });
    await page.getByRole('button', { name: 'Archive…' }).and(page.locator(':disabled')).waitFor();
    await context.close();
  });

  it('shows the 501 of an issuer kind that cannot issue as the API words it, on create and on renew', async () => {
    const remote = await created('/api/v1/issuers', {
      name: 'DigiCert',
      type: 'digicert',
      config: { api_key: 'dc-key-0123456789', product_name_id: 'ssl_plus' },
    });
    await created('/api/v1/certificates', {
      id: 'reach-moved',
      name: 'reach-moved',
      common_name: 'moved.example.com',
    });
    const { context, page } = await signedIn();
    await page.goto('/certificates');
    await page.getByText('New certificate').click();
    const form = page.getByRole('form', { name: 'New certificate' });
    await form.getByLabel('common_name', { exact: true }).fill('remote.example.com');
    await form.getByLabel('issuer_id', { exact: true }).fill(remote.id);
    await form.getByRole('button', { name: 'Create' }).click();
    await form
      .getByRole('alert')
      .getByText(/of type digicert, which cannot issue yet: .* \(not_implemented\)\.$/)
      .waitFor();

    // A certificate moved under that issuer (from its edit form) is refused the same on renewal.
    await page.goto('/certificates/reach-moved');
    await page.getByText('Edit reach-moved').click();
    const edit = page.getByRole('form', { name: 'Edit reach-moved' });
    await edit.getByLabel('issuer_id', { exact: true }).fill(remote.id);
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    await page.getByRole('button', { name: 'Renew', exact: true }).click();
    await page
      .getByRole('alert')
      .getByText(/names issuer .* of type digicert, which cannot issue yet: .* \(not_implemented\)\.$/)
      .waitFor();
    await context.close();
  });

  it("refuses an issuer URL with credentials, the API's reason beside the config key", async () => {
    const { context, page } = await signedIn();
    await page.goto('/issuers');
    await page.getByText('New issuer').click();
    const form = page.getByRole('form', { name: 'New issuer' });
    await form.getByLabel('name (required)').fill('Vault with a password in its URL');
    await form.getByLabel('type (required)').selectOption('vault_pki');
    await form.getByLabel('address (required)').fill('https://admin:hunter2@vault.example.test');
    await form.getByLabel('mount (required)').fill('pki');
    await form.getByLabel('role (required)').fill('web');
    await form.getByLabel('token (required)').fill('vault-token-2');
    await form.getByRole('button', { name: 'Create' }).click();
    await form
      .locator('[id$="field-address-error"]')
      .getByText('must be an https:// URL without credentials')
      .waitFor();
    const issuers = (await api('GET', '/api/v1/issuers?per_page=100')).json() as { data: { name: string }[] };
    expect(issuers.data.map((issuer) => issuer.name)).not.toContain('Vault with a password in its URL');
    await context.close();
  });

  it('signs out the other sessions of the caller from the sessions page, keeping this one', async () => {
    await created('/api/v1/auth/grants', { actor_id: 'reach-ops', role_id: 'r-admin' });
    const set = await api('POST', '/api/v1/auth/breakglass/credentials', {
      actor_id: 'reach-ops',
      password: PASSWORD,
    });
    expect(set.status).toBe(201);
    const signInBreakGlass = async () => {
      const opened = await open();
      await opened.page.goto('/login');
      await opened.page.locator('#bg-actor').fill('reach-ops');
      await opened.page.locator('#bg-password').fill(PASSWORD);
      await opened.page.getByRole('button', { name: 'Sign in with break-glass' }).click();
      await opened.page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
      return opened;
    };
    const here = await signInBreakGlass();
    const elsewhere = await signInBreakGlass();
    await here.page.goto('/admin/sessions');
    await here.page.getByRole('button', { name: 'Sign out my other sessions' }).click();
    await confirm(here.page, 'Sign out my other sessions');
    await here.page
      .getByRole('status')
      .getByText('Sign out my other sessions: 1 session signed out.')
      .waitFor();
    const sessions = (await api('GET', '/api/v1/auth/sessions?all=true&per_page=100')).json() as {
      data: { actor_id: string }[];
    };
    expect(sessions.data.filter((session) => session.actor_id === 'reach-ops')).toHaveLength(1);
    await here.page.reload();
    await here.page.getByRole('heading', { name: 'Sessions', level: 1 }).waitFor();
    await elsewhere.page.reload();
    await elsewhere.page.getByRole('button', { name: 'Sign in with break-glass' }).waitFor();
    await here.context.close();
    await elsewhere.context.close();
  });

  it("verifies a deployment from the jobs page, showing the API's refusal of a job that deployed nothing", async () => {
    await created('/api/v1/certificates', { id: 'reach-job', common_name: 'job.example.com' });
    const jobs = (await api('GET', '/api/v1/jobs?certificate_id=reach-job')).json() as {
      data: { id: string; type: string }[];
    };
    const job = jobs.data[0];
    expect(job.type).toBe('Issuance');
    const { context, page } = await signedIn();
    await page.goto('/jobs');
    await page.getByText('Verify a deployment').click();
    const form = page.getByRole('form', { name: /^Verify a deployment/ });
    await form.getByLabel('id (required)').fill(job.id);
    await form.getByLabel('endpoint', { exact: true }).fill('job.example.com:443');
    await form.getByRole('button', { name: 'Verify' }).click();
    await form.getByRole('alert').getByText('only deployments are verified').waitFor();
    await context.close();
  });
});
