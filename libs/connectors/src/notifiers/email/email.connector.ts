import { createTransport } from 'nodemailer';
import { NotifierConnector, OutboundNotification, SendResult } from '../notifier-connector';
import { OutboundHttp } from '../outbound/outbound-http';

/** One delivery's whole SMTP exchange, connect to the last reply. */
const SMTP_DEADLINE_MS = 60_000;

export const SMTP_SECURITY = ['starttls', 'tls', 'none'] as const;
export type SmtpSecurity = (typeof SMTP_SECURITY)[number];

/**
 * Settings: `host`, `port` (default 587 for starttls, 465 for tls), `security` (`starttls`
 * required by default, `tls` implicit, `none` only for a relay on a trusted network), `from`,
 * `to` (addresses always sent to, besides the owner's and team's; not for a digest, which goes
 * to its owner's or team's contacts only), `username`, `ca` (PEM roots
 * for a private relay). Secrets: `password`.
 */
export interface EmailConfig {
  host: string;
  port: number;
  security: SmtpSecurity;
  from: string;
  to: string[];
  username?: string;
  password?: string;
  ca?: string;
}

const ADDRESS = /^[^\s@<>]+@[^\s@<>]+$/;
const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** The message: subject, a text part and an HTML part with the same facts. */
export function emailContent(notification: OutboundNotification): {
  subject: string;
  text: string;
  html: string;
} {
  const facts = Object.entries(notification.details).filter(([, value]) => value !== null && value !== '');
  const subject = `[Certlane ${notification.severity}] ${notification.title}`.replace(/[\r\n]+/g, ' ');
  const text = [
    notification.title,
    '',
    `Event: ${notification.event_type} (${notification.severity})`,
    ...(notification.certificate_id ? [`Certificate: ${notification.certificate_id}`] : []),
    ...facts.map(([key, value]) => `${key}: ${value}`),
    '',
    `Notification ${notification.id}`,
  ].join('\n');
  const rows = facts
    .map(
      ([key, value]) =>
        `<tr><th align="left">${escapeHtml(key)}</th><td>${escapeHtml(String(value))}</td></tr>`,
    )
    .join('');
  const html =
    `<!doctype html><html><body><h2>${escapeHtml(notification.title)}</h2>` +
    `<p>${escapeHtml(notification.event_type)} (${escapeHtml(notification.severity)})` +
    (notification.certificate_id
      ? `, certificate <code>${escapeHtml(notification.certificate_id)}</code>`
      : '') +
    `</p><table>${rows}</table><p><small>Notification ${escapeHtml(notification.id)}</small></p></body></html>`;
  return { subject, text, html };
}

/** What nodemailer reports per recipient (accepted ones; RCPT TO refusals with their replies). */
interface SmtpEnvelopeInfo {
  accepted?: unknown[];
  rejectedErrors?: { recipient?: string; responseCode?: number; response?: string; message?: string }[];
}

/** Addresses once each, compared and kept lowercased. */
function uniqueAddresses(list: readonly string[]): string[] {
  return [...new Set(list.map((a) => a.toLowerCase()))];
}

/**
 * One attempt's result per recipient (ADR 0056, "one message, several recipients"): delivered
 * when every recipient has the message; a retried failure while some server refusal was
 * temporary (4yz), sent next time only to those still without it; a final failure once the
 * only ones left were refused for good (5yz), now or in an earlier attempt.
 */
function recipientOutcome(
  accepted: string[],
  rejected: NonNullable<SmtpEnvelopeInfo['rejectedErrors']>,
  refusedBefore: readonly string[],
): SendResult {
  const refusals = rejected.map((r) => ({
    address: String(r.recipient ?? '').toLowerCase(),
    code: r.responseCode,
    reply: (r.response ?? r.message ?? '').replace(/\s+/g, ' ').slice(0, 120),
  }));
  const refused = refusals.filter((r) => r.code !== undefined && r.code >= 500).map((r) => r.address);
  const temporary = refusals.filter((r) => !(r.code !== undefined && r.code >= 500));
  const recipients = { delivered: accepted, refused };
  if (refusals.length === 0 && refusedBefore.length === 0) return { ok: true };
  const described = [
    ...refusals.map((r) => `${r.address} (${r.reply || `SMTP ${r.code ?? 'error'}`})`),
    ...refusedBefore.map((a) => `${a} (refused earlier)`),
  ];
  const total = accepted.length + refusals.length + refusedBefore.length;
  return {
    ok: false,
    error: `SMTP refused ${described.length} of ${total} recipients: ${described.join(', ')}`.slice(0, 1000),
    ...(temporary.length === 0 ? { final: true } : {}),
    recipients,
  };
}

function addresses(value: unknown): string[] | undefined {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((a) => typeof a === 'string' && ADDRESS.test(a)))
    return undefined;
  return value as string[];
}

