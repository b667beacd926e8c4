import { createHash } from 'node:crypto';
import { AcmeIdentifier, AcmeProblem } from '../problems/acme-problem';

/** RFC 8737 6.2: the ALPN protocol of the validation handshake. */
export const ACME_TLS_ALPN_PROTOCOL = 'acme-tls/1';
/** RFC 8737 6.1: id-pe-acmeIdentifier. */
export const ACME_IDENTIFIER_OID = '1.3.6.1.5.5.7.1.31';

/** RFC 8738 6: an IP identifier is named in SNI by its reverse-DNS name. */
export function tlsAlpn01ServerName(identifier: AcmeIdentifier): string {
  if (identifier.type === 'dns') return identifier.value;
  if (identifier.value.includes(':')) {
    const groups = identifier.value.split('::');
    const head = groups[0] ? groups[0].split(':') : [];
    const tail = groups.length > 1 && groups[1] ? groups[1].split(':') : [];
    const full = [...head, ...Array(8 - head.length - tail.length).fill('0'), ...tail];
    const nibbles = full.map((g) => g.padStart(4, '0')).join('');
    return `${[...nibbles].reverse().join('.')}.ip6.arpa`;
  }
  return `${identifier.value.split('.').reverse().join('.')}.in-addr.arpa`;
}

/** What the validation handshake showed: the negotiated protocol and the certificate's parts. */
export interface TlsAlpn01Handshake {
  alpnProtocol: string | null;
  subjectAltNames: { type: string; value: string }[];
  acmeIdentifier?: { critical: boolean; value: Buffer };
}

/**
 * RFC 8737 3: the certificate of the `acme-tls/1` handshake MUST carry exactly one SAN, the
 * identifier, and a critical acmeIdentifier extension whose value is the DER OCTET STRING of the
 * SHA-256 digest of the key authorization. A wrong certificate is `unauthorized`; a handshake
 * that did not negotiate `acme-tls/1` is `tls`.
 */
export function checkTlsAlpn01Handshake(
  handshake: TlsAlpn01Handshake,
  identifier: AcmeIdentifier,
  keyAuthorization: string,
): void {
  if (handshake.alpnProtocol !== ACME_TLS_ALPN_PROTOCOL)
    throw new AcmeProblem('tls', `the server did not negotiate ${ACME_TLS_ALPN_PROTOCOL}`);
  const sans = handshake.subjectAltNames;
  if (
    sans.length !== 1 ||
    sans[0].type !== identifier.type ||
    sans[0].value.toLowerCase() !== identifier.value
  )
    throw new AcmeProblem(
      'unauthorized',
      `the validation certificate must carry exactly one subjectAltName, ${identifier.value}`,
    );
  const extension = handshake.acmeIdentifier;
  if (!extension) throw new AcmeProblem('unauthorized', 'the validation certificate has no acmeIdentifier');
  if (!extension.critical)
    throw new AcmeProblem('unauthorized', 'the acmeIdentifier extension must be critical');
  const digest = createHash('sha256').update(keyAuthorization).digest();
  const expected = Buffer.concat([Buffer.from([0x04, 0x20]), digest]);
  if (!extension.value.equals(expected))
    throw new AcmeProblem('unauthorized', 'the acmeIdentifier does not match the key authorization');
}
