import { Browser, Page } from 'playwright-core';
import {
  eventually,
  HttpsResult,
  openSqlSession,
  SqlSession,
  startTestSystem,
  TestSystem,
} from '@certlane/testing';
import { callApi, launchChromium, openContext, signInWithKey } from './gui-harness';

/**
 * What a review of the GUI found (notes/review-web.md), each in Debian's chromium against a
 * running system: a session left on screen ends at its idle timeout (the GUI's polls are marked
 * as background work), a refused sign-out says so, a profile edit waiting for approval is not
 * reported as saved, shown-once secrets leave the page and nothing typed fills the next record, the
 * audit export sends the window it shows, and a `//host` path after sign-in goes home.
 */
const PASSWORD = 'gui-review-break-glass-password';
/** The gateway caches a session's answer this long (ADR 0017); a request within it asks nobody. */
const PRINCIPAL_CACHE_TTL_MS = 5000;
/** The bell asks every 30 s (notification-bell.tsx). */
const BELL_INTERVAL_MS = 30_000;

jest.setTimeout(120_000);

describe('the GUI after its review, in Chromium', () => {
  let system: TestSystem;
  let gateway: string;
  let browser: Browser;
  let adminKey: string;
  let db: SqlSession;

  const api = (method: string, path: string, body?: unknown): Promise<HttpsResult> =>
    callApi({ url: gateway, ca: system.ca, key: adminKey }, method, path, body);
  const open = () => openContext(browser, gateway);

  /** Signs in with a fresh break-glass credential of `actorId`; answers its session's id. */
  async function signInBreakGlass(page: Page, actorId: string): Promise<string> {
    const set = await api('POST', '/api/v1/auth/breakglass/credentials', {
      actor_id: actorId,
      password: PASSWORD,
    });
    expect(set.status).toBe(201);
    await page.goto('/login');
    await page.locator('#bg-actor').fill(actorId);
    await page.locator('#bg-password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in with break-glass' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    const sessions = await activeSessions(actorId);
    expect(sessions).toHaveLength(1);
    return sessions[0];
  }

  /** The ids of `actorId`'s active sessions (not revoked, expired or idle), as the API lists them. */
  async function activeSessions(actorId: string): Promise<string[]> {
    const list = (await api('GET', '/api/v1/auth/sessions?all=true&per_page=100')).json() as {
      data: { id: string; actor_id: string }[];
    };
    return list.data.filter((session) => session.actor_id === actorId).map((session) => session.id);
  }

  /** How long ago (s) the auth service last counted the session as used. */
  async function idleSeconds(sessionId: string): Promise<number> {
    const { rows } = await db.query<{ idle: number }>(
      'SELECT extract(epoch FROM now() - last_seen_at)::float8 AS idle FROM auth.sessions WHERE id = $1',
      [sessionId],
    );
    return rows[0].idle;
  }

  const lastSeenAgo = (sessionId: string, interval: string) =>
    db.query(`UPDATE auth.sessions SET last_seen_at = now() - $2::interval WHERE id = $1`, [
      sessionId,
      interval,
    ]);

  /** Lets the gateway's cached answers about a session lapse, so its next request reaches auth. */
  const cacheLapses = () => new Promise((resolve) => setTimeout(resolve, PRINCIPAL_CACHE_TTL_MS + 500));

  beforeAll(async () => {
    system = await startTestSystem(
      'web-gui-review',
      ['auth', 'issuance', 'deployment-dispatch', 'notifier', 'api-gateway'],
      { SERVICE_BREAKGLASS_ENABLED: 'true' },
    );
    gateway = system.services['api-gateway'].url;
    const minted = await callApi(
      { url: gateway, ca: system.ca, key: system.env.SERVICE_AUTH_SECRET! },
      'POST',
      '/api/v1/auth/api-keys',
      { name: 'review-admin', actor_id: 'review-admin', admin: true, role_ids: ['r-admin'] },
    );
    expect(minted.status).toBe(201);
    adminKey = (minted.json() as { key: string }).key;
    db = await openSqlSession(system.database.url);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await db?.end();
    await system?.stop();
  });

  it("ends a break-glass session left on screen at the idle timeout: the bell's polls are background and do not keep it alive", async () => {
    const { context, page, violations } = await open();
    // The browser's clock is the test's: the bell's 30 s polls come when told.
    await page.clock.install();
    const sessionId = await signInBreakGlass(page, 'review-idle');
    // As far as the auth service knows, nobody has used the session for 59 min 45 s of its 60.
    await lastSeenAgo(sessionId, '59 minutes 45 seconds');
    await cacheLapses();

    // Nobody touches the page: the bell asks again, marked as background work.
    const poll = page.waitForResponse(
      (response) => new URL(response.url()).pathname === '/api/v1/notifications',
    );
    await page.clock.fastForward(BELL_INTERVAL_MS + 1000);
    const answered = await poll;
    expect(answered.request().headers()['x-certlane-background']).toBe('1');
    expect(answered.status()).toBe(200);

    // The poll did not count as use: the session reaches its idle timeout untouched ...
    await eventually(async () => (await idleSeconds(sessionId)) >= 3600, 'the session to go idle', 30_000);
    expect(await activeSessions('review-idle')).toEqual([]);
    // ... and the next poll's 401 clears the screen back to sign-in.
    await page.clock.fastForward(BELL_INTERVAL_MS + 1000);
    await page.getByText('Your sign-in is no longer valid. Sign in again.').waitFor();
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(violations).toEqual([]);
    await context.close();
  });

  it("counts a click's requests as use of the session", async () => {
    const { context, page } = await open();
    const sessionId = await signInBreakGlass(page, 'review-active');
    await lastSeenAgo(sessionId, '30 minutes');
    await cacheLapses();
    const jobs = page.waitForRequest((request) => new URL(request.url()).pathname === '/api/v1/jobs');
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Jobs', exact: true })
      .click();
    expect((await jobs).headers()['x-certlane-background']).toBeUndefined();
    await eventually(async () => (await idleSeconds(sessionId)) < 60, 'the click to count as use');
    await context.close();
  });

  it('says so when the server does not end the session on sign-out, and stays signed in until it does', async () => {
    const { context, page, violations } = await open();
    const sessionId = await signInBreakGlass(page, 'review-logout');
    const isLogout = (url: URL) => url.pathname === '/auth/logout';
    await page.route(isLogout, (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ code: 'service_unavailable', message: 'the auth service did not answer' }),
      }),
    );
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page
      .getByRole('alert')
      .getByText(
        'Sign-out failed (503: the auth service did not answer): your session is still active. Try again.',
      )
      .waitFor();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect((await context.cookies()).map((cookie) => cookie.name).sort()).toEqual([
      'service_csrf',
      'service_session',
    ]);
    expect(await activeSessions('review-logout')).toEqual([sessionId]);

    // Tried again with the server answering: signed out, the session revoked, the cookies gone.
    await page.unroute(isLogout);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Certlane' }).waitFor();
    expect(await activeSessions('review-logout')).toEqual([]);
    expect(await context.cookies()).toEqual([]);
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Certlane' }).waitFor();
    expect(violations).toEqual([]);
    await context.close();
  });

  it('reports a profile edit that waits for approval as not saved, naming the approval, and changes nothing', async () => {
    const profile = await api('POST', '/api/v1/profiles', {
      id: 'prof-review-gated',
      name: 'Review gated',
      requires_approval: true,
      validity_days: 90,
    });
    expect(`${profile.status} ${profile.text}`).toMatch(/^201 /);
    const { context, page } = await open();
    await signInWithKey(page, adminKey);
    await page.goto('/profiles');
    await page.getByRole('button', { name: 'Details of Review gated' }).click();
    await page.getByText('Edit Review gated').click();
    const edit = page.getByRole('form', { name: 'Edit Review gated' });
    await edit.getByLabel('validity_days', { exact: true }).fill('30');
    await edit.getByRole('button', { name: 'Save' }).click();
    const status = page.getByRole('status').filter({ hasText: 'waits for approval' });
    await status.waitFor();
    const text = (await status.textContent()) ?? '';
    expect(text).toMatch(
      /^Not saved yet: the change waits for approval \S+, which another person must decide/,
    );
    expect(text).not.toContain('Saved.');
    const approvalId = /waits for approval (\S+),/.exec(text)![1];
    expect((await api('GET', `/api/v1/approvals/${approvalId}`)).json()).toMatchObject({ status: 'pending' });
    await expect(
      status.getByRole('link', { name: 'See the pending approvals' }).getAttribute('href'),
    ).resolves.toBe('/approvals?status=pending');
    expect((await api('GET', '/api/v1/profiles/prof-review-gated')).json()).toMatchObject({
      validity_days: 90,
    });
    await context.close();
  });

  it('shows a new or rotated API key once, in a box of its own, and removes it from the page when dismissed or left', async () => {
    const { context, page, violations } = await open();
    await signInWithKey(page, adminKey);
    await page.goto('/admin/api-keys');
    await page.getByText('New API key').click();
    const form = page.getByRole('form', { name: 'New API key' });
    await form.getByLabel('name (required)').fill('review-ops');
    await form.getByRole('button', { name: 'Create' }).click();
    const box = page.getByRole('region', { name: 'Shown only now' });
    const created = (await box.getByTestId('shown-once-value').textContent()) ?? '';
    expect(created).toMatch(/^\S{32,}$/);
    // Only the box holds it: not the status line, which stays.
    await page.getByRole('status').getByText('Created. new key created').waitFor();
    expect((await page.getByRole('status').allTextContents()).join(' ')).not.toContain(created);
    await box.getByRole('button', { name: 'I have stored it' }).click();
    await box.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(created);

    // A rotation's key goes when the page's list moves on (here, its page size).
    await page.getByRole('button', { name: 'Rotate review-ops' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate', exact: true }).click();
    const rotated = (await box.getByTestId('shown-once-value').textContent()) ?? '';
    expect(rotated).toMatch(/^\S{32,}$/);
    expect(rotated).not.toBe(created);
    await page.getByLabel('Per page').selectOption('50');
    await page.waitForURL(/per_page=50/);
    await box.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(rotated);
    expect(violations).toEqual([]);
    await context.close();
  });

  it("starts the next target of the same kind empty: nothing of the previous one's config, its password least of all", async () => {
    const agent = await api('POST', '/api/v1/agents', {
      id: 'review-agent',
      name: 'review-agent',
      hostname: 'r.example',
    });
    expect(`${agent.status} ${agent.text}`).toMatch(/^201 /);
    const { context, page } = await open();
    await signInWithKey(page, adminKey);
    await page.goto('/targets');
    await page.getByText('New target').click();
    const form = page.getByRole('form', { name: 'New target' });
    await form.getByLabel('name (required)').fill('ks-one');
    await form.getByLabel('agent_id', { exact: true }).fill('review-agent');
    await form.getByLabel('type (required)').selectOption('java_keystore');
    const config = form.getByRole('group', { name: 'config of java_keystore' });
    await config.getByLabel('store_path (required)').fill('/etc/keystores/one.jks');
    await config.getByLabel('store_password (required)').fill('OLD-KEYSTORE-PASSWORD');
    await config.getByLabel('alias (required)').fill('one');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('status').getByText('Created.').waitFor();

    await form.getByLabel('name (required)').fill('ks-two');
    await form.getByLabel('type (required)').selectOption('java_keystore');
    for (const field of ['store_path (required)', 'store_password (required)', 'alias (required)']) {
      await expect(config.getByLabel(field).inputValue()).resolves.toBe('');
    }
    expect(await page.content()).not.toContain('OLD-KEYSTORE-PASSWORD');
    await context.close();
  });

  it('exports the audit events of the window, limit and category shown, and not while the list is filtered by what the export cannot apply', async () => {
    const { context, page, violations } = await open();
    await signInWithKey(page, adminKey);
    await page.goto('/audit?category=auth');
    await page.getByRole('heading', { name: 'Audit', level: 1 }).waitFor();
    const exported = page.waitForRequest(
      (request) => new URL(request.url()).pathname === '/api/v1/audit/export',
    );
    await page.getByRole('button', { name: 'Export NDJSON' }).click();
    const query = new URL((await exported).url()).searchParams;
    expect(query.get('category')).toBe('auth');
    expect(query.get('limit')).toBe('10000');
    const from = Date.parse(query.get('from') ?? '');
    const to = Date.parse(query.get('to') ?? '');
    // The form opens on the last 24 hours (to the minute) up to now.
    expect(to - from).toBeGreaterThanOrEqual(24 * 3600_000);
    expect(to - from).toBeLessThan(24 * 3600_000 + 120_000);
    await page
      .getByRole('status')
      .getByText(/^Exported the auth events from \S+ to \S+, at most 10000\.$/)
      .waitFor();

    await page.goto('/audit?actor_id=review-admin');
    await page.getByRole('heading', { name: 'Audit', level: 1 }).waitFor();
    const button = page.getByRole('button', { name: 'Export NDJSON' });
    await expect(button.isDisabled()).resolves.toBe(true);
    await page.getByText('The export cannot filter by actor: clear that filter to export.').waitFor();
    expect(violations).toEqual([]);
    await context.close();
  });

  it('signs in from a link to a path naming another host and lands on the dashboard, not an error page', async () => {
    const { context, page, violations } = await open();
    await page.goto(`${gateway}//evil.example/steal`);
    await page.getByRole('textbox', { name: 'API key' }).fill(adminKey);
    await page.getByRole('button', { name: 'Sign in with API key' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    await page.reload();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(violations).toEqual([]);
    await context.close();
  });
});
