import { readFileSync } from 'node:fs';
import { Browser } from 'playwright-core';
import { startTestSystem, TestSystem } from '@certlane/testing';
import { launchChromium, openContext } from './gui-harness';

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

jest.setTimeout(120_000);

/**
 * The sign-in page with OIDC configured (SERVICE_AUTH_TYPE=oidc; issue 18, spec 5.5): the single
 * sign-on section appears beside the API key and break-glass ones, takes the provider from the
 * link, reports a failed callback, and sends the browser to the gateway's OIDC login.
 */
describe('the sign-in page when the API reports OIDC', () => {
  let system: TestSystem;
  let browser: Browser;

  beforeAll(async () => {
    system = await startTestSystem('web-gui-oidc', ['auth', 'api-gateway'], { SERVICE_AUTH_TYPE: 'oidc' });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('offers single sign-on with the provider of the link, says why a callback failed, and goes to the OIDC login', async () => {
    const gateway = system.services['api-gateway'].url;
    const { context, page, violations } = await openContext(browser, gateway);
    await page.goto('/login?provider=corp&error=oidc_failed&reason=state_mismatch');
    const section = page.getByRole('region', { name: 'Single sign-on' });
    await section.waitFor();
    await section.getByRole('alert').getByText('Single sign-on did not complete (state_mismatch).').waitFor();
    await expect(section.getByLabel('Provider').inputValue()).resolves.toBe('corp');
    // A first visit is not an ended sign-in.
    await expect(page.getByText('no longer valid').count()).resolves.toBe(0);
    // API keys keep working beside it (spec 5.3).
    await page.getByRole('heading', { name: 'API key' }).waitFor();
    const login = page.waitForRequest((request) => new URL(request.url()).pathname === '/auth/oidc/login');
    // A link, not a form: the redirect to the identity provider is not a form submission's.
    await section.getByRole('link', { name: 'Sign in with single sign-on' }).click();
    expect(new URL((await login).url()).searchParams.get('provider')).toBe('corp');
    expect(violations).toEqual([]);
    await context.close();
  });

  it('has no serious or critical axe-core violation', async () => {
    const gateway = system.services['api-gateway'].url;
    const { context, page } = await openContext(browser, gateway, { bypassCSP: true });
    await page.goto('/login?provider=corp');
    await page.getByRole('region', { name: 'Single sign-on' }).waitFor();
    await page.addScriptTag({ content: AXE });
    const result = (await page.evaluate(
      "axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] })",
    )) as { violations: { id: string; impact: string | null }[] };
    expect(
      result.violations.filter(
        (violation) => violation.impact === 'serious' || violation.impact === 'critical',
      ),
    ).toEqual([]);
    await context.close();
  });
});
