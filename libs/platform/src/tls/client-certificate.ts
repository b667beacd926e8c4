import { X509Certificate } from 'node:crypto';

export type ClientCertificateCheck =
  | { ok: true; leaf: X509Certificate; /** SHA-256 of the leaf's DER, lower-case hex. */ fingerprint: string }
  | { ok: false; reason: string };

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_EKU = '2.5.29.37.0';
const MAX_DEPTH = 6;

const validAt = (certificate: X509Certificate, now: Date): boolean =>
  new Date(certificate.validFrom) <= now && now <= new Date(certificate.validTo);
const issuedBy = (child: X509Certificate, issuer: X509Certificate): boolean =>
  // checkIssued: names, key identifiers and keyCertSign; verify: the signature itself.
  child.checkIssued(issuer) && child.verify(issuer.publicKey);
const hex = (certificate: X509Certificate): string =>
  certificate.fingerprint256.replace(/:/g, '').toLowerCase();

/**
 * Whether a presented client chain (leaf first, base64 DER, as `presentedTls` gives it) leads
 * to one of `anchors` (RFC 5280 path validation, reduced to what a client certificate needs):
 * every certificate parses and is valid at `now`; the leaf is no CA and, when it names extended
 * key usages, allows clientAuth; each step is signed by the next certificate, a CA from the
 * presented chain, up to an anchor. Revocation is the caller's business. Pure apart from the
 * signature checks; used by every mutual-TLS protocol path (EST, SCEP).
 */
export function verifyClientCertificate(
  presented: readonly string[],
  anchors: readonly X509Certificate[],
  now: Date,
): ClientCertificateCheck {
  if (presented.length === 0) return { ok: false, reason: 'no client certificate was presented' };
  let chain: X509Certificate[];
  try {
    chain = presented.map((der) => new X509Certificate(Buffer.from(der, 'base64')));
  } catch {
    return { ok: false, reason: 'a presented certificate does not parse' };
  }
  const [leaf, ...intermediates] = chain;
  if (!validAt(leaf, now)) return { ok: false, reason: 'the client certificate is expired or not yet valid' };
  if (leaf.ca) return { ok: false, reason: 'the client certificate is a CA certificate' };
  const ekus = leaf.keyUsage; // node names the extended key usages so
  if (ekus && ekus.length > 0 && !ekus.includes(CLIENT_AUTH) && !ekus.includes(ANY_EKU))
    return { ok: false, reason: 'the client certificate does not allow client authentication' };
  let current = leaf;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const anchor = anchors.find((candidate) => issuedBy(current, candidate));
    if (anchor) {
      if (!validAt(anchor, now)) return { ok: false, reason: 'the trust anchor is expired' };
      return { ok: true, leaf, fingerprint: hex(leaf) };
    }
    const next = intermediates.find(
      (candidate) => candidate.ca && validAt(candidate, now) && issuedBy(current, candidate),
    );
    if (!next) break;
    current = next;
  }
  return { ok: false, reason: 'the client certificate does not chain to a trusted CA' };
}
