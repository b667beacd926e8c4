import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer as createHttpServer, Server as HttpServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { createServer as createTlsServer, Server as TlsServer } from 'node:tls';
import { Browser, Locator } from 'playwright-core';
import {
  createTlsFixture,
  eventually,
  HttpsResult,
  startServiceProcess,
  startTestSystem,
  TestSystem,
  TlsFixture,
  openSqlSession,
  SqlSession,
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
 * The monitoring, discovery, notification and EST pages of the web GUI (issue 18) in Debian's
 * chromium against a running system: auth, issuance (a claim imports), health-monitor (checks,
 * scans, SCEP probes), notifier, protocol-frontends (EST) and the gateway. Loopback TLS servers
 * are what is checked and scanned; a loopback HTTP server receives the webhook notifier's test.
 */
const PAGES = [
  ['/health-checks', 'Health checks'],
  ['/discovered-certificates', 'Discovered certificates'],
  ['/network-scan/targets', 'Scan targets'],
  ['/network-scan/scans', 'Scans'],
  ['/network-scan/scep-probes', 'SCEP probes'],
  ['/notifications', 'Notifications'],
  ['/notifiers', 'Notifiers'],
  ['/routing-rules', 'Routing rules'],
  ['/contacts', 'Contacts'],
  ['/admin/est-profiles', 'EST profiles'],
] as const;
const HOOK_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const EST_PASSWORD = 'est-basic-password-gui-1';

jest.setTimeout(120_000);

describe('the monitoring and notification pages in Chromium', () => {
  let system: TestSystem;
  let gateway: string;
  let browser: Browser;
  let adminKey: string;
  let db: SqlSession;
  let fixture: TlsFixture;
  let tlsPort: number;
  let hookUrl: string;
  const servers: (TlsServer | HttpServer)[] = [];
  const hooks: string[] = [];
  const sentIds = [randomUUID(), randomUUID()];
  const deadId = randomUUID();

  const api = (method: string, path: string, body?: unknown): Promise<HttpsResult> =>
    callApi({ url: gateway, ca: system.ca, key: adminKey }, method, path, body);
  const created = async (path: string, body: unknown) => {
    const answer = await api('POST', path, body);
    expect(`${path} ${answer.status} ${answer.text}`).toMatch(/ 20[0-2] /);
    return answer.json() as Record<string, unknown>;
  };
  /** Waits until a count on the page reads `value` (it reads … while its query loads). */
  const statShows = (region: Locator, testId: string, value: string) =>
    region.getByTestId(testId).locator('.stat-value').getByText(value, { exact: true }).waitFor();
  const signedIn = async (options: { bypassCSP?: boolean } = {}) => {
    const opened = await openContext(browser, gateway, options);
    await signInWithKey(opened.page, adminKey);
    return opened;
  };

  beforeAll(async () => {
    fixture = await createTlsFixture('gui-scanned.test');
    const tls = createTlsServer(
      { cert: readFileSync(fixture.certPath), key: readFileSync(fixture.keyPath) },
      (socket) => socket.end(),
    );
    tls.listen(0, '127.0.0.1');
    await once(tls, 'listening');
    servers.push(tls);
    tlsPort = (tls.address() as AddressInfo).port;
    const hook = createHttpServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        hooks.push(body);
        response.writeHead(204).end();
      });
    });
    hook.listen(0, '127.0.0.1');
    await once(hook, 'listening');
    servers.push(hook);
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;

    system = await startTestSystem(
      'web-gui-monitoring',
      ['auth', 'issuance', 'health-monitor', 'notifier', 'protocol-frontends', 'api-gateway'],
      {
        SERVICE_NETWORK_ALLOW_CIDRS: '127.0.0.0/8',
        SERVICE_NOTIFIER_ALLOWED_NETWORKS: '127.0.0.1',
      },
    );
    gateway = system.services['api-gateway'].url;
    adminKey = system.env.SERVICE_AUTH_SECRET!;
    db = await openSqlSession(system.database.url);

    // A check that matches what is served, and one expecting another certificate (a mismatch).
    await created('/api/v1/health-checks', { name: 'gui-served', host: '127.0.0.1', port: tlsPort });
    await created('/api/v1/health-checks', {
      name: 'gui-mismatch',
      host: '127.0.0.1',
      port: tlsPort,
      expected_fingerprint: 'ab'.repeat(32),
    });
    // One scan before the pages are looked at, so discovery has something to triage.
    const target = await created('/api/v1/network-scan/targets', {
      name: 'gui-loopback',
      hosts: ['127.0.0.1'],
      ports: [tlsPort],
    });
    const scan = await created(`/api/v1/network-scan/targets/${String(target.id)}/trigger`, undefined);
    await eventually(async () => {
      const current = await api('GET', `/api/v1/network-scan/scans/${String(scan.id)}`);
      return (current.json() as { status: string }).status === 'completed';
    }, 'the first scan completed');
    await created('/api/v1/network-scan/scep-probe', { url: 'http://127.0.0.1:9/scep' });
    await created('/api/v1/notifiers', {
      id: 'gui-hook',
      name: 'GUI hook',
      kind: 'webhook',
      secrets: { url: hookUrl, secret: HOOK_SECRET },
    });
    await created('/api/v1/routing-rules', {
      id: 'gui-expiring',
      name: 'Expiry to the hook',
      event_types: ['certificate.expiring'],
      notifier_ids: ['gui-hook'],
    });
    const contact = await api('PUT', '/api/v1/contacts/team/team-gui', { addresses: ['ops@example.com'] });
    expect(contact.status).toBe(200);
    await created('/api/v1/admin/est/profiles', {
      path_id: 'gui-devices',
      auth_methods: ['basic'],
      basic_username: 'device',
      basic_password: EST_PASSWORD,
    });
    // Notifications come from events; two delivered (unread) and one dead, as the notifier keeps them.
    const event = (certificate: string) =>
      JSON.stringify({
        type: 'certificate.expiring',
        severity: 'critical',
        dedup_key: `certificate.expiring:${certificate}:2026-12-01T00:00:00.000Z:7`,
        certificate_id: certificate,
        owner_id: null,
        team_id: null,
        environment: null,
        issuer_id: null,
        title: `${certificate} expires in 6 days`,
        details: { days_remaining: 6 },
        occurred_at: '2026-11-24T00:00:00.000Z',
      });
    await db.query(
      `INSERT INTO notifier.notifications
         (id, dedup_key, event_type, severity, certificate_id, notifier_id, title, event, status, retry_count, last_error, created_at)
       VALUES ($1, 'k-sent-a|gui-hook', 'certificate.expiring', 'critical', 'cert-a', 'gui-hook', 'cert-a expires in 6 days', $2, 'sent', 0, NULL, now()),
              ($3, 'k-sent-b|gui-hook', 'certificate.expiring', 'critical', 'cert-b', 'gui-hook', 'cert-b expires in 6 days', $4, 'sent', 0, NULL, now() - interval '1 minute'),
              ($5, 'k-dead|gui-hook', 'certificate.expiring', 'critical', 'cert-c', 'gui-hook', 'cert-c expires in 6 days', $6, 'dead', 4, 'HTTP 503', now() - interval '1 hour')`,
      [sentIds[0], event('cert-a'), sentIds[1], event('cert-b'), deadId, event('cert-c')],
    );
    // A new check is first due at its phase in the interval and the monitor claims what is due
    // at each minute's tick, the first at its start: due now and a restart probe them at once.
    await db.query('UPDATE health_monitor.health_checks SET next_check_at = now()');
    await system.services['health-monitor'].stop();
    system.services['health-monitor'] = await startServiceProcess('health-monitor', system.env, {
      ca: system.ca,
    });
    await eventually(async () => {
      const checks = (await api('GET', '/api/v1/health-checks')).json() as {
        data: { last_checked_at: string | null }[];
      };
      return checks.data.every((check) => check.last_checked_at !== null);
    }, 'both checks probed');
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await db?.end();
    await system?.stop();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('renders every page with data, with no serious or critical axe-core violation, and screenshots it', async () => {
    const { context, page } = await signedIn({ bypassCSP: true });
    const bodies = recordApiBodies(page);
    const secrets = [HOOK_SECRET, EST_PASSWORD, hookUrl, adminKey, system.env.SERVICE_CONFIG_ENCRYPTION_KEY!];
    const problems = await checkPages(page, PAGES, secrets);
    for (const body of await Promise.all(bodies)) {
      for (const secret of secrets) if (body.includes(secret)) problems.push('a secret in an API response');
    }
    // Each page shows the seeded record, not only an empty state.
    for (const [path, text] of [
      ['/health-checks', 'gui-mismatch'],
      ['/network-scan/targets', 'gui-loopback'],
      ['/network-scan/scans', 'completed'],
      ['/discovered-certificates', 'CN=gui-scanned.test'],
      ['/network-scan/scep-probes', 'http://127.0.0.1:9/scep'],
      ['/notifications', 'cert-c expires in 6 days'],
      ['/notifiers', 'GUI hook'],
      ['/routing-rules', 'Expiry to the hook'],
      ['/contacts', 'ops@example.com'],
      ['/admin/est-profiles', 'gui-devices'],
    ] as const) {
      await page.goto(path);
      await page.getByRole('cell', { name: text, exact: true }).first().waitFor();
    }
    expect(problems).toEqual([]);
    await context.close();
    // With API-key auth the sign-in page has no single sign-on section.
    const fresh = await openContext(browser, gateway);
    await fresh.page.goto('/login');
    await fresh.page.getByRole('heading', { name: 'API key' }).waitFor();
    await expect(fresh.page.getByRole('heading', { name: 'Single sign-on' }).count()).resolves.toBe(0);
    await fresh.context.close();
  });

  it('shows the unread count on the bell, and marks one read from the list; requeues a dead one', async () => {
    const { context, page, violations } = await signedIn();
    const bell = page.getByTestId('notification-bell');
    await expect(bell.getAttribute('aria-label')).resolves.toBe('Notifications: 2 unread');
    await bell.click();
    await page.waitForURL(/\/notifications\?status=sent$/);
    await page.getByRole('button', { name: 'Mark read cert-a expires in 6 days' }).click();
    await page.getByRole('status').getByText('Mark read cert-a expires in 6 days: status: read').waitFor();
    await page.getByLabel('Notifications: 1 unread').waitFor();
    expect(
      ((await api('GET', `/api/v1/notifications/${sentIds[0]}`)).json() as { status: string }).status,
    ).toBe('read');
    await page.goto('/notifications?status=dead');
    await page.getByRole('button', { name: 'Requeue cert-c expires in 6 days' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Requeue', exact: true }).click();
    await page
      .getByRole('status')
      .getByText(/^Requeue cert-c expires in 6 days: status: pending/)
      .waitFor();
    expect(violations).toEqual([]);
    await context.close();
  });

  it("draws the status board and a check's history, and acknowledges the mismatch", async () => {
    const summary = (await api('GET', '/api/v1/health-checks/summary')).json() as Record<string, number>;
    expect(summary).toMatchObject({ total: 2, healthy: 1, cert_mismatch: 1, alerting: 1 });
    const { context, page, violations } = await signedIn();
    await page.goto('/health-checks');
    const board = page.getByRole('region', { name: 'Status board' });
    await statShows(board, 'health-cert_mismatch', '1');
    await statShows(board, 'health-alerting', '1');
    await page.getByRole('button', { name: 'Details of gui-served' }).click();
    const history = page.getByRole('region', { name: 'History' });
    await history
      .getByRole('img', { name: /^Handshake times of the last \d+ probes: .* ms, 0 failed$/ })
      .waitFor();
    await history.locator('.sparkline polyline').first().waitFor({ state: 'attached' });
    await page.getByRole('button', { name: 'Acknowledge gui-mismatch' }).click();
    await page.getByRole('status').getByText('Acknowledge gui-mismatch: status: cert_mismatch').waitFor();
    await statShows(board, 'health-acknowledged', '1');
    // The board's summary and the checks' list are asked again separately: wait for the row too.
    await page.getByRole('button', { name: 'Acknowledge gui-mismatch' }).waitFor({ state: 'detached' });
    expect(violations).toEqual([]);
    await context.close();
  });

  it('scans a target from its page, shows the scan to its end, and claims what it found', async () => {
    const { context, page, violations } = await signedIn();
    await page.goto('/network-scan/targets');
    await page.getByRole('button', { name: 'Scan now gui-loopback' }).click();
    await page.getByRole('status').getByText('Scan now gui-loopback: status: running').waitFor();
    await page.goto('/network-scan/scans');
    // The page asks again while the scan runs: it ends completed with its progress full.
    await page.getByRole('cell', { name: 'completed', exact: true }).nth(1).waitFor();
    await expect(page.getByRole('cell', { name: 'running', exact: true }).count()).resolves.toBe(0);
    await expect(page.getByRole('progressbar', { name: '1 of 1' }).count()).resolves.toBe(2);

    await page.goto('/discovered-certificates?status=Unmanaged');
    const triage = page.getByRole('region', { name: 'Triage' });
    await statShows(triage, 'discovery-unmanaged', '1');
    await page.getByRole('button', { name: 'Claim CN=gui-scanned.test' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Claim', exact: true }).click();
    await page
      .getByRole('status')
      .getByText(/^Claim .*gui-scanned\.test.*: status: Claimed/)
      .waitFor();
    const claimed = (await api('GET', `/api/v1/discovered-certificates/${fixture.fingerprint}`)).json() as {
      status: string;
      managed_certificate_id: string | null;
    };
    expect(claimed.status).toBe('Claimed');
    expect(claimed.managed_certificate_id).not.toBeNull();
    await statShows(triage, 'discovery-claimed', '1');
    expect(violations).toEqual([]);
    await context.close();
  });

  it('creates a scan target from its form: ports as numbers, hosts pasted one a line', async () => {
    const { context, page, violations } = await signedIn();
    await page.goto('/network-scan/targets');
    await page.getByText('New scan target').click();
    const form = page.getByRole('form', { name: 'New scan target' });
    await form.getByLabel('name', { exact: false }).first().fill('gui-form-target');
    await form.getByLabel('hosts', { exact: false }).fill('127.0.0.1\n127.0.0.2');
    await form.getByLabel('ports', { exact: false }).fill(`${tlsPort}, 8443`);
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('status').getByText('Created.', { exact: false }).waitFor();
    const targets = (await api('GET', '/api/v1/network-scan/targets')).json() as {
      data: { name: string; hosts: string[]; ports: number[] }[];
    };
    expect(targets.data.find((t) => t.name === 'gui-form-target')).toMatchObject({
      hosts: ['127.0.0.1', '127.0.0.2'],
      ports: [tlsPort, 8443],
    });
    expect(violations).toEqual([]);
    await context.close();
  });

  it('runs a SCEP probe from the form and lists its result', async () => {
    const { context, page, violations } = await signedIn();
    await page.goto('/network-scan/scep-probes');
    await page.getByText('Probe a SCEP server').click();
    const form = page.getByRole('form', { name: 'Probe a SCEP server' });
    await form.getByLabel('url (required)').fill(`http://127.0.0.1:${tlsPort}/cgi-bin/pkiclient.exe`);
    await form.getByRole('button', { name: 'Run probe' }).click();
    await page
      .getByRole('status')
      .getByText(/^Probed:/)
      .waitFor();
    await page
      .getByRole('cell', { name: `http://127.0.0.1:${tlsPort}/cgi-bin/pkiclient.exe` })
      .first()
      .waitFor();
    const probes = (await api('GET', '/api/v1/network-scan/scep-probes')).json() as { probes: unknown[] };
    expect(probes.probes).toHaveLength(2);
    expect(violations).toEqual([]);
    await context.close();
  });

  it('creates a webhook notifier with masked secrets and test-sends through it; sets and deletes contacts', async () => {
    const { context, page, violations } = await signedIn();
    await page.goto('/notifiers');
    await page.getByText('New notifier').click();
    const form = page.getByRole('form', { name: 'New notifier' });
    await form.getByLabel('id (required)').fill('gui-hook-2');
    await form.getByLabel('name (required)').fill('Second hook');
    await form.getByLabel('kind (required)').selectOption('webhook');
    const secrets = form.getByLabel('secrets', { exact: true });
    await expect(secrets.getAttribute('type')).resolves.toBe('password');
    await secrets.fill(JSON.stringify({ url: hookUrl, secret: HOOK_SECRET }));
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('status').getByText('Created.').waitFor();
    await page.getByRole('button', { name: 'Send a test Second hook' }).click();
    await page.getByRole('status').getByText('Send a test Second hook: delivered.').waitFor();
    expect(hooks.some((body) => body.includes('notifier.test'))).toBe(true);
    expect(await page.content()).not.toContain(HOOK_SECRET);
    // Its edit form says the secrets are stored (never shows them) and starts from its settings.
    expect(
      (await api('PUT', '/api/v1/notifiers/gui-hook-2', { settings: { max_concurrent: 2 } })).status,
    ).toBe(200);
    await page.reload();
    await page.getByRole('button', { name: 'Details of Second hook' }).click();
    await page.getByText('Edit Second hook').click();
    const edit = page.getByRole('form', { name: 'Edit Second hook' });
    await expect(edit.getByLabel('secrets', { exact: true }).getAttribute('placeholder')).resolves.toBe(
      'set (leave empty to keep)',
    );
    await expect(edit.getByLabel('settings', { exact: true }).inputValue()).resolves.toContain(
      '"max_concurrent": 2',
    );
    expect(await page.content()).not.toContain(HOOK_SECRET);

    await page.goto('/contacts');
    await page.getByText('Set the addresses of an owner or team').click();
    const contacts = page.getByRole('form', { name: 'Set the addresses of an owner or team' });
    await contacts.getByLabel('kind (required)').selectOption('owner');
    await contacts.getByLabel('subject_id (required)').fill('owner-gui');
    await contacts.getByLabel('addresses (required)').fill('gui@example.com, second@example.com');
    await contacts.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    await page.getByRole('cell', { name: 'gui@example.com, second@example.com' }).waitFor();
    await page.getByRole('button', { name: 'Delete team-gui' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('status').getByText('Delete team-gui: Done.').waitFor();
    expect((await api('GET', '/api/v1/contacts/team/team-gui')).status).toBe(404);
    expect(violations).toEqual([]);
    await context.close();
  });

  it('creates an EST profile from its form with the password write-only, and deletes it', async () => {
    const { context, page, violations } = await signedIn();
    await page.goto('/admin/est-profiles');
    await page.getByText('New EST profile').click();
    const form = page.getByRole('form', { name: 'New EST profile' });
    await form.getByLabel('path_id (required)').fill('gui-routers');
    await form.getByRole('checkbox', { name: 'basic' }).check();
    await form.getByLabel('basic_username', { exact: true }).fill('router');
    const password = form.getByLabel('basic_password', { exact: true });
    await expect(password.getAttribute('type')).resolves.toBe('password');
    await password.fill(EST_PASSWORD);
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('status').getByText('Created.').waitFor();
    await page.getByRole('cell', { name: 'gui-routers', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Delete gui-routers' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('status').getByText('Delete gui-routers: Done.').waitFor();
    const left = (await api('GET', '/api/v1/admin/est/profiles')).json() as { data: { path_id: string }[] };
    expect(left.data.map((profile) => profile.path_id)).toEqual(['gui-devices']);
    expect(violations).toEqual([]);
    await context.close();
  });
});
