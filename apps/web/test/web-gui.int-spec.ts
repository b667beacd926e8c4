import { Browser } from 'playwright-core';
import { CertificateDto, StatsSummaryDto } from '@certlane/contracts';
import {
  eventually,
  HttpsResult,
  openSqlSession,
  signSubCaWithExternalRoot,
  startTestSystem,
  TestSystem,
} from '@certlane/testing';
import {
  checkPages,
  launchChromium,
  openContext,
  recordApiBodies,
  signInWithKey,
  callApi,
} from './gui-harness';

/**
 * The web GUI (issue 18, ADR 0052) in a real browser, Debian's chromium driven by
 * playwright-core, against a running system (auth, issuance, revocation, gateway processes).
 */
const PASSWORD = 'gui-break-glass-password-1';
const PAGES = [
  ['/', 'Dashboard'],
  ['/certificates', 'Certificates'],
  ['/certificates/gui-d', 'gui-d'],
  ['/agents', 'Agents'],
  ['/jobs', 'Jobs'],
  ['/approvals', 'Approvals'],
  ['/issuers', 'Issuers'],
  ['/intermediate-cas', 'CAs'],
  ['/targets', 'Targets'],
  ['/profiles', 'Profiles'],
  ['/policies', 'Policy rules'],
  ['/renewal-policies', 'Renewal policies'],
  ['/owners', 'Owners'],
  ['/teams', 'Teams'],
  ['/audit', 'Audit'],
  ['/agents/retired', 'Retired agents'],
  ['/admin/api-keys', 'API keys'],
  ['/admin/actors', 'Actors and roles'],
  ['/admin/roles', 'Roles'],
  ['/admin/grants', 'Grants'],
  ['/admin/users', 'Users'],
  ['/admin/sessions', 'Sessions'],
  ['/admin/break-glass', 'Break-glass credentials'],
] as const;

// Chromium and five services on a shared CI machine: generous, never a sleep.
jest.setTimeout(120_000);

