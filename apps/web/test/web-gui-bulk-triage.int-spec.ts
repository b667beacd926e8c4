import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser } from 'playwright-core';
import { httpsRequest, openSqlSession, startTestSystem, TestSystem } from '@certlane/testing';
import { axeProblems, launchChromium, openContext, SCREENSHOTS, signInWithKey } from './gui-harness';

/**
 * Bulk triage on the discovered-certificates page (issue 18/23) in Debian's chromium: rows are
 * selected by their checkboxes (one by keyboard), the confirmation names the count, and the
 * per-item result is shown; the page is axe-clean with the dialog open and with the result.
 */
jest.setTimeout(120_000);

const fingerprint = (digit: string) => digit.repeat(64);
const CERTS = [
  { id: fingerprint('a'), subject: 'CN=bulk-one.test' },
  { id: fingerprint('b'), subject: 'CN=bulk-two.test' },
  { id: fingerprint('c'), subject: 'CN=bulk-kept.test' },
];

describe('bulk triage of discovered certificates in Chromium', () => {
  let system: TestSystem;
  let gateway: string;
  let browser: Browser;
  let adminKey: string;

  beforeAll(async () => {
    system = await startTestSystem('web-gui-bulk', ['auth', 'health-monitor', 'api-gateway']);
    gateway = system.services['api-gateway'].url;
    adminKey = system.env.SERVICE_AUTH_SECRET!;
    // Three certificates as a network scan stores them (only the metadata dismissing reads).
    const db = await openSqlSession(system.database.url);
    for (const [index, cert] of CERTS.entries()) {
      await db.query(
        `INSERT INTO health_monitor.discovered_certificates
           (fingerprint, subject, issuer, not_before, not_after, first_seen_at, last_seen_at)
         VALUES ($1, $2, 'CN=bulk-ca', now() - interval '1 day', now() + interval '90 days',
                 now() - make_interval(mins => $3), now() - make_interval(mins => $3))`,
        [cert.id, cert.subject, index],
      );
      await db.query(
        `INSERT INTO health_monitor.discovered_certificate_sightings
           (fingerprint, location, source, first_seen_at, last_seen_at)
         VALUES ($1, $2, 'network', now(), now())`,
        [cert.id, `network:127.0.0.1:${4430 + index}`],
      );
    }
    await db.end();
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('dismisses two selected rows after a confirmation naming the count, and shows each result', async () => {
    const { context, page } = await openContext(browser, gateway, { bypassCSP: true });
    await signInWithKey(page, adminKey);
    await page.goto('/discovered-certificates?status=Unmanaged');
    await page.getByRole('cell', { name: 'CN=bulk-kept.test', exact: true }).waitFor();
    const toolbar = page.getByRole('toolbar', { name: 'Bulk actions' });
    await toolbar.getByText('None selected').waitFor();

    // One row by mouse, one by keyboard (focus and Space): both are reachable controls.
    await page.getByRole('checkbox', { name: 'Select CN=bulk-one.test' }).check();
    await page.getByRole('checkbox', { name: 'Select CN=bulk-two.test' }).focus();
    await page.keyboard.press('Space');
    await toolbar.getByText('2 selected').waitFor();
    await expect(
      page.getByRole('checkbox', { name: 'Select all rows on this page' }).isChecked(),
    ).resolves.toBe(false);

    await toolbar.getByRole('button', { name: 'Dismiss selected' }).click();
    const dialog = page.getByRole('dialog', { name: 'Dismiss 2 discovered certificates?' });
    await dialog.waitFor();
    const problems = await axeProblems(page, 'bulk dismiss dialog');
    await dialog.getByRole('button', { name: 'Dismiss 2 discovered certificates' }).click();

    await page.getByRole('status').getByText('Dismiss: 2 of 2 succeeded.').waitFor();
    // The list is asked again: the dismissed rows leave the Unmanaged queue, the third stays.
    await page.getByRole('cell', { name: 'CN=bulk-one.test', exact: true }).waitFor({ state: 'detached' });
    await expect(page.getByRole('cell', { name: 'CN=bulk-two.test', exact: true }).count()).resolves.toBe(0);
    await page.getByRole('cell', { name: 'CN=bulk-kept.test', exact: true }).waitFor();
    await toolbar.getByText('None selected').waitFor();
    problems.push(...(await axeProblems(page, 'bulk dismiss result')));
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({
      path: join(SCREENSHOTS, 'discovered-certificates-bulk-dismiss.png'),
      fullPage: true,
    });
    expect(problems).toEqual([]);

    const statuses = await Promise.all(
      CERTS.map(async (cert) => {
        const answer = await httpsRequest(`${gateway}/api/v1/discovered-certificates/${cert.id}`, {
          ca: system.ca,
          headers: { authorization: `Bearer ${adminKey}` },
        });
        return (answer.json() as { status: string }).status;
      }),
    );
    expect(statuses).toEqual(['Dismissed', 'Dismissed', 'Unmanaged']);
    await context.close();
  });
});
