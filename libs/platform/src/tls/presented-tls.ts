import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';

/**
 * What the client of one TLS connection presented, in a JSON-safe form a listener can hand to
 * its handler or forward over the bus (ADR 0061): the certificates it sent and the connection's
 * channel binding. Nothing here is verified: the protocol that uses it checks the chain against
 * its own trust anchors (`verifyClientCertificate`).
 */
export interface PresentedTls {
  /** The certificates the client sent, leaf first, each base64 DER; empty when it sent none. */
  client_certificates: string[];
  /** The connection's `tls-exporter` channel binding (RFC 9266), base64 of 32 bytes. */
  tls_exporter?: string;
}

/** RFC 9266 2: the exporter label of the tls-exporter channel binding; 32 bytes, empty context. */
export const TLS_EXPORTER_LABEL = 'EXPORTER-Channel-Binding';
export const TLS_EXPORTER_LENGTH = 32;
/** More than this many certificates is no client chain anyone needs (and a cheap bound). */
export const MAX_PRESENTED_CERTIFICATES = 8;

/**
 * What the client of a TLS 1.3 connection presented, per socket: it cannot change during the
 * connection (TLS 1.3 has no renegotiation), and reading the chain again on every request of a
 * kept-alive connection showed in the EST handler's CPU profile.
 */
const presentedBySocket = new WeakMap<object, PresentedTls>();

/** What the client of `socket` presented, or undefined when the socket is not TLS. */
export function presentedTls(socket: unknown): PresentedTls | undefined {
  const tls = socket as Partial<TLSSocket> | undefined;
  if (!tls || tls.encrypted !== true || typeof tls.getPeerCertificate !== 'function') return undefined;
  const kept = presentedBySocket.get(tls);
  if (kept) return { ...kept, client_certificates: [...kept.client_certificates] };
  const client_certificates: string[] = [];
  const seen = new Set<string>();
  // The listener requests without requiring (and without verifying): the chain is what was sent.
  let current: DetailedPeerCertificate | undefined = tls.getPeerCertificate(true);
  while (current?.raw && !seen.has(current.fingerprint256)) {
    if (client_certificates.length === MAX_PRESENTED_CERTIFICATES) break;
    seen.add(current.fingerprint256);
    client_certificates.push(current.raw.toString('base64'));
    current = current.issuerCertificate;
  }
  let tls_exporter: string | undefined;
  try {
    // TLS 1.3 (RFC 8446 7.5): an empty context is the same as none, which RFC 9266 asks for.
    tls_exporter = tls
      .exportKeyingMaterial?.(TLS_EXPORTER_LENGTH, TLS_EXPORTER_LABEL, Buffer.alloc(0))
      .toString('base64');
  } catch {
    // A connection torn down meanwhile has no keying material: no binding to offer.
  }
  const presented = { client_certificates, ...(tls_exporter ? { tls_exporter } : {}) };
  if (tls.getProtocol?.() === 'TLSv1.3')
    presentedBySocket.set(tls, { ...presented, client_certificates: [...client_certificates] });
  return presented;
}
