import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, BrowserContext, chromium, Page } from 'playwright-core';
import { httpsRequest, HttpsResult } from '@certlane/testing';

/**
 * What every browser test of the GUI shares: Debian's chromium, a fresh context per test that
 * records CSP violations, sign-in with a key, and the per-page check (axe-core, no secret in the
 * page, a screenshot kept as a CI artifact).
 */
export const CHROMIUM = process.env.CERTLANE_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS =
  process.env.CERTLANE_SCREENSHOT_DIR ?? join(__dirname, '../../../tmp/screenshots/web');
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeResult {
  passes: unknown[];
  violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
}

/** Where the tests' API calls go: the gateway, the CA its certificate chains to, and an API key. */
export interface ApiTarget {
  url: string;
  ca: string;
  key: string;
}

/**
 * A JSON call to the gateway's API with a bearer key, for setting up what a page shows and for
 * checking what a click did.
 */
export function callApi(
  target: ApiTarget,
  method: string,
  path: string,
  body?: unknown,
): Promise<HttpsResult> {
  return httpsRequest(`${target.url}${path}`, {
    method,
    ca: target.ca,
    headers: {
      authorization: `Bearer ${target.key}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/**
 * The test systems serve certificates of a throwaway CA that Chromium does not trust. The flag
 * accepts them when the connection is made; a context's `ignoreHTTPSErrors` instead lets each
 * failed verification through by restarting the request, and Chromium gives up after a few
 * restarts (`net::ERR_TOO_MANY_RETRIES`, seen as a rare page-load failure in CI).
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--ignore-certificate-errors'],
  });
}

/**
 * A fresh browser context (its own cookies and storage) that records CSP violations. With
 * `bypassCSP` (only for injecting axe-core) it cannot see them.
 */
export async function openContext(
  browser: Browser,
  baseURL: string,
  options: { bypassCSP?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page; violations: string[] }> {
  const context = await browser.newContext({
    ignoreHTTPSErrors: true,
    baseURL,
    bypassCSP: options.bypassCSP ?? false,
    viewport: { width: 1280, height: 900 },
  });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text());
  });
  page.on('pageerror', (error) => violations.push(`page error: ${error.message}`));
  return { context, page, violations };
}

export async function signInWithKey(page: Page, key: string): Promise<void> {
  await page.goto('/');
  await page.getByRole('textbox', { name: 'API key' }).fill(key);
  await page.getByRole('button', { name: 'Sign in with API key' }).click();
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
}

/**
 * Opens each page and waits for its data (a table, an empty state or the dashboard's numbers);
 * answers what is wrong: an error shown, a serious or critical axe-core violation, a secret in
 * the page. Each page is screenshot into SCREENSHOTS. The page needs a context with `bypassCSP`.
 */
export async function checkPages(
  page: Page,
  pages: readonly (readonly [string, string])[],
  secrets: readonly string[],
): Promise<string[]> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const problems: string[] = [];
  for (const [path, title] of pages) {
    await page.goto(path);
    await page.getByRole('heading', { name: title, level: 1 }).waitFor();
    await page.locator('main table, main .empty, main .stats').first().waitFor();
    await page.waitForFunction(
      "[...document.querySelectorAll('.stat-value')].every((value) => value.textContent !== '…')",
    );
    const alerts = await page.getByRole('alert').allTextContents();
    if (alerts.length > 0) problems.push(`${path}: ${alerts.join(' | ')}`);
    problems.push(...(await axeProblems(page, path)));
    const html = await page.content();
    for (const secret of secrets)
      if (html.includes(secret)) problems.push(`${path}: a secret is in the page`);
    const name = path === '/' ? 'dashboard' : path.slice(1).replace(/[/?=&]/g, '-');
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }
  return problems;
}

/**
 * The serious or critical WCAG 2.1 A/AA violations axe-core finds in the page as it is now (a
 * dialog open, a result shown), each prefixed with `where`. The page needs a context with `bypassCSP`.
 */
export async function axeProblems(page: Page, where: string): Promise<string[]> {
  const problems: string[] = [];
  await page.addScriptTag({ content: AXE });
  const result = (await page.evaluate(
    "axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] })",
  )) as AxeResult;
  if (result.passes.length === 0) problems.push(`${where}: axe-core checked nothing`);
  for (const violation of result.violations) {
    if (violation.impact === 'serious' || violation.impact === 'critical') {
      problems.push(
        `${where}: ${violation.id} (${violation.impact}) ${violation.help}: ${violation.nodes
          .slice(0, 3)
          .map((node) => node.target.join(' '))
          .join(', ')}`,
      );
    }
  }
  return problems;
}

/** Every API response body the page receives from now on, to scan for secrets. */
export function recordApiBodies(page: Page): Promise<string>[] {
  const bodies: Promise<string>[] = [];
  page.on('response', (response) => {
    if (new URL(response.url()).pathname.startsWith('/api/')) bodies.push(response.text().catch(() => ''));
  });
  return bodies;
}
