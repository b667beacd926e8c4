// A lean HTTP/1.1 keep-alive client over verified TLS 1.3 sockets, for load generators that share
// the cores with the system they measure: node:https builds a ClientRequest, an IncomingMessage and
// their streams for every request; this writes the request bytes and reads status, headers and a
// Content-Length body from the socket. One request at a time per socket (no pipelining); sockets
// are reused round-robin (FIFO), up to `connections`; requests wait in order when all are busy.
// Every socket must be authorized against `ca` (chain and host name) and speak TLS 1.3, or it is
// destroyed and its requests fail.
import { connect } from 'node:tls';

const HEADER_END = Buffer.from('\r\n\r\n');

export function leanHttpsPool({ origin, ca, connections, timeoutMs = 10_000, cert, key }) {
  const url = new URL(origin);
  const host = url.hostname;
  const port = Number(url.port || 443);
  const hostHeader = url.host;
  const idle = [];
  const waiting = [];
  const tls = { verified: 0, failures: [] };
  let open = 0;

  const openSocket = () => {
    open++;
    // `cert`/`key`: a client certificate for mutual TLS (presented when the server asks).
    const socket = connect({ host, port, ca, cert, key, minVersion: 'TLSv1.3', rejectUnauthorized: true });
    socket.setNoDelay(true);
    socket.once('secureConnect', () => {
      if (socket.authorized && socket.getProtocol() === 'TLSv1.3') tls.verified++;
      else {
        tls.failures.push(String(socket.authorizationError ?? socket.getProtocol()));
        socket.destroy(new Error('TLS verification failed'));
      }
    });
    socket.once('close', () => {
      open--;
      const at = idle.indexOf(socket);
      if (at >= 0) idle.splice(at, 1);
      socket.current?.fail(new Error('socket closed'));
      pump();
    });
    socket.on('error', () => {}); // surfaces through 'close'
    socket.on('data', (chunk) => socket.current?.data(chunk));
    return socket;
  };

  const pump = () => {
    while (waiting.length > 0) {
      let socket = idle.shift();
      if (!socket) {
        if (open >= connections) return;
        socket = openSocket();
      }
      start(socket, waiting.shift());
    }
  };

  const release = (socket, keepAlive) => {
    socket.current = undefined;
    if (keepAlive && !socket.destroyed) idle.push(socket);
    else socket.destroy();
    pump();
  };

  function start(socket, job) {
    let buffer = Buffer.alloc(0);
    let head;
    const timer = setTimeout(() => socket.destroy(new Error(`timeout after ${timeoutMs} ms`)), timeoutMs);
    const finish = (error, result) => {
      clearTimeout(timer);
      if (error) job.reject(error);
      else job.resolve(result);
    };
    socket.current = {
      fail: (error) => {
        socket.current = undefined;
        finish(error);
      },
      data: (chunk) => {
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
        if (!head) {
          const end = buffer.indexOf(HEADER_END);
          if (end < 0) return;
          head = parseHead(buffer.subarray(0, end).toString('latin1'));
          buffer = buffer.subarray(end + 4);
          if (head.error) {
            socket.current = undefined;
            finish(new Error(head.error));
            socket.destroy();
            return;
          }
        }
        if (buffer.length < head.length) return;
        const body = buffer.subarray(0, head.length).toString('utf8');
        release(socket, head.keepAlive);
        finish(undefined, { status: head.status, body });
      },
    };
    socket.write(job.bytes);
  }

  return {
    tls,
    request({ method, path, headers = {}, body }) {
      const payload = body === undefined ? '' : body;
      let text = `${method} ${path} HTTP/1.1\r\nHost: ${hostHeader}\r\n`;
      for (const [name, value] of Object.entries(headers)) text += `${name}: ${value}\r\n`;
      if (body !== undefined) text += `Content-Length: ${Buffer.byteLength(payload)}\r\n`;
      text += `\r\n${payload}`;
      return new Promise((resolve, reject) => {
        waiting.push({ bytes: text, resolve, reject });
        pump();
      });
    },
    close() {
      for (const socket of idle.splice(0)) socket.destroy();
    },
  };
}

/** Status, Content-Length and keep-alive of a response head; `error` for what this client does not read. */
function parseHead(text) {
  const lines = text.split('\r\n');
  const status = Number(lines[0].split(' ')[1]);
  let length;
  let keepAlive = true;
  for (let i = 1; i < lines.length; i++) {
    const colon = lines[i].indexOf(':');
    const name = lines[i].slice(0, colon).trim().toLowerCase();
    const value = lines[i].slice(colon + 1).trim();
    if (name === 'content-length') length = Number(value);
    else if (name === 'connection' && value.toLowerCase() === 'close') keepAlive = false;
    else if (name === 'transfer-encoding') return { error: `unsupported transfer-encoding ${value}` };
  }
  if (!Number.isInteger(status)) return { error: `bad status line ${lines[0]}` };
  if (length === undefined || !Number.isInteger(length)) return { error: 'response without Content-Length' };
  return { status, length, keepAlive };
}
