import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitUntil as eventually } from '../../targets/testing/servers';
import { createTestCa, TestCa } from '../../targets/testing/test-certificates';
import { OutboundNotification } from '../notifier-connector';
import { GuardedHttp } from '../outbound/outbound-http';
import { networkList } from '../outbound/reserved-addresses';
import { emailConnector } from './email.connector';

// mailparser ships no types; the test reads only these fields.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { simpleParser } = require('mailparser') as {
  simpleParser(source: Buffer): Promise<{
    subject?: string;
    from?: { text: string };
    to?: { text: string };
    text?: string;
    html?: string | false;
    messageId?: string;
  }>;
};

const notification: OutboundNotification = {
  id: '7c4e0d5a-3333-4b6c-9d1e-2f3a4b5c6d7e',
  event_type: 'certificate.expiring',
  severity: 'warning',
  title: 'api.example.com expires in 13 days',
  dedup_key: 'certificate.expiring:cert-1:2026-12-08T00:00:00.000Z:14',
  certificate_id: 'cert-1',
  recipients: ['alice@example.com'],
  details: { common_name: 'api.example.com', days_remaining: 13, note: '<b>not markup</b>' },
  occurred_at: '2026-11-24T00:00:00.000Z',
};

/**
 * A Mailbox that refuses some recipients at RCPT TO: `gone-*` for good (550), `busy-*` always
 * for now (450), `later-*` for now on the first try only (450, greylisting).
 */
const PICKY_HANDLER = `
from aiosmtpd.handlers import Mailbox

class Picky(Mailbox):
    seen = set()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.startswith('gone-'):
            return '550 5.1.1 <' + address + '>: user unknown'
        if address.startswith('busy-') or (address.startswith('later-') and address not in Picky.seen):
            Picky.seen.add(address)
            return '450 4.2.0 <' + address + '>: greylisted, try again later'
        envelope.rcpt_tos.append(address)
        return '250 OK'
`;

