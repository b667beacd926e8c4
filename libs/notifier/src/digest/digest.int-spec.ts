import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DigestPreviewDto, DigestSendResult } from '@certlane/contracts';
import {
  eventually,
  freePort,
  httpsRequest,
  ServiceProcess,
  startServiceProcess,
  startTestSystem,
  TestSystem,
} from '@certlane/testing';
import { Client } from 'pg';

// mailparser ships no types; the test reads only these fields.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { simpleParser } = require('mailparser') as {
  simpleParser(source: Buffer): Promise<{
    subject?: string;
    from?: { text: string };
    to?: { text: string };
    text?: string;
    html?: string | false;
    headers: Map<string, unknown>;
  }>;
};

const GUI = 'https://certlane.example.com';
const DAY = 86_400_000;
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString();

/** A real SMTP server (aiosmtpd, Debian python3-aiosmtpd) on loopback writing to a maildir. */
async function smtpServer(): Promise<{ port: number; maildir: string; child: ChildProcess }> {
  const port = await freePort();
  const maildir = mkdtempSync(join(tmpdir(), 'certlane-digest-smtp-'));
  const child = spawn(
    '/usr/bin/python3',
    [
      '-m',
      'aiosmtpd',
      '-n',
      '-l',
      `127.0.0.1:${port}`,
      '-c',
      'aiosmtpd.handlers.Mailbox',
      join(maildir, 'box'),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  await eventually(
    () =>
      new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      }),
    'aiosmtpd listening',
    15_000,
  );
  return { port, maildir, child };
}

type Parsed = Awaited<ReturnType<typeof simpleParser>>;

async function mailbox(maildir: string): Promise<Parsed[]> {
  const dir = join(maildir, 'box', 'new');
  let files: string[] = [];
  try {
    files = readdirSync(dir);
  } catch {
    return [];
  }
  return Promise.all(files.map((file) => simpleParser(readFileSync(join(dir, file)))));
}

/**
 * The daily digest (issue 22, ADR 0062) through the real gateway, auth, issuance and notifier
 * processes: facts seeded in issuance's schema, contacts, an email notifier and a digest rule
 * set through the API; preview renders without sending, send mails one digest per owner and team
 * to a real SMTP server (the message parsed: headers, text and HTML parts, links), and two fresh
 * replicas starting together queue the day's digest once.
 */
