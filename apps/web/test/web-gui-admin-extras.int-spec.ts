import { Browser } from 'playwright-core';
import { HttpsResult, openSqlSession, SqlSession, startTestSystem, TestSystem } from '@certlane/testing';
import { axeProblems, callApi, launchChromium, openContext, signInWithKey } from './gui-harness';

/**
 * Read-mostly admin information in Debian's chromium: the running version in the frame's footer,
 * the expiry digest of an owner or team previewed and sent now (spec 4.12) from their details, and
 * the permission catalogue on the roles page.
 */
jest.setTimeout(120_000);

const OWNER = 'gui-digest-owner';
const TEAM = 'gui-digest-team';

describe('version, digests and permissions in Chromium', () => {
  let system: TestSystem;
  let gateway: string;
  let browser: Browser;
  let db: SqlSession;
  let adminKey: string;

  const api = (method: string, path: string, body?: unknown): Promise<HttpsResult> =>
    callApi({ url: gateway, ca: system.ca, key: adminKey }, method, path, body);
  const ok = async (call: Promise<HttpsResult>) => {
    const answer = await call;
    expect(`${answer.status} ${answer.text}`).toMatch(/^20[01] /);
  };

  beforeAll(async () => {
    system = await startTestSystem('web-gui-extras', ['auth', 'issuance', 'notifier', 'api-gateway'], {
      SERVICE_NOTIFIER_ALLOWED_NETWORKS: '127.0.0.1',
    });
    gateway = system.services['api-gateway'].url;
    adminKey = system.env.SERVICE_AUTH_SECRET!;
    db = await openSqlSession(system.database.url);
    await ok(api('POST', '/api/v1/teams', { id: TEAM, name: 'Digest team' }));
    await ok(api('POST', '/api/v1/owners', { id: OWNER, name: 'Digest owner', team_id: TEAM }));
    // One certificate of the owner's (and the team's) expiring in five days: both have a digest.
    await db.query(
      `INSERT INTO issuance.certificates (id, name, common_name, owner_id, team_id, renewal_policy_id, status, expires_at)
       VALUES ('gui-digest-cert', 'gui-digest-cert', 'digest.gui.localhost', $1, $2, 'rp-default', 'Expiring',
               now() + interval '5 days')`,
      [OWNER, TEAM],
    );
    // Only the owner has a contact address: the team's digest would not be sent.
    await ok(api('PUT', `/api/v1/contacts/owner/${OWNER}`, { addresses: ['digest-owner@example.com'] }));
    await ok(
      api('POST', '/api/v1/notifiers', {
        id: 'gui-digest-mail',
        name: 'Digest mail',
        kind: 'email',
        settings: { host: '127.0.0.1', port: 2525, security: 'none', from: 'certlane@example.com', to: [] },
      }),
    );
    await ok(
      api('POST', '/api/v1/routing-rules', {
        id: 'gui-digests',
        name: 'Digests by mail',
        event_types: ['digest.daily'],
        notifier_ids: ['gui-digest-mail'],
      }),
    );
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await db?.end();
    await system?.stop();
  });

  it('shows the version and commit of the build that answers in the footer', async () => {
    const build = (await api('GET', '/api/v1/version')).json() as { version: string; commit: string };
    const { context, page, violations } = await openContext(browser, gateway, { bypassCSP: true });
    await signInWithKey(page, adminKey);
    const footer = page.getByRole('contentinfo');
    await footer.getByText(`Certlane ${build.version} (${build.commit.slice(0, 12)}`).waitFor();
    const problems = await axeProblems(page, 'dashboard with the version footer');
    expect(problems).toEqual([]);
    expect(violations).toEqual([]);
    await context.close();
  });

  it("previews an owner's expiry digest and sends it after a confirmation; a team without an address cannot", async () => {
    const sent: unknown[] = [];
    const { context, page, violations } = await openContext(browser, gateway, { bypassCSP: true });
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/v1/digest/send') sent.push(request.postDataJSON());
    });
    await signInWithKey(page, adminKey);
    await page.goto('/owners');
    await page.getByRole('button', { name: 'Details of Digest owner' }).click();
    const digest = page.getByRole('region', { name: 'Expiry digest' });
    await digest
      .getByText(
        /: 1 expiring, 0 failed jobs, 0 violations, 0 approvals waiting\. To digest-owner@example\.com\.$/,
      )
      .waitFor();
    await expect(digest.locator('pre').innerText()).resolves.toContain('digest.gui.localhost');
    await digest.getByRole('button', { name: 'Send digest now' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(`Send the digest of ${OWNER} now?`).waitFor();
    await dialog.getByText('It goes to digest-owner@example.com, besides the daily one.').waitFor();
    const problems = await axeProblems(page, 'owners: the digest send confirmation');
    // Nothing is sent before the confirmation.
    expect(sent).toEqual([]);
    await dialog.getByRole('button', { name: 'Send digest' }).click();
    const status = digest.getByRole('status');
    await status.getByText(/^Digest sent: 1 notification queued \(run manual-/).waitFor();
    expect(sent).toEqual([{ owner_id: OWNER }]);
    const runId = /\(run (\S+)\)/.exec(await status.innerText())![1];
    const { rows } = await db.query<{ digests: number; notifications: number }>(
      'SELECT digests, notifications FROM notifier.digest_runs WHERE run_id = $1',
      [runId],
    );
    expect(rows).toEqual([{ digests: 1, notifications: 1 }]);

    await page.goto('/teams');
    await page.getByRole('button', { name: 'Details of Digest team' }).click();
    const team = page.getByRole('region', { name: 'Expiry digest' });
    await team.getByText(/1 expiring, .* No contact address: it would not be sent\.$/).waitFor();
    await expect(team.getByRole('button', { name: 'Send digest now' }).isDisabled()).resolves.toBe(true);
    problems.push(...(await axeProblems(page, 'teams: a digest without an address')));
    expect(problems).toEqual([]);
    expect(violations).toEqual([]);
    await context.close();
  });

  it('shows the permission catalogue with the built-in roles holding each permission on the roles page', async () => {
    const catalogue = (await api('GET', '/api/v1/auth/permissions')).json() as {
      data: { name: string; default_roles: string[] }[];
      total: number;
    };
    const { context, page, violations } = await openContext(browser, gateway, { bypassCSP: true });
    await signInWithKey(page, adminKey);
    await page.goto('/admin/roles');
    const section = page.getByRole('region', { name: 'Permission catalogue' });
    await section.getByText(`Permission catalogue (${catalogue.total} permissions)`).click();
    const rows = section.getByRole('row');
    await rows.nth(catalogue.total).waitFor();
    expect(await rows.count()).toBe(catalogue.total + 1);
    const first = catalogue.data[0];
    await expect(rows.nth(1).innerText()).resolves.toBe(
      `${first.name}\t${first.default_roles.length > 0 ? first.default_roles.join(', ') : '—'}`,
    );
    const problems = await axeProblems(page, 'roles: the permission catalogue open');
    expect(problems).toEqual([]);
    expect(violations).toEqual([]);
    await context.close();
  });
});
