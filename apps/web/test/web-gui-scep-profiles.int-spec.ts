import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser } from 'playwright-core';
import { ScepProfileDto } from '@certlane/contracts';
import { HttpsResult, openSqlSession, startTestSystem, TestSystem } from '@certlane/testing';
import {
  axeProblems,
  launchChromium,
  openContext,
  recordApiBodies,
  signInWithKey,
  callApi,
} from './gui-harness';

/**
 * Editing a SCEP profile in Debian's chromium (spec 4.9): the form is drawn from the update's
 * body schema and sent as the POST SCEP's admin routes take; the challenge password is never
 * shown and stays stored when its field is left empty; MDM settings, answered in the `mdm` block,
 * start the form as they are stored. SCEP is served by protocol-frontends.
 */
const CHALLENGE = 'gui-scep-challenge-password-1';
const MDM_AUDIENCE = 'https://scep.example.test/scep/gui-managed';

/** A self-signed MDM signing certificate made by the openssl CLI, as a trust file. */
function mdmTrustFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'web-gui-scep-'));
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
      '/CN=gui-mdm',
    ]),
    { stdio: 'ignore' },
  );
  return file;
}

jest.setTimeout(120_000);

describe('the SCEP profiles page in Chromium', () => {
  let system: TestSystem;
  let gateway: string;
  let browser: Browser;
  let adminKey: string;
  let mdmTrustPath: string;

  const api = (method: string, path: string, body?: unknown): Promise<HttpsResult> =>
    callApi({ url: gateway, ca: system.ca, key: adminKey }, method, path, body);
  const passwordHash = async (pathId: string): Promise<string | null> => {
    const db = await openSqlSession(system.database.url);
    try {
      const { rows } = await db.query<{ challenge_password_hash: string | null }>(
        'SELECT challenge_password_hash FROM protocol_frontends.scep_profiles WHERE path_id = $1',
        [pathId],
      );
      return rows[0].challenge_password_hash;
    } finally {
      await db.end();
    }
  };

  beforeAll(async () => {
    system = await startTestSystem('web-gui-scep', ['auth', 'issuance', 'protocol-frontends', 'api-gateway']);
    gateway = system.services['api-gateway'].url;
    adminKey = system.env.SERVICE_AUTH_SECRET!;
    // The owners the profiles name (a profile may name only an owner the inventory knows).
    for (const id of ['owner-before', 'owner-managed', 'owner-after'])
      expect((await api('POST', '/api/v1/owners', { id, name: id })).status).toBe(201);
    const created = await api('POST', '/api/v1/admin/scep/profiles', {
      path_id: 'gui-devices',
      challenge_password: CHALLENGE,
      owner: 'owner-before',
      legacy_algorithms: true,
    });
    expect(`${created.status} ${created.text}`).toMatch(/^201 /);
    mdmTrustPath = mdmTrustFile();
    const managed = await api('POST', '/api/v1/admin/scep/profiles', {
      path_id: 'gui-managed',
      mdm_enabled: true,
      mdm_audience: MDM_AUDIENCE,
      mdm_trust_path: mdmTrustPath,
      owner: 'owner-managed',
    });
    expect(`${managed.status} ${managed.text}`).toMatch(/^201 /);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('edits a profile by POST, sending only what changed (a box cleared as false) and keeping the unseen challenge password', async () => {
    const hashBefore = await passwordHash('gui-devices');
    expect(hashBefore).not.toBeNull();
    const { context, page, violations } = await openContext(browser, gateway, { bypassCSP: true });
    const bodies = recordApiBodies(page);
    const sent: { method: string; path: string; body: unknown }[] = [];
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith('/api/v1/admin/scep/profiles/'))
        sent.push({ method: request.method(), path, body: request.postDataJSON() as unknown });
    });
    await signInWithKey(page, adminKey);
    await page.goto('/admin/scep-profiles');
    await page.getByRole('button', { name: 'Details of gui-devices' }).click();
    await page.getByText('Edit gui-devices').click();
    const edit = page.getByRole('form', { name: 'Edit gui-devices' });
    await expect(edit.getByLabel('owner', { exact: true }).inputValue()).resolves.toBe('owner-before');
    const password = edit.getByLabel('challenge_password', { exact: true });
    await expect(password.getAttribute('type')).resolves.toBe('password');
    await expect(password.inputValue()).resolves.toBe('');
    await expect(password.getAttribute('placeholder')).resolves.toBe('set (leave empty to keep)');
    const problems = await axeProblems(page, 'SCEP profile edit form');

    await edit.getByLabel('owner', { exact: true }).fill('owner-after');
    await edit.getByLabel('client_revocation_unknown', { exact: true }).selectOption('hard-fail');
    await edit.getByLabel('legacy_algorithms', { exact: true }).uncheck();
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();

    const profile = (await api('GET', '/api/v1/admin/scep/profiles')).json() as {
      profiles: ScepProfileDto[];
    };
    const id = profile.profiles.find((p) => p.path_id === 'gui-devices')!.id;
    expect(sent).toEqual([
      {
        method: 'POST',
        path: `/api/v1/admin/scep/profiles/${id}`,
        body: { owner: 'owner-after', client_revocation_unknown: 'hard-fail', legacy_algorithms: false },
      },
    ]);
    expect(profile.profiles.find((p) => p.path_id === 'gui-devices')).toMatchObject({
      owner: 'owner-after',
      client_revocation_unknown: 'hard-fail',
      legacy_algorithms: false,
      challenge_password_set: true,
    });
    await expect(passwordHash('gui-devices')).resolves.toBe(hashBefore);
    // The list shows the new values once the edit's answer invalidates it.
    await page.getByRole('cell', { name: 'owner-after', exact: true }).waitFor();
    for (const body of await Promise.all(bodies)) expect(body).not.toContain(CHALLENGE);
    expect(await page.content()).not.toContain(CHALLENGE);
    expect(problems).toEqual([]);
    expect(violations).toEqual([]);
    await context.close();
  });

  it('starts the edit of an MDM profile from its mdm block (spec 4.9), and a save without changes keeps MDM on with its audience', async () => {
    const listed = async () =>
      (
        (await api('GET', '/api/v1/admin/scep/profiles')).json() as { profiles: ScepProfileDto[] }
      ).profiles.find((p) => p.path_id === 'gui-managed')!;
    const before = await listed();
    expect(before.mdm).toMatchObject({ audience: MDM_AUDIENCE, trust_path: mdmTrustPath });
    const { context, page, violations } = await openContext(browser, gateway, { bypassCSP: true });
    const sent: unknown[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === `/api/v1/admin/scep/profiles/${before.id}`)
        sent.push(request.postDataJSON() as unknown);
    });
    await signInWithKey(page, adminKey);
    await page.goto('/admin/scep-profiles');
    await page.getByRole('button', { name: 'Details of gui-managed' }).click();
    await page.getByText('Edit gui-managed').click();
    const edit = page.getByRole('form', { name: 'Edit gui-managed' });
    await expect(edit.getByLabel('mdm_enabled', { exact: true }).isChecked()).resolves.toBe(true);
    await expect(edit.getByLabel('mdm_audience', { exact: true }).inputValue()).resolves.toBe(MDM_AUDIENCE);
    await expect(edit.getByLabel('mdm_trust_path', { exact: true }).inputValue()).resolves.toBe(mdmTrustPath);
    await expect(edit.getByLabel('owner', { exact: true }).inputValue()).resolves.toBe('owner-managed');

    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    // Nothing was touched, so nothing is sent: MDM is not switched off, the audience not cleared.
    expect(sent).toEqual([{}]);
    const after = await listed();
    expect(after.mdm).toEqual(before.mdm);
    expect(after.mdm).toMatchObject({
      audience: MDM_AUDIENCE,
      trust_path: mdmTrustPath,
      trust_anchor_count: 1,
    });
    expect(violations).toEqual([]);
    await context.close();
  });

  it("reloads an MDM profile's trust file from its row, and the EST trust bundles from the EST page, after a confirmation", async () => {
    const { context, page, violations } = await openContext(browser, gateway);
    await signInWithKey(page, adminKey);
    await page.goto('/admin/scep-profiles');
    // Only a profile with MDM validation has a trust file to reload.
    await expect(page.getByRole('button', { name: 'Reload MDM trust gui-devices' }).count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Reload MDM trust gui-managed' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Reload MDM trust', exact: true }).click();
    await page
      .getByRole('status')
      .getByText('Reload MDM trust gui-managed: 1 trust anchor loaded.')
      .waitFor();

    await page.goto('/admin/est-profiles');
    await page.getByRole('button', { name: 'Reload trust bundles' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Reload trust bundles', exact: true }).click();
    await page
      .getByRole('status')
      .getByText(/^Reload trust bundles: reloaded /)
      .waitFor();
    expect(violations).toEqual([]);
    await context.close();
  });
});
