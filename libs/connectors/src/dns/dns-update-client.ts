import { connect } from 'node:net';
import { TsigKey, TxtUpdate, updateAnswerCode, updateMessage } from './dns-update';

export interface DnsUpdateServer {
  host: string;
  port: number;
}

/** Why an update did not apply: the server's response code, or the transport's failure. */
export class DnsUpdateError extends Error {
  constructor(
    message: string,
    /** The response code name (NOTAUTH, REFUSED...), or null when no answer came. */
    readonly rcode: string | null,
  ) {
    super(message);
    this.name = 'DnsUpdateError';
  }
}

/**
 * Sends one RFC 2136 UPDATE of `zone` over TCP (RFC 1035 4.2.2's length prefix: no truncation, no
 * spoofed UDP answer) and resolves once the server answered NOERROR. The answer's TSIG is not
 * checked: a forged success would only make the CA's validation fail.
 */
export function sendDnsUpdate(
  server: DnsUpdateServer,
  zone: string,
  updates: readonly TxtUpdate[],
  key?: TsigKey,
  options: { timeoutMs?: number; now?: Date } = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const message = updateMessage(zone, updates, key, { now: options.now });
  const id = message.readUInt16BE(0);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: server.host, port: server.port });
    const fail = (error: DnsUpdateError) => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(timeoutMs, () =>
      fail(new DnsUpdateError(`no answer from ${server.host}:${server.port} within ${timeoutMs} ms`, null)),
    );
    socket.on('error', (error) =>
      fail(new DnsUpdateError(`${server.host}:${server.port}: ${error.message}`, null)),
    );
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 2 || received.length < 2 + received.readUInt16BE(0)) return;
      let code: string;
      try {
        code = updateAnswerCode(received.subarray(2, 2 + received.readUInt16BE(0)), id);
      } catch (error) {
        fail(new DnsUpdateError((error as Error).message, null));
        return;
      }
      socket.end();
      if (code === 'NOERROR') resolve();
      else reject(new DnsUpdateError(`the DNS server refused the update of ${zone}: ${code}`, code));
    });
    socket.on('connect', () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(message.length);
      socket.write(Buffer.concat([length, message]));
    });
  });
}
