// The baseline of bench/ocsp: a bare node:https server (TLS 1.3 only, the bench's certificate)
// answering every request with one fixed buffer, an OCSP response of the size the revocation
// service sends. A POST body is read to the end first, as the real responder must.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

const body = readFileSync(process.env.BARE_BODY_FILE);
const headers = { 'content-type': 'application/ocsp-response', 'content-length': String(body.length) };
const server = createServer(
  {
    cert: readFileSync(process.env.BARE_CERT_PATH),
    key: readFileSync(process.env.BARE_KEY_PATH),
    minVersion: 'TLSv1.3',
  },
  (request, response) => {
    const send = () => {
      response.writeHead(200, headers);
      response.end(body);
    };
    if (request.method === 'GET' || request.method === 'HEAD') return send();
    request.on('data', () => undefined);
    request.on('end', send);
  },
);
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.BARE_PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
