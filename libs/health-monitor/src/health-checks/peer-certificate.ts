import { DetailedPeerCertificate, PeerCertificate } from 'node:tls';
import { ServedCertificate } from '@certlane/contracts';

/** A served chain longer than this is cut: a probe records, it does not walk arbitrary input. */
const MAX_CHAIN = 10;

/** What a handshake's certificates say, or why they cannot be recorded. */
export type PeerDescription =
  | {
      ok: true;
      fingerprint: string;
      notBefore: Date;
      notAfter: Date;
      chain: ServedCertificate[];
      /** The served leaf as PEM (a certificate is public). */
      leafPem: string;
    }
  | { ok: false; error: string };

export const colonless = (fingerprint: string) => fingerprint.replace(/:/g, '').toLowerCase();

/**
 * A validity time as OpenSSL prints it; null when it cannot be read. OpenSSL prints "Bad time
 * value" for a time it cannot decode (month 13, say), and any server may present one.
 */
export function certificateTime(printed: string | undefined): Date | null {
  const time = new Date(printed ?? '');
  return Number.isNaN(time.getTime()) ? null : time;
}

const dn = (name: PeerCertificate['subject']) =>
  Object.entries(name ?? {})
    .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join('+') : value}`)
    .join(', ');

/** One certificate as recorded; null when its validity times cannot be read. */
export function servedCertificate(cert: PeerCertificate): ServedCertificate | null {
  const notBefore = certificateTime(cert.valid_from);
  const notAfter = certificateTime(cert.valid_to);
  if (!notBefore || !notAfter) return null;
  return {
    subject: dn(cert.subject),
    issuer: dn(cert.issuer),
    fingerprint_sha256: colonless(cert.fingerprint256),
    not_before: notBefore.toISOString(),
    not_after: notAfter.toISOString(),
  };
}

const pem = (der: Buffer) =>
  `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`;

/**
 * The served leaf and its chain (leaf first, at most MAX_CHAIN). A certificate whose validity
 * cannot be read makes the whole description a failure: no client could judge it either.
 */
export function describePeer(leaf: DetailedPeerCertificate | null): PeerDescription {
  if (!leaf?.raw) return { ok: false, error: 'the server presented no certificate' };
  const chain: ServedCertificate[] = [];
  let current: DetailedPeerCertificate | undefined = leaf;
  while (current && current.raw && chain.length < MAX_CHAIN) {
    const served = servedCertificate(current);
    if (!served) {
      return {
        ok: false,
        error: `the server presented a certificate whose validity time cannot be read (${dn(current.subject) || 'no subject'})`,
      };
    }
    chain.push(served);
    const next: DetailedPeerCertificate | undefined = current.issuerCertificate;
    if (!next || next === current || next.fingerprint256 === current.fingerprint256) break;
    current = next;
  }
  return {
    ok: true,
    fingerprint: chain[0].fingerprint_sha256,
    notBefore: new Date(chain[0].not_before),
    notAfter: new Date(chain[0].not_after),
    chain,
    leafPem: pem(leaf.raw),
  };
}