/** A real SMTP server (aiosmtpd) on loopback writing what it accepts to a maildir. */
async function smtpServer(
  extra: string[] = [],
  handler = 'aiosmtpd.handlers.Mailbox',
): Promise<{ port: number; maildir: string; child: ChildProcess }> {
  const port = await freePort();
  const maildir = mkdtempSync(join(tmpdir(), 'certlane-smtp-'));
  writeFileSync(join(maildir, 'picky.py'), PICKY_HANDLER);
  const child = spawn(
    '/usr/bin/python3',
    ['-m', 'aiosmtpd', '-n', '-l', `127.0.0.1:${port}`, ...extra, '-c', handler, join(maildir, 'box')],
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

const messages = (maildir: string): Buffer[] => {
  const dir = join(maildir, 'box', 'new');
  try {
    return readdirSync(dir).map((file) => readFileSync(join(dir, file)));
  } catch {
    return [];
  }
};

const http = new GuardedHttp({ allowed: networkList(['127.0.0.1']) });

describe('email notifier against a real SMTP server (aiosmtpd)', () => {
  let ca: TestCa;
  const tls = { certPath: '', keyPath: '', certPem: '' };
  const started: { child: ChildProcess; maildir: string }[] = [];

  beforeAll(() => {
    ca = createTestCa();
    const leaf = ca.issue('localhost');
    tls.certPath = join(ca.dir, 'smtp.crt');
    tls.keyPath = join(ca.dir, 'smtp.key');
    writeFileSync(tls.certPath, leaf.certificatePem);
    writeFileSync(tls.keyPath, leaf.privateKeyPem, { mode: 0o600 });
    tls.certPem = ca.caCertPem;
  });

  afterAll(() => {
    ca?.cleanup();
    for (const server of started) {
      server.child.kill();
      rmSync(server.maildir, { recursive: true, force: true });
    }
  });

  it('delivers over STARTTLS: headers, a text and an HTML part with the facts, escaped', async () => {
    const server = await smtpServer(['--tlscert', tls.certPath, '--tlskey', tls.keyPath]);
    started.push(server);
    const config = emailConnector.parse(
      {
        host: 'localhost',
        port: server.port,
        security: 'starttls',
        from: 'certlane@example.com',
        to: ['pki-team@example.com'],
        ca: tls.certPem,
      },
      {},
    );
    if ('invalid' in config) throw new Error(config.invalid);
    expect(await emailConnector.send(config, notification, http, new Date())).toEqual({ ok: true });
    await eventually(() => messages(server.maildir).length === 1, 'one message in the maildir', 10_000);
    const mail = await simpleParser(messages(server.maildir)[0]);
    expect(mail.subject).toBe('[Certlane warning] api.example.com expires in 13 days');
    expect(mail.from?.text).toBe('certlane@example.com');
    expect(mail.to?.text).toBe('pki-team@example.com, alice@example.com');
    expect(mail.messageId).toBe(`<${notification.id}@certlane>`);
    expect(mail.text).toContain('days_remaining: 13');
    expect(mail.text).toContain('Certificate: cert-1');
    expect(mail.html).toContain('<h2>api.example.com expires in 13 days</h2>');
    expect(mail.html).toContain('&lt;b&gt;not markup&lt;/b&gt;');
  }, 30_000);

  it('refuses to send in clear when STARTTLS is required and the server does not offer it', async () => {
    const server = await smtpServer();
    started.push(server);
    const config = emailConnector.parse(
      { host: '127.0.0.1', port: server.port, security: 'starttls', from: 'certlane@example.com' },
      {},
    );
    if ('invalid' in config) throw new Error(config.invalid);
    const result = await emailConnector.send(config, notification, http, new Date());
    expect(result.ok).toBe(false);
    expect(messages(server.maildir)).toHaveLength(0);
  }, 30_000);

  it('refuses a server certificate it does not trust', async () => {
    const server = await smtpServer(['--tlscert', tls.certPath, '--tlskey', tls.keyPath]);
    started.push(server);
    const config = emailConnector.parse(
      { host: 'localhost', port: server.port, security: 'starttls', from: 'certlane@example.com' },
      {},
    );
    if ('invalid' in config) throw new Error(config.invalid);
    expect((await emailConnector.send(config, notification, http, new Date())).ok).toBe(false);
    expect(messages(server.maildir)).toHaveLength(0);
  }, 30_000);

  it('does not dial a loopback relay that is not allow-listed', async () => {
    const config = emailConnector.parse({ host: '127.0.0.1', port: 2525, from: 'certlane@example.com' }, {});
    if ('invalid' in config) throw new Error(config.invalid);
    const strict = new GuardedHttp({ allowed: networkList([]) });
    await expect(emailConnector.send(config, notification, strict, new Date())).rejects.toThrow(
      /reserved address/,
    );
  });

  it('per recipient: a partly refused message is not delivered; the retry goes only to those without it', async () => {
    const server = await smtpServer([], 'picky.Picky');
    started.push(server);
    const config = emailConnector.parse(
      {
        host: '127.0.0.1',
        port: server.port,
        security: 'none',
        from: 'certlane@example.com',
        to: ['pki@example.com', 'gone-bob@example.com'],
      },
      {},
    );
    if ('invalid' in config) throw new Error(config.invalid);
    const partly = { ...notification, recipients: ['later-carol@example.com'] };
    const first = await emailConnector.send(config, partly, http, new Date());
    expect(first).toMatchObject({
      ok: false,
      recipients: { delivered: ['pki@example.com'], refused: ['gone-bob@example.com'] },
    });
    expect(first).not.toHaveProperty('final');
    if (first.ok) throw new Error('unreachable');
    expect(first.error).toMatch(/^SMTP refused 2 of 3 recipients: gone-bob@example\.com \(550/);
    expect(first.error).toContain('later-carol@example.com (450');
    await eventually(() => messages(server.maildir).length === 1, 'one message in the maildir', 10_000);

    // The next attempt remembers both: only carol is sent to, and since bob was refused for good
    // the notification is not delivered to everyone: a final failure.
    const second = await emailConnector.send(
      config,
      { ...partly, delivered_to: ['pki@example.com'], refused_to: ['gone-bob@example.com'] },
      http,
      new Date(),
    );
    expect(second).toMatchObject({
      ok: false,
      final: true,
      recipients: { delivered: ['later-carol@example.com'], refused: [] },
    });
    await eventually(() => messages(server.maildir).length === 2, 'a second message', 10_000);
    const envelopes = messages(server.maildir).map((m) =>
      /^X-RcptTo: (.*)$/m.exec(m.toString('utf8'))?.[1].trim(),
    );
    expect(envelopes.sort()).toEqual(['later-carol@example.com', 'pki@example.com']);
    // Every copy's header names all recipients, whichever attempt carried it.
    const mail = await simpleParser(messages(server.maildir)[0]);
    expect(mail.to?.text).toBe('pki@example.com, gone-bob@example.com, later-carol@example.com');
  }, 30_000);

  it('per recipient: all refused, a temporary refusal keeps it retried whatever the last reply was', async () => {
    const server = await smtpServer([], 'picky.Picky');
    started.push(server);
    const config = emailConnector.parse(
      { host: '127.0.0.1', port: server.port, security: 'none', from: 'certlane@example.com' },
      {},
    );
    if ('invalid' in config) throw new Error(config.invalid);
    const mixed = await emailConnector.send(
      config,
      { ...notification, recipients: ['busy-dan@example.com', 'gone-erin@example.com'] },
      http,
      new Date(),
    );
    expect(mixed).toMatchObject({
      ok: false,
      recipients: { delivered: [], refused: ['gone-erin@example.com'] },
    });
    expect(mixed).not.toHaveProperty('final');
    const permanent = await emailConnector.send(
      config,
      { ...notification, recipients: ['gone-erin@example.com'] },
      http,
      new Date(),
    );
    expect(permanent).toMatchObject({ ok: false, final: true });
    expect(messages(server.maildir)).toHaveLength(0);
  }, 30_000);

  it('refuses an unusable config', () => {
    expect(emailConnector.parse({ host: 'smtp.example.com', from: 'nobody' }, {})).toEqual({
      invalid: 'from must be an email address',
    });
    expect(
      emailConnector.parse({ host: 'smtp.example.com', from: 'a@example.com', security: 'ssl' }, {}),
    ).toEqual({
      invalid: 'security must be starttls, tls or none',
    });
    // RFC 4616 6: no login with the password in clear.
    expect(
      emailConnector.parse(
        { host: 'smtp.example.com', from: 'a@example.com', security: 'none', username: 'u' },
        { password: 'p' },
      ),
    ).toEqual({ invalid: 'security none sends the password in clear: use starttls or tls to log in' });
  });
});
