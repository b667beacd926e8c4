import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser } from 'playwright-core';
import { ScepProfileDto } from '@certlane/contracts';
import { HttpsResult, openSqlSession, SqlSession, startTestSystem, TestSystem } from '@certlane/testing';
import { axeProblems, callApi, launchChromium, openContext, signInWithKey } from './gui-harness';

/**
 * What the enrollment protocols' admin pages show in a row's details, in Debian's chromium: an
 * ACME order's authorizations and challenges (GET /api/v1/admin/acme/orders/{id}) and a SCEP
 * profile's MDM challenge counters and trust expiry (GET /api/v1/admin/scep/mdm/stats).
 */
jest.setTimeout(120_000);

/** A self-signed MDM signing certificate made by the openssl CLI, as a trust file. */
function mdmTrustFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'web-gui-protocol-'));
  const file = join(dir, 'mdm.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'].concat([
      '-keyout',
      join(dir, 'mdm.key'),
      '-out',
      file,
      '-days',
      '30',
      '-subj',
      '/CN=gui-protocol-mdm',
    ]),
    { stdio: 'ignore' },
  );
  return file;
}

describe('protocol details in Chromium', () => {
  let system: TestSystem;
  let gateway: string;
  let browser: Browser;
  let db: SqlSession;
  let adminKey: string;

  const api = (method: string, path: string, body?: unknown): Promise<HttpsResult> =>
    callApi({ url: gateway, ca: system.ca, key: adminKey }, method, path, body);
  const id64 = () => randomBytes(16).toString('base64url');

  beforeAll(async () => {
    system = await startTestSystem('web-gui-protocol', [
      'auth',
      'issuance',
      'protocol-frontends',
      'api-gateway',
    ]);
    gateway = system.services['api-gateway'].url;
    adminKey = system.env.SERVICE_AUTH_SECRET!;
    db = await openSqlSession(system.database.url);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await db?.end();
    await system?.stop();
  });

  it("shows an ACME order's authorizations with each challenge's state, validation time and error", async () => {
    const [account, order, www, api1] = [id64(), id64(), id64(), id64()];
    await db.query(
      `INSERT INTO protocol_frontends.acme_accounts (id, jwk, jwk_thumbprint) VALUES ($1, '{}'::jsonb, $2)`,
      [account, randomBytes(32).toString('base64url')],
    );
    await db.query(
      `INSERT INTO protocol_frontends.acme_orders (id, account_id, profile_id, status, identifiers, expires_at)
       VALUES ($1, $2, 'default', 'invalid',
               '[{"type":"dns","value":"www.gui.localhost"},{"type":"dns","value":"api.gui.localhost"}]',
               now() + interval '1 day')`,
      [order, account],
    );
    for (const [authorization, name, status] of [
      [www, 'www.gui.localhost', 'valid'],
      [api1, 'api.gui.localhost', 'invalid'],
    ]) {
      await db.query(
        `INSERT INTO protocol_frontends.acme_authorizations
           (id, account_id, identifier_type, identifier_value, status, expires_at)
         VALUES ($1, $2, 'dns', $3, $4, now() + interval '7 days')`,
        [authorization, account, name, status],
      );
      await db.query(
        `INSERT INTO protocol_frontends.acme_order_authorizations (order_id, authorization_id) VALUES ($1, $2)`,
        [order, authorization],
      );
    }
    await db.query(
      `INSERT INTO protocol_frontends.acme_challenges (id, authorization_id, type, token, status, validated_at)
       VALUES ($1, $2, 'http-01', $3, 'valid', now() - interval '1 hour')`,
      [id64(), www, id64()],
    );
    await db.query(
      `INSERT INTO protocol_frontends.acme_challenges (id, authorization_id, type, token, status, error)
       VALUES ($1, $2, 'dns-01', $3, 'invalid',
               '{"type":"urn:ietf:params:acme:error:dns","detail":"no TXT record at _acme-challenge"}')`,
      [id64(), api1, id64()],
    );

    const { context, page, violations } = await openContext(browser, gateway, { bypassCSP: true });
    await signInWithKey(page, adminKey);
    await page.goto('/admin/acme-orders');
    await page.getByRole('button', { name: `Details of ${order}` }).click();
    const section = page.getByRole('region', { name: 'Authorizations and challenges' });
    const rows = section.getByRole('row');
    await rows.nth(2).waitFor();
    const texts = await rows.allInnerTexts();
    expect(texts).toHaveLength(3);
    // Ordered by identifier, as the API answers them.
    expect(texts[1]).toContain('api.gui.localhost');
    expect(texts[1]).toContain(api1);
    expect(texts[1]).toMatch(/dns-01\s*invalid\s*— no TXT record at _acme-challenge/);
    expect(texts[2]).toContain('www.gui.localhost');
    expect(texts[2]).toMatch(/http-01\s*valid\s*validated 1 hour ago/);
    const problems = await axeProblems(page, 'ACME orders: an order with its authorizations');
    expect(problems).toEqual([]);
    expect(violations).toEqual([]);
    await context.close();
  });

  it("shows a SCEP profile's MDM challenge counters and trust expiry, and says when MDM is off", async () => {
    for (const body of [
      { path_id: 'gui-plain', challenge_password: 'gui-protocol-challenge-1' },
      {
        path_id: 'gui-mdm',
        mdm_enabled: true,
        mdm_audience: 'https://scep.example.test/scep/gui-mdm',
        mdm_trust_path: mdmTrustFile(),
      },
    ]) {
      const created = await api('POST', '/api/v1/admin/scep/profiles', body);
      expect(`${created.status} ${created.text}`).toMatch(/^201 /);
    }
    const profiles = (
      (await api('GET', '/api/v1/admin/scep/profiles')).json() as { profiles: ScepProfileDto[] }
    ).profiles;
    const managed = profiles.find((profile) => profile.path_id === 'gui-mdm')!;
    await db.query(
      `INSERT INTO protocol_frontends.scep_profile_counters (profile_id, outcome, count)
       VALUES ($1, 'mdm_success', 7), ($1, 'mdm_replay', 3)`,
      [managed.id],
    );

    const { context, page, violations } = await openContext(browser, gateway, { bypassCSP: true });
    await signInWithKey(page, adminKey);
    await page.goto('/admin/scep-profiles');
    await page.getByRole('button', { name: 'Details of gui-mdm' }).click();
    const mdm = page.getByRole('region', { name: 'MDM challenges' });
    // The trust file's certificate was made now for 30 days.
    await expect(mdm.getByText(/^1 trust anchor, loaded /).innerText()).resolves.toMatch(
      /loaded now .*the first expires in 29 days .*\(expires within 30 days\)/,
    );
    const outcome = async (name: string) =>
      mdm
        .locator('.field-row', { has: page.getByText(name, { exact: true }) })
        .locator('dd')
        .innerText();
    await expect(outcome('success')).resolves.toBe('7');
    await expect(outcome('replay')).resolves.toBe('3');
    await expect(outcome('signature invalid')).resolves.toBe('0');
    await mdm.getByRole('cell', { name: 'CN=gui-protocol-mdm' }).waitFor();
    const problems = await axeProblems(page, 'SCEP profiles: the MDM challenges of a profile');

    await page.getByRole('button', { name: 'Details of gui-plain' }).click();
    await page
      .getByRole('region', { name: 'MDM challenges' })
      .getByText('MDM challenge validation is off for this profile.')
      .waitFor();
    expect(problems).toEqual([]);
    expect(violations).toEqual([]);
    await context.close();
  });
});