describe('notification digest', () => {
  let system: TestSystem;
  let db: Client;
  let smtp: Awaited<ReturnType<typeof smtpServer>>;
  const replicas: ServiceProcess[] = [];

  const call = async (method: string, path: string, body?: unknown) =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      ca: system.ca,
    });

  beforeAll(async () => {
    smtp = await smtpServer();
    system = await startTestSystem('digest', ['auth', 'issuance', 'notifier', 'api-gateway'], {
      SERVICE_NOTIFIER_ALLOWED_NETWORKS: '127.0.0.1',
      SERVICE_GUI_URL: GUI,
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    await db.query(`
      SET search_path TO issuance;
      INSERT INTO teams (id, name) VALUES ('web', 'Web');
      INSERT INTO owners (id, name, team_id) VALUES ('alice', 'Alice', 'web'), ('bob', 'Bob', NULL);
      INSERT INTO policy_rules (id, name, type) VALUES ('pr-env', 'Environments', 'AllowedEnvironments');`);
    const certificate = (
      id: string,
      owner: string | null,
      team: string | null,
      expires: string,
      status = 'Active',
    ) =>
      db.query(
        `INSERT INTO issuance.certificates (id, name, common_name, environment, owner_id, team_id, renewal_policy_id, status, expires_at)
         VALUES ($1, $1, $1 || '.example.com', 'prod', $2, $3, 'rp-default', $4, $5)`,
        [id, owner, team, status, expires],
      );
    await certificate('api', 'alice', 'web', inDays(5), 'Expiring');
    await certificate('db', 'bob', null, inDays(20));
    await certificate('later', 'alice', 'web', inDays(60));
    await certificate('gone', 'alice', 'web', inDays(3), 'Revoked');
    await certificate('shop', null, 'web', inDays(200));
    await db.query(`
      SET search_path TO issuance;
      INSERT INTO jobs (id, type, status, certificate_id, last_error, completed_at)
      VALUES ('job-fail', 'Renewal', 'Failed', 'api', 'CA answered <503>', now() - interval '2 hours'),
             ('job-old', 'Deployment', 'Failed', 'db', 'old news', now() - interval '3 days'),
             ('job-wait', 'Issuance', 'AwaitingApproval', 'db', '', NULL);
      INSERT INTO policy_violations (id, rule_id, certificate_id, severity, code, message)
      VALUES ('pv-1', 'pr-env', 'shop', 'Error', 'environment', 'environment prod is not allowed');
      INSERT INTO approvals (id, approval_kind, certificate_id, job_id, requested_by)
      VALUES ('ap-1', 'cert_issuance', 'db', 'job-wait', 'carol');
      SET search_path TO public;`);
    expect(
      (await call('PUT', '/api/v1/contacts/owner/alice', { addresses: ['alice@example.com'] })).status,
    ).toBe(200);
    expect((await call('PUT', '/api/v1/contacts/owner/bob', { addresses: ['bob@example.com'] })).status).toBe(
      200,
    );
    expect(
      (
        await call('PUT', '/api/v1/contacts/team/web', {
          addresses: ['web@example.com', 'oncall@example.com'],
        })
      ).status,
    ).toBe(200);
    const notifier = await call('POST', '/api/v1/notifiers', {
      id: 'mail',
      name: 'Mail',
      kind: 'email',
      settings: {
        host: '127.0.0.1',
        port: smtp.port,
        security: 'none',
        from: 'certlane@example.com',
        to: ['ops@example.com'],
      },
    });
    expect(notifier.status).toBe(201);
    const rule = await call('POST', '/api/v1/routing-rules', {
      id: 'digests',
      name: 'Digests by mail',
      event_types: ['digest.daily'],
      notifier_ids: ['mail'],
    });
    expect(rule.status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await db?.end();
    await system?.stop();
    smtp?.child.kill();
    if (smtp) rmSync(smtp.maildir, { recursive: true, force: true });
  });

  it('previews one digest per owner and team, rendered and not sent', async () => {
    const answer = await call('GET', '/api/v1/digest/preview');
    expect(answer.status).toBe(200);
    const preview = answer.json() as DigestPreviewDto;
    expect(preview.digests.map((d) => `${d.kind}/${d.subject_id}`)).toEqual([
      'owner/alice',
      'owner/bob',
      'team/web',
    ]);
    const [alice, bob, web] = preview.digests;
    expect(alice.counts).toEqual({ expiring: 1, failed_jobs: 1, violations: 0, approvals: 0 });
    expect(bob.counts).toEqual({ expiring: 1, failed_jobs: 0, violations: 0, approvals: 1 });
    expect(web.counts).toEqual({ expiring: 1, failed_jobs: 1, violations: 1, approvals: 0 });
    expect(web.addresses).toEqual(['web@example.com', 'oncall@example.com']);
    expect(alice.text).toContain(`${GUI}/certificates/api`);
    expect(alice.text).not.toContain('later.example.com');
    expect(alice.text).not.toContain('gone.example.com');
    expect(bob.text).not.toContain('old news');
    expect(alice.html).toContain('CA answered &lt;503&gt;');
    const one = (await call('GET', '/api/v1/digest/preview?team_id=web')).json() as DigestPreviewDto;
    expect(one.digests.map((d) => d.subject_id)).toEqual(['web']);
    expect(await mailbox(smtp.maildir)).toEqual([]);
  });

  it('refuses a malformed filter with 400', async () => {
    expect((await call('GET', '/api/v1/digest/preview?owner_id=Not%20An%20Id')).status).toBe(400);
  });

  it('sends one email per owner and team to their contacts: headers, both parts, links', async () => {
    const answer = await call('POST', '/api/v1/digest/send', {});
    expect(answer.status).toBe(200);
    const result = answer.json() as DigestSendResult;
    expect(result).toMatchObject({ digests: 3, notifications: 3 });
    expect(result.run_id).toMatch(/^manual-/);
    await eventually(async () => (await mailbox(smtp.maildir)).length === 3, 'three digests mailed');
    const mails = await mailbox(smtp.maildir);
    const byTo = Object.fromEntries(mails.map((mail) => [mail.to?.text, mail]));
    expect(Object.keys(byTo).sort()).toEqual([
      'alice@example.com',
      'bob@example.com',
      'web@example.com, oncall@example.com',
    ]);
    const web = byTo['web@example.com, oncall@example.com'];
    expect(web.from?.text).toBe('certlane@example.com');
    expect(web.subject).toBe(
      '[Certlane digest] team web: 1 expiring certificate, 1 failure, 1 violation, 0 approvals',
    );
    expect(web.text).toContain('Expiring in the next 30 days:');
    expect(web.text).toContain('- api.example.com: expires');
    expect(web.text).toContain('Open policy violations:');
    expect(web.text).toContain('environment prod is not allowed');
    expect(web.html).toContain(`<a href="${GUI}/certificates/api">api.example.com</a>`);
    expect(web.html).toContain(`<a href="${GUI}/certificates/shop">shop.example.com</a>`);
    const bob = byTo['bob@example.com'];
    expect(bob.text).toContain(`${GUI}/approvals`);
    expect(bob.html).toContain('requested by carol');
    // The digest goes to the owner's or team's contacts only, not to the notifier's own `to`.
    expect(mails.some((mail) => mail.to?.text?.includes('ops@example.com'))).toBe(false);
    const { rows } = await db.query(
      `SELECT status, recipients FROM notifier.notifications WHERE event_type = 'digest.daily' ORDER BY dedup_key`,
    );
    expect(rows.map((row: { status: string }) => row.status)).toEqual(['sent', 'sent', 'sent']);
  });

  it('queues the day’s digest once when two replicas start together', async () => {
    const today = new Date().toISOString().slice(0, 10);
    // The first notifier ran today's digest at start, before anything was set up: forget it.
    await db.query(`DELETE FROM notifier.digest_runs WHERE run_id = $1`, [today]);
    const before = (await mailbox(smtp.maildir)).length;
    replicas.push(
      ...(await Promise.all([
        startServiceProcess('notifier', system.env, { ca: system.ca }),
        startServiceProcess('notifier', system.env, { ca: system.ca }),
      ])),
    );
    await eventually(
      async () => (await mailbox(smtp.maildir)).length === before + 3,
      'the daily digests mailed',
    );
    const { rows } = await db.query(
      `SELECT run_id, digests, notifications FROM notifier.digest_runs WHERE run_id = $1`,
      [today],
    );
    expect(rows).toEqual([{ run_id: today, digests: 3, notifications: 3 }]);
    const daily = await db.query(
      `SELECT dedup_key FROM notifier.notifications WHERE dedup_key LIKE $1 ORDER BY dedup_key`,
      [`digest.daily:${today}:%`],
    );
    expect(daily.rows.map((row: { dedup_key: string }) => row.dedup_key)).toEqual([
      `digest.daily:${today}:owner:alice|mail`,
      `digest.daily:${today}:owner:bob|mail`,
      `digest.daily:${today}:team:web|mail`,
    ]);
  });
});
