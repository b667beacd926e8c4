import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NatsBus } from '@certlane/platform';
import { eventually, freePort, startTestSystem, TestSystem, testNatsUrl } from '@certlane/testing';
import { Client } from 'pg';

/** aiosmtpd's Mailbox refusing `gone-*` for good (550) and `later-*` on the first try (450). */
const PICKY_HANDLER = `
from aiosmtpd.handlers import Mailbox

class Picky(Mailbox):
    seen = set()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.startswith('gone-'):
            return '550 5.1.1 <' + address + '>: user unknown'
        if address.startswith('later-') and address not in Picky.seen:
            Picky.seen.add(address)
            return '450 4.2.0 <' + address + '>: greylisted, try again later'
        envelope.rcpt_tos.append(address)
        return '250 OK'
`;

async function smtpServer(): Promise<{ port: number; maildir: string; child: ChildProcess }> {
  const port = await freePort();
  const maildir = mkdtempSync(join(tmpdir(), 'certlane-recipients-smtp-'));
  writeFileSync(join(maildir, 'picky.py'), PICKY_HANDLER);
  const child = spawn(
    '/usr/bin/python3',
    ['-m', 'aiosmtpd', '-n', '-l', `127.0.0.1:${port}`, '-c', 'picky.Picky', join(maildir, 'box')],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, PYTHONPATH: maildir } },
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

/** The envelope recipients of every stored message (aiosmtpd adds X-RcptTo). */
function envelopes(maildir: string): string[] {
  const dir = join(maildir, 'box', 'new');
  let files: string[] = [];
  try {
    files = readdirSync(dir);
  } catch {
    return [];
  }
  return files
    .map((file) => /^X-RcptTo: (.*)$/m.exec(readFileSync(join(dir, file), 'utf8'))?.[1].trim() ?? '')
    .sort();
}

/**
 * An email whose server accepts some recipients and refuses others, through the real notifier
 * sweep and database (ADR 0056, "one message, several recipients"): a temporary refusal is
 * retried for that recipient only, a permanent one makes the notification dead rather than sent,
 * nobody who has the message gets it twice, and a requeue retries only the refused recipient.
 */
describe('notifier service: email recipients one by one', () => {
  let system: TestSystem;
  let db: Client;
  let bus: NatsBus;
  let smtp: Awaited<ReturnType<typeof smtpServer>>;
  const id = randomUUID();

  const row = async () =>
    (
      await db.query(
        `SELECT status, retry_count, last_error, delivered_to, refused_to FROM notifier.notifications WHERE id = $1`,
        [id],
      )
    ).rows[0] as {
      status: string;
      retry_count: number;
      last_error: string | null;
      delivered_to: string[];
      refused_to: string[];
    };

  beforeAll(async () => {
    smtp = await smtpServer();
    system = await startTestSystem('notifier-email-recipients', ['notifier'], {
      SERVICE_NOTIFICATION_RETRY_INTERVAL: '1s',
      SERVICE_NOTIFIER_ALLOWED_NETWORKS: '127.0.0.1',
    });
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'notifier-email-recipients-test',
      requestTimeoutMs: 5000,
      namespace: system.env.SERVICE_NATS_NAMESPACE,
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    await db.query(
      `INSERT INTO notifier.notifiers (id, name, kind, settings) VALUES ('mail', 'mail', 'email', $1)`,
      [
        JSON.stringify({
          host: '127.0.0.1',
          port: smtp.port,
          security: 'none',
          from: 'certlane@example.com',
          to: ['pki@example.com', 'gone-bob@example.com'],
        }),
      ],
    );
    const event = {
      type: 'certificate.expiring',
      severity: 'warning',
      dedup_key: `certificate.expiring:cert-r:${id}`,
      certificate_id: 'cert-r',
      owner_id: null,
      team_id: null,
      environment: null,
      issuer_id: null,
      title: 'cert-r expires in 6 days',
      details: { days_remaining: 6 },
      occurred_at: new Date().toISOString(),
    };
    await db.query(
      `INSERT INTO notifier.notifications (id, dedup_key, event_type, severity, certificate_id, notifier_id, recipients, title, event)
       VALUES ($1, $2, 'certificate.expiring', 'warning', 'cert-r', 'mail', '{later-carol@example.com}', $3, $4)`,
      [id, `${event.dedup_key}|mail`, event.title, JSON.stringify(event)],
    );
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await bus?.close();
    await system?.stop();
    smtp?.child.kill();
    if (smtp) rmSync(smtp.maildir, { recursive: true, force: true });
  });

  it('retries only the greylisted recipient, ends dead (not sent) for the refused one, never sends twice', async () => {
    await eventually(async () => (await row()).status === 'failed', 'first attempt failed', 20_000);
    expect(await row()).toMatchObject({
      retry_count: 1,
      delivered_to: ['pki@example.com'],
      refused_to: ['gone-bob@example.com'],
    });
    expect((await row()).last_error).toMatch(/^SMTP refused 2 of 3 recipients: gone-bob@example\.com \(550/);
    expect(envelopes(smtp.maildir)).toEqual(['pki@example.com']);

    await db.query(
      `UPDATE notifier.notifications SET next_retry_at = now() - interval '1 second' WHERE id = $1`,
      [id],
    );
    await eventually(async () => (await row()).status === 'dead', 'dead after the retry', 20_000);
    expect(await row()).toMatchObject({
      retry_count: 1,
      delivered_to: ['pki@example.com', 'later-carol@example.com'],
      refused_to: ['gone-bob@example.com'],
    });
    expect((await row()).last_error).toContain('gone-bob@example.com (refused earlier)');
    expect(envelopes(smtp.maildir)).toEqual(['later-carol@example.com', 'pki@example.com']);

    // A requeue forgets the refusal and tries bob again, and only bob.
    await bus.request('notifier.v1.requeue-notification', { id }, { context: { request_id: randomUUID() } });
    await eventually(
      async () => (await row()).status === 'dead' && !!(await row()).last_error?.includes('1 of 1'),
      'dead again after the requeue',
      20_000,
    );
    expect(await row()).toMatchObject({
      retry_count: 0,
      delivered_to: ['pki@example.com', 'later-carol@example.com'],
      refused_to: ['gone-bob@example.com'],
    });
    expect((await row()).last_error).toMatch(/^SMTP refused 1 of 1 recipients: gone-bob@example\.com \(550/);
    expect(envelopes(smtp.maildir)).toEqual(['later-carol@example.com', 'pki@example.com']);
  }, 60_000);
});
