import { X509Certificate } from 'node:crypto';

export type CertificateBundle = { ok: true; certificates: X509Certificate[] } | { ok: false; reason: string };

const BLOCK = /-----BEGIN CERTIFICATE-----\r?\n([A-Za-z0-9+/=\r\n]+?)-----END CERTIFICATE-----/g;

/**
 * The certificates of a PEM file (MDM signing certificates need not be CAs). Anything else in
 * the text, no certificate, or one that does not parse makes the whole file unusable: a bad file
 * never half-replaces trust.
 */
export function parseCertificateBundle(pem: string): CertificateBundle {
  const outside = pem.replace(BLOCK, '').trim();
  if (outside.length > 0) return { ok: false, reason: 'the file holds text outside CERTIFICATE blocks' };
  const certificates: X509Certificate[] = [];
  for (const match of pem.matchAll(BLOCK)) {
    try {
      certificates.push(new X509Certificate(Buffer.from(match[1].replace(/\s+/g, ''), 'base64')));
    } catch {
      return { ok: false, reason: `certificate ${certificates.length + 1} does not parse` };
    }
  }
  if (certificates.length === 0) return { ok: false, reason: 'the file holds no certificate' };
  return { ok: true, certificates };
}
