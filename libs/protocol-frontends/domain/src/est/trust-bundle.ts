import { X509Certificate } from 'node:crypto';

export type TrustBundle = { ok: true; anchors: X509Certificate[] } | { ok: false; reason: string };

const BLOCK = /-----BEGIN CERTIFICATE-----\r?\n([A-Za-z0-9+/=\r\n]+?)-----END CERTIFICATE-----/g;

/**
 * The CA certificates of a PEM trust bundle (RFC 7030 3.3.2: the client certificate is checked
 * against them). Anything else in the text, no certificate at all, a certificate that does not
 * parse or one that is not a CA makes the whole bundle unusable: a bad file never half-replaces trust.
 */
export function parseTrustBundle(pem: string): TrustBundle {
  const outside = pem.replace(BLOCK, '').trim();
  if (outside.length > 0) return { ok: false, reason: 'the bundle holds text outside CERTIFICATE blocks' };
  const anchors: X509Certificate[] = [];
  for (const match of pem.matchAll(BLOCK)) {
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(Buffer.from(match[1].replace(/\s+/g, ''), 'base64'));
    } catch {
      return { ok: false, reason: `certificate ${anchors.length + 1} does not parse` };
    }
    if (!certificate.ca)
      return { ok: false, reason: `certificate ${anchors.length + 1} is not a CA certificate` };
    anchors.push(certificate);
  }
  if (anchors.length === 0) return { ok: false, reason: 'the bundle holds no certificate' };
  return { ok: true, anchors };
}
