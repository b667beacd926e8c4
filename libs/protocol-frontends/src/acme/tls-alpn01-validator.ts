import { connect } from 'node:tls';
import {
  ACME_IDENTIFIER_OID,
  AcmeIdentifier,
  AcmeProblem,
  checkTlsAlpn01Handshake,
  tlsAlpn01ServerName,
  ACME_TLS_ALPN_PROTOCOL,
} from '@certlane/protocol-frontends-domain';
import { parseCertificate, PkiError } from '@certlane/pki';
import { connectHost } from './http01-validator';

export interface TlsAlpn01Options {
  /** RFC 8737 3 says 443; tests use the client's port. */
  port: number;
  timeoutMs: number;
}

/** One TLS handshake offering only `acme-tls/1`, naming the identifier in SNI (RFC 8737 3). */
function handshake(
  identifier: AcmeIdentifier,
  options: TlsAlpn01Options,
): Promise<{ alpnProtocol: string | null; der: Buffer | null; remoteAddress?: string }> {
  const host = identifier.type === 'ip' ? identifier.value : connectHost(identifier.value);
  const where = `${identifier.value}:${options.port}`;
  return new Promise((resolve, reject) => {
    const socket = connect({
      host,
      port: options.port,
      servername: tlsAlpn01ServerName(identifier),
      ALPNProtocols: [ACME_TLS_ALPN_PROTOCOL],
      // The certificate is self-signed by design: it is judged by its content, not its chain.
      rejectUnauthorized: false,
      timeout: options.timeoutMs,
    });
    socket.once('secureConnect', () => {
      const peer = socket.getPeerCertificate();
      const der = peer && peer.raw ? Buffer.from(peer.raw) : null;
      const alpn = socket.alpnProtocol;
      const remoteAddress = socket.remoteAddress;
      socket.end();
      resolve({
        alpnProtocol: typeof alpn === 'string' ? alpn : null,
        der,
        ...(remoteAddress ? { remoteAddress } : {}),
      });
    });
    socket.once('timeout', () => {
      socket.destroy();
      reject(
        new AcmeProblem(
          'connection',
          `${where} did not complete a TLS handshake within ${options.timeoutMs} ms`,
        ),
      );
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      const tls = error.code?.startsWith('ERR_SSL') || /alert|handshake|protocol/i.test(error.message);
      reject(new AcmeProblem(tls ? 'tls' : 'connection', `${where}: ${error.message}`));
    });
  });
}

/** tls-alpn-01 (RFC 8737): the handshake's certificate must prove the key authorization. */
export async function validateTlsAlpn01(
  identifier: AcmeIdentifier,
  keyAuthorization: string,
  options: TlsAlpn01Options,
): Promise<({ ok: true } | { ok: false; problem: AcmeProblem }) & { remoteAddress?: string }> {
  // The address the handshake reached, recorded with the attempt (issue 19 point 10).
  let at: { remoteAddress?: string } = {};
  try {
    const shown = await handshake(identifier, options);
    if (shown.remoteAddress) at = { remoteAddress: shown.remoteAddress };
    if (!shown.der) throw new AcmeProblem('tls', 'the server showed no certificate');
    let certificate;
    try {
      certificate = parseCertificate(shown.der);
    } catch (error) {
      if (error instanceof PkiError)
        throw new AcmeProblem('tls', `the validation certificate does not parse: ${error.message}`);
      throw error;
    }
    const extension = certificate.extensions.find((e) => e.oid === ACME_IDENTIFIER_OID);
    checkTlsAlpn01Handshake(
      {
        alpnProtocol: shown.alpnProtocol,
        subjectAltNames: certificate.decoded.subjectAltNames ?? [],
        ...(extension ? { acmeIdentifier: { critical: extension.critical, value: extension.value } } : {}),
      },
      identifier,
      keyAuthorization,
    );
    return { ok: true, ...at };
  } catch (error) {
    if (error instanceof AcmeProblem) return { ok: false, problem: error, ...at };
    throw error;
  }
}