describe('the web GUI in Chromium', () => {
  let system: TestSystem;
  let gateway: string;
  let browser: Browser;
  let adminKey: string;
  let adminKeyId: string;

  const api = (method: string, path: string, body?: unknown, key = adminKey): Promise<HttpsResult> =>
    callApi({ url: gateway, ca: system.ca, key: key }, method, path, body);

  const open = (options: { bypassCSP?: boolean } = {}) => openContext(browser, gateway, options);

  beforeAll(async () => {
    system = await startTestSystem(
      'web-gui',
      ['auth', 'issuance', 'revocation', 'deployment-dispatch', 'api-gateway'],
      {
        SERVICE_KEYGEN_MODE: 'server',
        SERVICE_BREAKGLASS_ENABLED: 'true',
      },
    );
    gateway = system.services['api-gateway'].url;
    const minted = await api(
      'POST',
      '/api/v1/auth/api-keys',
      { name: 'gui-admin', actor_id: 'gui-admin', admin: true, role_ids: ['r-admin'] },
      system.env.SERVICE_AUTH_SECRET,
    );
    expect(minted.status).toBe(201);
    ({ key: adminKey, id: adminKeyId } = minted.json() as { key: string; id: string });
    for (const id of ['gui-a', 'gui-b', 'gui-c', 'gui-d']) {
      const created = await api('POST', '/api/v1/certificates', { id, common_name: `${id}.example.com` });
      expect(`${created.status} ${created.text}`).toMatch(/^201 /);
    }
    // Something on every page: a team, an owner, a renewal policy, a profile that needs approval
    // and two certificates waiting for it (an approval and a job each).
    const setup: [string, unknown][] = [
      ['/api/v1/teams', { id: 'team-gui', name: 'Team GUI', description: 'the GUI tests' }],
      [
        '/api/v1/owners',
        { id: 'owner-gui', name: 'Owner GUI', email: 'gui@example.com', team_id: 'team-gui' },
      ],
      ['/api/v1/renewal-policies', { name: 'GUI policy', max_retries: 2 }],
      ['/api/v1/profiles', { id: 'prof-gui-gated', name: 'Gated', requires_approval: true }],
      [
        '/api/v1/certificates',
        { id: 'gui-gated-1', common_name: 'g1.example.com', profile_id: 'prof-gui-gated' },
      ],
      [
        '/api/v1/certificates',
        { id: 'gui-gated-2', common_name: 'g2.example.com', profile_id: 'prof-gui-gated' },
      ],
    ];
    for (const [path, body] of setup) {
      const created = await api('POST', path, body);
      expect(`${path} ${created.status} ${created.text}`).toMatch(/ 201 /);
    }
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('is served from the gateway origin with a strict CSP, hashed immutable assets and a no-cache index', async () => {
    const { context, page } = await open();
    const index = await page.request.get('/certificates?status=Active');
    expect(index.status()).toBe(200);
    expect(index.headers()['content-type']).toMatch(/^text\/html/);
    expect(index.headers()['cache-control']).toBe('no-cache');
    const csp = index.headers()['content-security-policy'];
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    const html = await index.text();
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toMatch(/^\/assets\/index-[\w-]{8}\.js$/);
    const asset = await page.request.get(script!);
    expect(asset.status()).toBe(200);
    expect(asset.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
    // The API keeps its JSON 404 and its stricter CSP; a missing asset is no index.html.
    const missing = await page.request.get('/api/v1/no-such-route');
    expect(missing.status()).toBe(404);
    expect(missing.headers()['content-type']).toMatch(/^application\/json/);
    expect(missing.headers()['content-security-policy']).toContain("default-src 'none'");
    expect((await page.request.get('/assets/nope-12345678.js')).status()).toBe(404);
    await context.close();
  });

  it("signs in with an API key kept out of localStorage, and shows the API's numbers on the dashboard without CSP violations", async () => {
    const { context, page, violations } = await open();
    await signInWithKey(page, adminKey);
    const summary = (await api('GET', '/api/v1/stats/summary')).json() as StatsSummaryDto;
    await page.getByTestId('stat-total').getByText(String(summary.total_certificates)).waitFor();
    for (const status of ['Active', 'Revoked', 'Expiring'] as const) {
      await expect(page.getByTestId(`stat-${status}`).locator('.stat-value').textContent()).resolves.toBe(
        String(summary.by_status[status]),
      );
    }
    await expect(page.getByTestId('stat-days-90').locator('.stat-value').textContent()).resolves.toBe(
      String(summary.expiring_within.days_90),
    );
    await page.locator('.chart canvas').first().waitFor();
    const approvals = (await api('GET', '/api/v1/approvals?status=pending&per_page=1')).json() as {
      total: number;
    };
    await expect(page.getByTestId('stat-approvals').locator('.stat-value').textContent()).resolves.toBe(
      String(approvals.total),
    );
    // The fleet and the open violations come from their summary routes, counted over everything.
    const violationSummary = (await api('GET', '/api/v1/policies/violations/summary')).json() as {
      open: number;
    };
    await expect(page.getByTestId('stat-violations').locator('.stat-value').textContent()).resolves.toBe(
      String(violationSummary.open),
    );
    const fleet = (await api('GET', '/api/v1/agents/summary')).json() as Record<string, number>;
    for (const status of ['Online', 'Degraded', 'Offline']) {
      await expect(
        page.getByTestId(`stat-agents-${status}`).locator('.stat-value').textContent(),
      ).resolves.toBe(String(fleet[status.toLowerCase()]));
    }
    expect(await page.evaluate('localStorage.length')).toBe(0);
    expect(await page.evaluate<string>('document.cookie')).not.toContain(adminKey);
    // Each number links to its filtered list.
    await page.getByTestId('stat-Active').click();
    await page.waitForURL(/\/certificates\?status=Active$/);
    expect(violations).toEqual([]);
    await context.close();
  });

  it("keeps the list filter in the URL across a reload and shows the API's total", async () => {
    const { context, page, violations } = await open();
    await signInWithKey(page, adminKey);
    await page.goto('/certificates');
    await page.getByLabel('Status').selectOption('Active');
    await page.waitForURL(/status=Active/);
    await page.reload();
    await expect(page.getByLabel('Status').inputValue()).resolves.toBe('Active');
    const total = ((await api('GET', '/api/v1/certificates?status=Active')).json() as { total: number })
      .total;
    await page.getByTestId('page-status').getByText(`(${total} in all)`).waitFor();
    expect(total).toBeGreaterThan(0);
    expect(violations).toEqual([]);
    await context.close();
  });

  it('revokes only with a reason from the RFC 5280 menu', async () => {
    const { context, page } = await open();
    await signInWithKey(page, adminKey);
    await page.goto('/certificates/gui-a');
    await page.getByRole('button', { name: 'Revoke…' }).click();
    const confirm = page.getByRole('dialog').getByRole('button', { name: 'Revoke', exact: true });
    await expect(confirm.isDisabled()).resolves.toBe(true);
    await page.getByLabel('Reason').selectOption('keyCompromise');
    await confirm.click();
    await page.getByRole('status').getByText('Revoked.').waitFor();
    const certificate = (await api('GET', '/api/v1/certificates/gui-a')).json() as CertificateDto;
    expect(certificate.status).toBe('Revoked');
    expect(certificate.revocation_reason).toBe('keyCompromise');
    await context.close();
  });

  it('bulk-revokes the selection after a confirmation that names the count', async () => {
    const { context, page } = await open();
    await signInWithKey(page, adminKey);
    await page.goto('/certificates?status=Active');
    await page.getByLabel('Select gui-b').check();
    await page.getByLabel('Select gui-c').check();
    await page.getByRole('button', { name: 'Revoke selected' }).click();
    await page.getByRole('heading', { name: 'Revoke 2 certificates?' }).waitFor();
    await page.getByLabel('Reason').selectOption('superseded');
    await page.getByRole('button', { name: 'Revoke 2 certificates' }).click();
    await page
      .getByRole('status')
      .getByText(/Revoked 2 of 2/)
      .waitFor();
    for (const id of ['gui-b', 'gui-c']) {
      expect(((await api('GET', `/api/v1/certificates/${id}`)).json() as CertificateDto).status).toBe(
        'Revoked',
      );
    }
    await context.close();
  });

  it('bulk-revokes only the EST-enrolled certificates of the selection, after a confirmation', async () => {
    for (const id of ['gui-est', 'gui-not-est']) {
      const created = await api('POST', '/api/v1/certificates', { id, common_name: `${id}.example.com` });
      expect(`${created.status} ${created.text}`).toMatch(/^201 /);
    }
    const status = async (id: string) =>
      ((await api('GET', `/api/v1/certificates/${id}`)).json() as CertificateDto).status;
    await eventually(
      async () => (await status('gui-est')) === 'Active' && (await status('gui-not-est')) === 'Active',
      'both certificates issued',
    );
    // As an EST enrollment leaves it (the API creates certificates of source API).
    const db = await openSqlSession(system.database.url);
    await db.query(`UPDATE issuance.certificates SET source = 'EST' WHERE id = 'gui-est'`);
    await db.end();
    const sent: string[] = [];
    const { context, page } = await open();
    page.on('request', (request) => {
      if (request.method() === 'POST') sent.push(new URL(request.url()).pathname);
    });
    await signInWithKey(page, adminKey);
    await page.goto('/certificates?status=Active');
    await page.getByLabel('Select gui-est').check();
    await page.getByLabel('Select gui-not-est').check();
    await page.getByRole('button', { name: 'Revoke the selected EST certificates' }).click();
    await page.getByRole('heading', { name: 'Revoke 2 certificates (EST only)?' }).waitFor();
    await page.getByRole('dialog').getByText('Only those enrolled over EST are revoked').waitFor();
    expect(sent).toEqual([]);
    await page.getByLabel('Reason').selectOption('cessationOfOperation');
    await page.getByRole('button', { name: 'Revoke 2 certificates (EST only)' }).click();
    await page
      .getByRole('status')
      .getByText(/^Revoked 1 of 1;/)
      .waitFor();
    expect(sent).toEqual(['/api/v1/est/certificates/bulk-revoke']);
    await expect(status('gui-est')).resolves.toBe('Revoked');
    await expect(status('gui-not-est')).resolves.toBe('Active');
    await context.close();
  });

  it('signs in with break-glass and sends X-CSRF-Token on state-changing calls', async () => {
    const set = await api('POST', '/api/v1/auth/breakglass/credentials', {
      actor_id: 'gui-admin',
      password: PASSWORD,
    });
    expect(set.status).toBe(201);
    const { context, page } = await open();
    const csrfHeaders: (string | undefined)[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().includes('/api/v1/'))
        csrfHeaders.push(request.headers()['x-csrf-token']);
    });
    await page.goto('/login');
    await page.locator('#bg-actor').fill('gui-admin');
    await page.locator('#bg-password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in with break-glass' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    const cookies = await context.cookies();
    expect(cookies.find((cookie) => cookie.name === 'service_session')?.httpOnly).toBe(true);
    const csrf = cookies.find((cookie) => cookie.name === 'service_csrf')?.value;
    expect(csrf).toBeTruthy();
    await page.goto('/certificates/gui-d');
    await page.getByRole('button', { name: 'Force renew' }).click();
    await page
      .getByRole('status')
      .getByText(/Renewal:/)
      .waitFor();
    expect(csrfHeaders).toEqual([csrf]);
    // A reload keeps the session (the cookie), with no key stored anywhere.
    await page.reload();
    await page.getByRole('heading', { name: 'gui-d', level: 1 }).waitFor();
    expect(await page.evaluate('sessionStorage.length + localStorage.length')).toBe(0);
    await context.close();
  });

  it('returns to sign-in, without crashing, when the key is revoked under it', async () => {
    const { context, page, violations } = await open();
    const minted = await api('POST', '/api/v1/auth/api-keys', {
      name: 'gui-short-lived',
      actor_id: 'gui-short-lived',
      role_ids: ['r-viewer'],
    });
    expect(minted.status).toBe(201);
    const { key, id } = minted.json() as { key: string; id: string };
    await signInWithKey(page, key);
    // The dashboard's own calls answered first: one still in flight would meet the revoked key
    // and sign out before the click this test makes.
    // (A locator, not a script: this context keeps the CSP, which forbids evaluating strings.)
    await page.locator('.stat-value').filter({ hasText: '…' }).first().waitFor({ state: 'detached' });
    expect((await api('DELETE', `/api/v1/auth/api-keys/${id}`)).status).toBe(204);
    // The gateway forgets the key when the revocation event reaches it.
    await eventually(
      async () => (await api('GET', '/api/v1/auth/me', undefined, key)).status === 401,
      'the revoked key refused',
    );
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Jobs', exact: true })
      .click();
    await page.getByText('Your sign-in is no longer valid. Sign in again.').waitFor();
    expect(page.url()).toMatch(/\/login$/);
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    expect(violations).toEqual([]);
    // The admin key still works: a fresh sign-in lands on the dashboard again.
    await signInWithKey(page, adminKey);
    expect(adminKeyId).toBeTruthy();
    await context.close();
  });

  it('renders every page with data, with no serious or critical axe-core violation, and screenshots it', async () => {
    const { context, page } = await open({ bypassCSP: true });
    const bodies = recordApiBodies(page);
    await signInWithKey(page, adminKey);
    const secrets = [
      system.env.SERVICE_AUTH_SECRET!,
      system.env.SERVICE_CONFIG_ENCRYPTION_KEY!,
      system.env.SERVICE_BOOTSTRAP_TOKEN!,
      PASSWORD,
      adminKey,
    ].filter(Boolean);
    const problems = await checkPages(page, PAGES, secrets);
    // Nor in anything the API sent the browser.
    for (const body of await Promise.all(bodies)) {
      for (const secret of secrets) if (body.includes(secret)) problems.push('a secret in an API response');
    }
    expect(bodies.length).toBeGreaterThan(PAGES.length);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('never lets the requester decide their own approval; another user approves it', async () => {
    const pending = (
      (await api('GET', '/api/v1/approvals?status=pending')).json() as {
        data: { id: string; certificate_id: string; requested_by: string }[];
      }
    ).data.find((approval) => approval.certificate_id === 'gui-gated-1')!;
    expect(pending.requested_by).toBe('gui-admin');
    const own = await open();
    await signInWithKey(own.page, adminKey);
    await own.page.goto('/approvals?status=pending');
    const ownButton = own.page.getByRole('button', { name: `Approve ${pending.id}` });
    await expect(ownButton.isDisabled()).resolves.toBe(true);
    await expect(ownButton.getAttribute('title')).resolves.toMatch(/another person must decide/);
    await own.context.close();

    const second = await api(
      'POST',
      '/api/v1/auth/api-keys',
      { name: 'gui-approver', actor_id: 'gui-approver', role_ids: ['r-operator'] },
      system.env.SERVICE_AUTH_SECRET,
    );
    expect(second.status).toBe(201);
    const other = await open();
    await signInWithKey(other.page, (second.json() as { key: string }).key);
    await other.page.goto('/approvals?status=pending');
    await other.page.getByRole('button', { name: `Approve ${pending.id}` }).click();
    await other.page.getByLabel('Reason (optional)').fill('looks right');
    await other.page.getByRole('dialog').getByRole('button', { name: 'Approve', exact: true }).click();
    await other.page.getByRole('status').getByText(`Approve ${pending.id}: status: approved`).waitFor();
    const decided = (await api('GET', `/api/v1/approvals/${pending.id}`)).json() as {
      status: string;
      decided_by: string;
    };
    expect(decided).toMatchObject({ status: 'approved', decided_by: 'gui-approver' });
    await other.context.close();
  });

  it('cancels a job from the jobs page after a confirmation', async () => {
    const job = (
      (await api('GET', '/api/v1/jobs?certificate_id=gui-gated-2')).json() as {
        data: { id: string; status: string }[];
      }
    ).data[0];
    expect(job.status).toBe('AwaitingApproval');
    const { context, page } = await open();
    await signInWithKey(page, adminKey);
    await page.goto('/jobs?certificate_id=gui-gated-2');
    await page.getByRole('button', { name: `Cancel ${job.id}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel', exact: true }).click();
    await page.getByRole('status').getByText(`Cancel ${job.id}: status: Cancelled`).waitFor();
    expect(((await api('GET', `/api/v1/jobs/${job.id}`)).json() as { status: string }).status).toBe(
      'Cancelled',
    );
    await context.close();
  });

  it('creates through a form drawn from the request schema, refusing what the API would, with its errors beside the field', async () => {
    const { context, page } = await open();
    await signInWithKey(page, adminKey);
    await page.goto('/teams');
    await page.getByText('New team').click();
    const form = page.getByRole('form', { name: 'New team' });
    // The schema's pattern for ids: the browser refuses before any request.
    await form.getByLabel('id', { exact: true }).fill('Not An Id');
    await form.getByLabel('name (required)').fill('Platform');
    await expect(
      form
        .getByLabel('id', { exact: true })
        .evaluate((input: { validity: { patternMismatch: boolean } }) => input.validity.patternMismatch),
    ).resolves.toBe(true);
    await form.getByLabel('id', { exact: true }).fill('team-platform');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('status').getByText('Created.').waitFor();
    await page.getByRole('cell', { name: 'team-platform' }).waitFor();
    expect((await api('GET', '/api/v1/teams/team-platform')).status).toBe(200);

    // The API's own refusal shows beside the field it names.
    await page.goto('/owners');
    await page.getByText('New owner').click();
    const owner = page.getByRole('form', { name: 'New owner' });
    await owner.getByLabel('name (required)').fill('Someone');
    await owner.getByLabel('email', { exact: false }).fill('someone@example.com');
    await owner.getByLabel('team_id', { exact: false }).fill('no-such-team');
    await owner.getByRole('button', { name: 'Create' }).click();
    const fieldError = owner.locator('[id$="field-team_id-error"]');
    await fieldError.getByText('does not exist').waitFor();
    await expect(
      owner.getByLabel('team_id', { exact: false }).getAttribute('aria-describedby'),
    ).resolves.toBe(await fieldError.getAttribute('id'));
    await context.close();
  });

  it('reassigns the selection in bulk, naming the count', async () => {
    const { context, page } = await open();
    await signInWithKey(page, adminKey);
    await page.goto('/certificates?status=Active');
    await page.getByLabel('Select gui-d').check();
    await page.getByRole('button', { name: 'Reassign selected' }).click();
    await page.getByRole('heading', { name: 'Reassign 1 certificate?' }).waitFor();
    await page.getByLabel('New owner id (required)').fill('owner-gui');
    await page.getByLabel('New team id (optional)').fill('team-gui');
    await page.getByRole('button', { name: 'Reassign 1 certificate' }).click();
    await page
      .getByRole('status')
      .getByText(/Reassigned 1 of 1/)
      .waitFor();
    expect((await api('GET', '/api/v1/certificates/gui-d')).json()).toMatchObject({
      owner_id: 'owner-gui',
      team_id: 'team-gui',
    });
    await context.close();
  });

  it("shows an issuer's record and CRL status, and the CAs as a tree", async () => {
    const { context, page } = await open();
    await signInWithKey(page, adminKey);
    await page.goto('/issuers');
    await page
      .getByRole('button', { name: /^Details of / })
      .first()
      .click();
    const details = page.getByRole('region', { name: /^Details: / });
    await details.getByText('capabilities').waitFor();
    const crl = (await api('GET', '/api/v1/crl?issuer_id=iss-local&limit=1')).json() as { version: number };
    await page
      .getByRole('region', { name: 'Revocation status' })
      .getByText(`CRL number ${crl.version}`)
      .waitFor();
    const cas = (await api('GET', '/api/v1/intermediate-cas')).json() as { data: { id: string }[] };
    await page.goto('/intermediate-cas');
    const tree = page.getByRole('region', { name: 'CA tree' });
    await tree.waitFor();
    await expect(tree.getByRole('listitem').count()).resolves.toBe(cas.data.length);
    // A CA's details list its cross-certificates (ADR 0070); the page has the cross-sign form.
    await page
      .getByRole('button', { name: /^Details of / })
      .first()
      .click();
    await page
      .getByRole('region', { name: 'Cross-certificates' })
      .getByText('No cross-certificate')
      .waitFor();
    await page.getByText('Cross-sign a CA', { exact: false }).first().waitFor();

    // Revoking a child CA (ADR 0075): the reason is a choice of the CA reasons, the row says revoked.
    const child = (
      await api('POST', '/api/v1/intermediate-cas', {
        issuer_id: 'iss-local',
        parent_id: 'ca-local-root',
        common_name: 'GUI Revoked CA',
      })
    ).json() as { id: string };
    await page.reload();
    await page.getByText('Revoke a child CA', { exact: false }).click();
    const revoke = page.getByRole('form', {
      name: "Revoke a child CA (listed on its parent's CRL and OCSP; final)",
    });
    const reasons = await revoke.getByLabel('reason').locator('option').allTextContents();
    expect(reasons).toContain('caCompromise');
    expect(reasons).not.toContain('certificateHold');
    await revoke.getByLabel('id (required)').fill(child.id);
    await revoke.getByLabel('reason').selectOption('cessationOfOperation');
    await revoke.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('status').getByText('Revoked:', { exact: false }).waitFor();
    const after = (await api('GET', `/api/v1/intermediate-cas/${child.id}`)).json() as Record<
      string,
      unknown
    >;
    expect(after).toMatchObject({ status: 'revoked', revocation_reason: 'cessationOfOperation' });
    // A cross-certificate's revocation has its own form: CA, cross-certificate and reason.
    await page.getByText('Revoke a cross-certificate signed here', { exact: false }).click();
    const revokeCross = page.getByRole('form', { name: /^Revoke a cross-certificate signed here/ });
    await revokeCross.getByLabel('cross_id (required)').waitFor();
    expect(await revokeCross.getByLabel('reason').locator('option').allTextContents()).toContain(
      'superseded',
    );
    await page
      .getByRole('row', { name: /GUI Revoked CA/ })
      .getByText('revoked', { exact: true })
      .waitFor();

    // A sub-CA under an external root (ADR 0022 amendment): its signed certificate, the chain up to
    // that root, and `issuing`, installed from the page; under an issuer of its own, so the other
    // tests keep issuing under the seeded CAs.
    const issuer = (
      await api('POST', '/api/v1/issuers', { name: 'GUI external', type: 'local_ca' })
    ).json() as {
      id: string;
    };
    const pending = (
      await api('POST', '/api/v1/intermediate-cas', {
        issuer_id: issuer.id,
        common_name: 'GUI External Sub CA',
        external: true,
      })
    ).json() as { id: string; csr_pem: string };
    const signed = signSubCaWithExternalRoot(pending.csr_pem);
    await page.reload();
    await page.getByText("Install a pending sub-CA's certificate", { exact: false }).click();
    const install = page.getByRole('form', { name: /^Install a pending sub-CA's certificate/ });
    await install.getByLabel('id (required)').fill(pending.id);
    await install.getByLabel('certificate_pem (required)').fill(signed.certificatePem);
    await install.getByLabel('chain_pem').fill(signed.rootPem);
    await install.getByLabel('issuing').check();
    await install.getByRole('button', { name: 'Install' }).click();
    await page.getByRole('status').getByText('Installed:', { exact: false }).waitFor();
    expect((await api('GET', `/api/v1/intermediate-cas/${pending.id}`)).json()).toMatchObject({
      status: 'active',
      issuing: true,
      external_chain_pem: expect.stringContaining('BEGIN CERTIFICATE'),
    });
    await context.close();
  });

  it('lists the certificates under a CA from its details, and renews them with a row action', async () => {
    // ADR 0076: a CA that issued a certificate, then another CA made issuing (so renewals move).
    const under = (
      await api('POST', '/api/v1/intermediate-cas', {
        issuer_id: 'iss-local',
        parent_id: 'ca-local-root',
        common_name: 'GUI Under CA',
        issuing: true,
      })
    ).json() as { id: string; subject: string };
    expect(
      (await api('POST', '/api/v1/certificates', { id: 'gui-under-1', common_name: 'under.gui.example' }))
        .status,
    ).toBe(201);
    await api('POST', '/api/v1/intermediate-cas', {
      issuer_id: 'iss-local',
      parent_id: 'ca-local-root',
      common_name: 'GUI Next CA',
      issuing: true,
    });
    const { context, page } = await open();
    await signInWithKey(page, adminKey);
    await page.goto('/intermediate-cas');
    await page.getByRole('button', { name: `Details of ${under.subject}` }).click();
    await page
      .getByRole('region', { name: 'Certificates under this CA' })
      .getByRole('link', { name: '1 certificate' })
      .click();
    await page.waitForURL(new RegExp(`/certificates\\?ca_id=${under.id}`));
    await expect(page.getByLabel('Under CA id').inputValue()).resolves.toBe(under.id);
    await page.getByLabel('Select under.gui.example').waitFor();
    await page.getByTestId('page-status').getByText('(1 in all)').waitFor();

    await page.goto('/intermediate-cas');
    await page.getByRole('button', { name: `Renew its certificates ${under.subject}` }).click();
    await page
      .getByRole('dialog')
      .getByRole('button', { name: 'Renew its certificates', exact: true })
      .click();
    await page
      .getByRole('status')
      .getByText(/renewal queued for 1 of 1 certificates; 0 failed/)
      .waitFor();
    await eventually(
      async () =>
        ((await api('GET', '/api/v1/certificates/gui-under-1/versions')).json() as { total: number })
          .total === 2,
      'the certificate under the CA renewed',
    );
    const left = (await api('GET', `/api/v1/certificates?ca_id=${under.id}`)).json() as { total: number };
    expect(left.total).toBe(0);
    // The certificate's versions name the CA that signed each.
    await page.goto('/certificates/gui-under-1');
    await page.getByRole('link', { name: under.id, exact: true }).waitFor();
    await context.close();
  });

  it("edits a record sending only what changed, shows a rule's violations, and dry-runs the rules", async () => {
    const { context, page } = await open();
    await signInWithKey(page, adminKey);
    await page.goto('/teams');
    await page.getByRole('button', { name: 'Details of Team GUI' }).click();
    await page.getByText('Edit Team GUI').click();
    const edit = page.getByRole('form', { name: 'Edit Team GUI' });
    await expect(edit.getByLabel('name', { exact: true }).inputValue()).resolves.toBe('Team GUI');
    await edit.getByLabel('description', { exact: true }).fill('renamed by the GUI test');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    expect((await api('GET', '/api/v1/teams/team-gui')).json()).toMatchObject({
      name: 'Team GUI',
      description: 'renamed by the GUI test',
    });
    // An emptied field is sent emptied, not left out (which the API reads as "keep").
    await edit.getByLabel('description', { exact: true }).fill('');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    expect((await api('GET', '/api/v1/teams/team-gui')).json()).toMatchObject({
      name: 'Team GUI',
      description: '',
    });

    const rule = await api('POST', '/api/v1/policies', {
      name: 'No example.com',
      type: 'AllowedDomains',
      severity: 'Error',
      config: { allowed: ['example.org'] },
    });
    await page.goto('/policies');
    await page.getByText('Dry run: which rules would a certificate break?').click();
    const dryRun = page.getByRole('form', { name: 'Dry run: which rules would a certificate break?' });
    await dryRun.getByLabel(/^common_name/).fill('www.example.com');
    await dryRun.getByRole('button', { name: 'Evaluate' }).click();
    const evaluated = (
      await api('POST', '/api/v1/policies/evaluate', { common_name: 'www.example.com' })
    ).json() as { violations: unknown[] };
    expect(`${rule.status} ${rule.text}`).toMatch(/^201 /);
    expect(evaluated.violations.length).toBeGreaterThan(0);
    await page.getByRole('status').getByText(`Evaluated: ${evaluated.violations.length} violation`).waitFor();
    await page.getByRole('button', { name: 'Details of No example.com' }).click();
    await page.getByRole('region', { name: 'Violations' }).locator('table, .empty').first().waitFor();
    await context.close();
  });

  it("redacts a target's secret-named config, and retires an agent: refused with its dependency counts, then forced with a reason", async () => {
    const agent = await api('POST', '/api/v1/agents', {
      id: 'gui-agent',
      name: 'gui-agent',
      hostname: 'gui.example',
    });
    expect(`${agent.status} ${agent.text}`).toMatch(/^201 /);
    const target = await api('POST', '/api/v1/targets', {
      name: 'gui-web',
      type: 'nginx',
      agent_id: 'gui-agent',
      config: { cert_path: '/etc/nginx/gui.crt', key_path: '/etc/nginx/gui.key' },
    });
    expect(`${target.status} ${target.text}`).toMatch(/^201 /);
    const { context, page } = await open();
    await signInWithKey(page, adminKey);

    await page.goto('/targets');
    await page.getByRole('button', { name: 'Details of gui-web' }).click();
    const details = page.getByRole('region', { name: 'Details: gui-web' });
    await details.getByText('/etc/nginx/gui.crt').waitFor();
    expect(await details.textContent()).not.toContain('/etc/nginx/gui.key');
    expect(await details.textContent()).toContain('(write-only)');

    await page.goto('/agents');
    await page.getByRole('button', { name: 'Retire gui-agent', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Retire', exact: true }).click();
    await page
      .getByRole('dialog')
      .getByRole('alert')
      .getByText(/Blocked by: .*1 active_targets/)
      .waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: 'Force retire gui-agent' }).click();
    const confirm = page.getByRole('dialog').getByRole('button', { name: 'Force retire', exact: true });
    await expect(confirm.isDisabled()).resolves.toBe(true);
    await page.getByLabel('Reason').fill('decommissioned by the GUI test');
    await confirm.click();
    await page
      .getByRole('status')
      .getByText(/^Force retire gui-agent:/)
      .waitFor();
    expect((await api('GET', '/api/v1/agents/gui-agent')).json()).toMatchObject({
      status: 'Retired',
      retired_reason: 'decommissioned by the GUI test',
    });
    await context.close();
  });

  it('creates a target from the config form of its kind (secret keys masked) and edits it keeping the stored secret', async () => {
    const agent = await api('POST', '/api/v1/agents', {
      id: 'gui-form-agent',
      name: 'gui-form-agent',
      hostname: 'f.example',
    });
    expect(`${agent.status} ${agent.text}`).toMatch(/^201 /);
    const { context, page, violations } = await open();
    await signInWithKey(page, adminKey);
    await page.goto('/targets');
    await page.getByText('New target').click();
    const form = page.getByRole('form', { name: 'New target' });
    await form.getByLabel('name (required)').fill('gui-form-web');
    await form.getByLabel('agent_id', { exact: true }).fill('gui-form-agent');
    await form.getByLabel('type (required)').selectOption('nginx');
    const config = form.getByRole('group', { name: 'config of nginx' });
    // The kind's keys, from the API description: the path's pattern, the key path write-only.
    await config.getByLabel('cert_path (required)').fill('relative.crt');
    await expect(
      config
        .getByLabel('cert_path (required)')
        .evaluate((input: { validity: { patternMismatch: boolean } }) => input.validity.patternMismatch),
    ).resolves.toBe(true);
    await config.getByLabel('cert_path (required)').fill('/etc/nginx/form.crt');
    await expect(config.getByLabel('key_path (required)').getAttribute('type')).resolves.toBe('password');
    await config.getByLabel('key_path (required)').fill('/etc/nginx/form.key');
    await config.getByLabel('file_mode', { exact: true }).selectOption('0640');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('status').getByText('Created.').waitFor();
    const targets = (await api('GET', '/api/v1/targets?agent_id=gui-form-agent')).json() as {
      data: { id: string; config: Record<string, unknown> }[];
    };
    expect(targets.data[0].config).toEqual({
      cert_path: '/etc/nginx/form.crt',
      key_path: '********',
      file_mode: '0640',
    });

    await page.getByRole('button', { name: 'Details of gui-form-web' }).click();
    await page.getByText('Edit gui-form-web').click();
    const edit = page.getByRole('form', { name: 'Edit gui-form-web' });
    const stored = edit.getByRole('group', { name: 'config of nginx' });
    await expect(stored.getByLabel('cert_path (required)').inputValue()).resolves.toBe('/etc/nginx/form.crt');
    await expect(stored.getByLabel('key_path', { exact: true }).inputValue()).resolves.toBe('');
    await stored.getByLabel('cert_path (required)').fill('/etc/nginx/renamed.crt');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    const saved = (await api('GET', `/api/v1/targets/${targets.data[0].id}`)).json() as { config: unknown };
    // The key path stays stored (still redacted, not dropped).
    expect(saved.config).toEqual({
      cert_path: '/etc/nginx/renamed.crt',
      key_path: '********',
      file_mode: '0640',
    });
    expect(await page.content()).not.toContain('/etc/nginx/form.key');
    expect(violations).toEqual([]);
    await context.close();
  });
});
