import { randomBytes } from 'node:crypto';
import { Browser } from 'playwright-core';
import { HttpsResult, openSqlSession, SqlSession, startTestSystem, TestSystem } from '@certlane/testing';
import { axeProblems, launchChromium, openContext, signInWithKey, callApi } from './gui-harness';

/**
 * Early renewal of every certificate of an ACME account or profile (RFC 9773 4.2, ADR 0060
 * "Operations") in Debian's chromium: a row action of the ACME accounts and ACME profiles pages,
 * asked first, that sends the row's id as the criterion and says how many certificates moved; and
 * of one certificate from its inventory page.
 */
jest.setTimeout(120_000);

describe('early renewal of an ACME account or profile in Chromium', () => {
  let system: TestSystem;
  let gateway: string;
  let browser: Browser;
  let db: SqlSession;
  let adminKey: string;

  const api = (method: string, path: string, body?: unknown): Promise<HttpsResult> =>
    callApi({ url: gateway, ca: system.ca, key: adminKey }, method, path, body);
  const id64 = () => randomBytes(16).toString('base64url');

  /** An account with one live and one revoked certificate under `profile`, as orders leave them. */
  async function accountWithCertificates(profile: string): Promise<{ account: string; live: string }> {
    const account = id64();
    await db.query(
      `INSERT INTO protocol_frontends.acme_accounts (id, jwk, jwk_thumbprint) VALUES ($1, '{}'::jsonb, $2)`,
      [account, randomBytes(32).toString('base64url')],
    );
    const ids: string[] = [];
    for (const revoked of [false, true]) {
      const [order, id] = [id64(), id64()];
      await db.query(
        `INSERT INTO protocol_frontends.acme_orders (id, account_id, profile_id, status, identifiers, expires_at)
         VALUES ($1, $2, $3, 'valid', '[{"type":"dns","value":"gui.localhost"}]', now() + interval '1 day')`,
        [order, account, profile],
      );
      await db.query(
        `INSERT INTO protocol_frontends.acme_certificates
           (id, order_id, account_id, issuer_id, serial_hex, pem_chain, not_before, not_after, renewal_id, revoked_at)
         VALUES ($1, $2, $3, 'gui-issuer', $4, 'pem', now() - interval '1 day', now() + interval '89 days',
                 $5, CASE WHEN $6 THEN now() END)`,
        [id, order, account, randomBytes(8).toString('hex'), `${id}.AQ`, revoked],
      );
      ids.push(id);
    }
    return { account, live: ids[0] };
  }

  const movedIds = async (ids: string[]): Promise<string[]> =>
    (
      await db.query<{ id: string }>(
        `SELECT id FROM protocol_frontends.acme_certificates
         WHERE id = ANY($1) AND renew_early_start IS NOT NULL ORDER BY id`,
        [ids],
      )
    ).rows.map((row) => row.id);

  beforeAll(async () => {
    system = await startTestSystem('web-gui-acme', ['auth', 'issuance', 'protocol-frontends', 'api-gateway']);
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

  it("moves an account's live certificates after a confirmation, then a profile's, and says how many", async () => {
    const profile = `gui-${randomBytes(3).toString('hex')}`;
    expect((await api('POST', '/api/v1/admin/acme/profiles', { id: profile })).status).toBe(201);
    const first = await accountWithCertificates('default');
    const second = await accountWithCertificates(profile);
    const sent: unknown[] = [];
    const { context, page, violations } = await openContext(browser, gateway, { bypassCSP: true });
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/v1/admin/acme/certificates/bulk-renew-early')
        sent.push(request.postDataJSON());
    });
    await signInWithKey(page, adminKey);

    await page.goto('/admin/acme-accounts');
    await page.getByRole('button', { name: `Renew all early ${first.account}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(`Renew all early ${first.account}?`).waitFor();
    const problems = await axeProblems(page, 'ACME accounts: the early renewal confirmation');
    // Nothing is sent before the confirmation.
    expect(sent).toEqual([]);
    await dialog.getByRole('button', { name: 'Renew all early', exact: true }).click();
    await page
      .getByRole('status')
      .getByText(new RegExp(`^Renew all early ${first.account}: 1 certificate told to renew between `))
      .waitFor();
    expect(sent).toEqual([{ account_id: first.account }]);
    await expect(movedIds([first.live, second.live])).resolves.toEqual([first.live]);

    await page.goto('/admin/acme-profiles');
    await page.getByRole('button', { name: `Renew all early ${profile}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Renew all early', exact: true }).click();
    await page
      .getByRole('status')
      .getByText(new RegExp(`^Renew all early ${profile}: 1 certificate told to renew between `))
      .waitFor();
    expect(sent).toEqual([{ account_id: first.account }, { acme_profile_id: profile }]);
    await expect(movedIds([first.live, second.live])).resolves.toEqual([first.live, second.live].sort());

    expect(problems).toEqual([]);
    expect(violations).toEqual([]);
    await context.close();
  });

  it('asks the ACME client of an inventory certificate to renew, from the certificate page', async () => {
    // An inventory certificate (source ACME) whose current version an ACME order issued.
    const { live } = await accountWithCertificates('default');
    const inventoryId = `mc-${randomBytes(8).toString('hex')}`;
    const { rows } = await db.query<{ serial_hex: string }>(
      `UPDATE protocol_frontends.acme_certificates SET issuer_id = 'iss-local', certificate_id = $2
        WHERE id = $1 RETURNING serial_hex`,
      [live, inventoryId],
    );
    await db.query(
      `INSERT INTO issuance.certificates (id, name, common_name, issuer_id, renewal_policy_id, source, status, expires_at)
       VALUES ($1, 'gui.localhost', 'gui.localhost', 'iss-local', 'rp-default', 'ACME', 'Active', now() + interval '89 days')`,
      [inventoryId],
    );
    await db.query(
      `INSERT INTO issuance.certificate_versions (id, certificate_id, version, serial_number, fingerprint_sha256,
         key_algorithm, key_size, issued_at, not_before, not_after, cert_pem, issuer_id)
       VALUES ($1, $2, 1, $3, $3, 'ECDSA-P256', 256, now(), now(), now() + interval '89 days', 'pem', 'iss-local')`,
      [`ver-${inventoryId}`, inventoryId, rows[0].serial_hex],
    );
    await db.query(`UPDATE issuance.certificates SET current_version_id = $2 WHERE id = $1`, [
      inventoryId,
      `ver-${inventoryId}`,
    ]);
    const { context, page, violations } = await openContext(browser, gateway, { bypassCSP: true });
    await signInWithKey(page, adminKey);
    await page.goto(`/certificates/${inventoryId}`);
    const askClient = page.getByRole('button', { name: 'Ask the ACME client to renew' });
    await askClient.waitFor();
    // Its client renews it: no server-side renewal is offered (the API refuses one).
    expect(await page.getByRole('button', { name: /renew$/i }).allTextContents()).toEqual([
      'Ask the ACME client to renew',
    ]);
    await askClient.click();
    await page
      .getByRole('status')
      .getByText(/^The ACME client is told to renew between /)
      .waitFor();
    await expect(movedIds([live])).resolves.toEqual([live]);
    const problems = await axeProblems(page, 'certificate page of an ACME certificate');
    expect(problems).toEqual([]);
    expect(violations).toEqual([]);
    await context.close();
  });
});