/** Email over SMTP (nodemailer): STARTTLS or implicit TLS, optional auth, HTML and text parts. */
export const emailConnector: NotifierConnector<EmailConfig> = {
  kind: 'email',
  settingKeys: ['host', 'port', 'security', 'from', 'to', 'username', 'ca'],
  secretDestinations: ['host', 'port', 'security'],
  parse(settings, secrets) {
    const { host, from, username, ca } = settings;
    if (typeof host !== 'string' || !/^[A-Za-z0-9.:[\]-]{1,253}$/.test(host))
      return { invalid: 'host must be a host name or address' };
    const security = settings.security ?? 'starttls';
    if (!SMTP_SECURITY.includes(security as SmtpSecurity))
      return { invalid: 'security must be starttls, tls or none' };
    const port = settings.port ?? (security === 'tls' ? 465 : 587);
    if (!Number.isInteger(port) || (port as number) < 1 || (port as number) > 65535)
      return { invalid: 'port must be 1..65535' };
    if (typeof from !== 'string' || !ADDRESS.test(from)) return { invalid: 'from must be an email address' };
    const to = addresses(settings.to);
    if (!to) return { invalid: 'to must be a list of email addresses' };
    if (username !== undefined && typeof username !== 'string') return { invalid: 'username must be text' };
    // RFC 4616 6: PLAIN and LOGIN carry the password as it is; without TLS anyone on the path reads it.
    if (username !== undefined && security === 'none')
      return { invalid: 'security none sends the password in clear: use starttls or tls to log in' };
    if (ca !== undefined && typeof ca !== 'string') return { invalid: 'ca must be PEM text' };
    const password = secrets.password;
    if (password !== undefined && typeof password !== 'string') return { invalid: 'password must be text' };
    return {
      host,
      port: port as number,
      security: security as SmtpSecurity,
      from,
      to,
      username,
      password,
      ca,
    };
  },
  async send(
    config: EmailConfig,
    notification: OutboundNotification,
    http: OutboundHttp,
  ): Promise<SendResult> {
    const all = uniqueAddresses(
      notification.body ? notification.recipients : [...config.to, ...notification.recipients],
    );
    if (all.length === 0)
      return { ok: false, error: 'no recipients: the notifier lists none and the event has no contacts' };
    // Earlier attempts' accepted and refused recipients are not sent to again (no duplicates for
    // those who have it, no repeat of a 5yz, RFC 5321 4.2.1).
    const delivered = new Set((notification.delivered_to ?? []).map((a) => a.toLowerCase()));
    const refusedBefore = (notification.refused_to ?? []).map((a) => a.toLowerCase());
    const to = all.filter((a) => !delivered.has(a) && !refusedBefore.includes(a));
    if (to.length === 0) return recipientOutcome([], [], refusedBefore);
    // Dial the checked address; TLS still verifies the certificate for the host name.
    const address = await http.checkedAddress(config.host);
    const transport = createTransport({
      host: address,
      port: config.port,
      secure: config.security === 'tls',
      requireTLS: config.security === 'starttls',
      ignoreTLS: config.security === 'none',
      auth: config.username ? { user: config.username, pass: config.password ?? '' } : undefined,
      tls: { servername: config.host, minVersion: 'TLSv1.2', ...(config.ca ? { ca: config.ca } : {}) },
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
    // The timeouts above are idle timers; a server that trickles bytes is cut off here.
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () =>
          reject(new Error(`no complete exchange with ${config.host} within ${SMTP_DEADLINE_MS / 1000} s`)),
        SMTP_DEADLINE_MS,
      );
    });
    try {
      const info = (await Promise.race([
        transport.sendMail({
          from: config.from,
          // The header names every recipient; the envelope only those still without it.
          to: all,
          envelope: { from: config.from, to },
          messageId: `<${notification.id}@certlane>`,
          ...(notification.body ?? emailContent(notification)),
        }),
        deadline,
      ])) as SmtpEnvelopeInfo;
      return recipientOutcome(
        (info.accepted ?? to).map((a) => String(a).toLowerCase()),
        info.rejectedErrors ?? [],
        refusedBefore,
      );
    } catch (error) {
      const smtp = error as { responseCode?: number; message?: string } & SmtpEnvelopeInfo;
      // Every recipient refused at RCPT TO: nodemailer fails with each recipient's reply.
      if (smtp.rejectedErrors?.length) return recipientOutcome([], smtp.rejectedErrors, refusedBefore);
      return {
        ok: false,
        error: `SMTP ${smtp.responseCode ?? 'error'}: ${smtp.message ?? String(error)}`.slice(0, 500),
        // RFC 5321 4.2.1: after a 5yz reply "the SMTP client SHOULD NOT repeat the exact request".
        ...(smtp.responseCode !== undefined && smtp.responseCode >= 500 ? { final: true } : {}),
      };
    } finally {
      clearTimeout(timer);
      transport.close();
    }
  },
};
