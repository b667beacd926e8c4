import type { Socket } from 'node:net';

/** The plain-text protocols whose STARTTLS the deployment verifier and the health monitor speak. */
export const STARTTLS_PROTOCOLS = ['smtp', 'imap'] as const;
export type StartTlsProtocol = (typeof STARTTLS_PROTOCOLS)[number];

/**
 * Upgrades a connected plain socket: the protocol's greeting and STARTTLS exchange, after which
 * the caller starts the TLS handshake on the same socket. Throws with what the server did wrong.
 */
export function startTls(socket: Socket, protocol: StartTlsProtocol): Promise<void> {
  return protocol === 'smtp' ? smtpStartTls(socket) : imapStartTls(socket);
}

/** Reads lines until `done` accepts one; returns all lines read. */
function readUntil(socket: Socket, done: (line: string) => boolean): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const lines: string[] = [];
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      let index: number;
      while ((index = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, index).replace(/\r$/, '');
        buffer = buffer.slice(index + 1);
        lines.push(line);
        if (done(line)) {
          cleanup();
          resolve(lines);
          return;
        }
      }
      if (buffer.length > 64 * 1024) fail(new Error('protocol line too long'));
    };
    const fail = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onEnd = () => fail(new Error('connection closed during STARTTLS'));
    const cleanup = () => {
      socket.off('data', onData);
      socket.off('error', fail);
      socket.off('end', onEnd);
    };
    socket.on('data', onData);
    socket.once('error', fail);
    socket.once('end', onEnd);
  });
}

/** SMTP (RFC 3207): greeting 220, EHLO, STARTTLS -> 220, then the TLS handshake. */
async function smtpStartTls(socket: Socket): Promise<void> {
  // A reply's last line, or a line that is no SMTP reply at all (another protocol's greeting).
  const finalReply = (line: string) => /^\d{3}(?: |$)/.test(line) || !/^\d{3}-/.test(line);
  const greeting = await readUntil(socket, finalReply);
  if (!greeting.at(-1)?.startsWith('220')) throw new Error('SMTP greeting was not 220');
  socket.write('EHLO certlane-verify\r\n');
  const ehlo = await readUntil(socket, finalReply);
  if (!ehlo.at(-1)?.startsWith('250')) throw new Error('SMTP EHLO was refused');
  if (!ehlo.some((line) => /^250[- ]STARTTLS/i.test(line)))
    throw new Error('SMTP server does not offer STARTTLS');
  socket.write('STARTTLS\r\n');
  const reply = await readUntil(socket, finalReply);
  if (!reply.at(-1)?.startsWith('220')) throw new Error('SMTP STARTTLS was refused');
}

/** IMAP (RFC 3501 6.2.1): untagged OK greeting, `a1 STARTTLS` -> `a1 OK`, then TLS. */
async function imapStartTls(socket: Socket): Promise<void> {
  // The greeting is the first line; anything but an untagged OK is another protocol or a refusal.
  const greeting = await readUntil(socket, () => true);
  if (!/^\* (OK|PREAUTH)/i.test(greeting.at(-1) ?? '')) throw new Error('IMAP greeting was not OK');
  socket.write('a1 STARTTLS\r\n');
  const reply = await readUntil(socket, (line) => line.startsWith('a1 '));
  if (!/^a1 OK/i.test(reply.at(-1) ?? '')) throw new Error('IMAP STARTTLS was refused');
}
