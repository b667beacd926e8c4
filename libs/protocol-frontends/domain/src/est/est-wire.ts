export type Decoded = { ok: true; der: Buffer } | { ok: false; reason: string };

const PEM_CSR =
  /^-----BEGIN (?:NEW )?CERTIFICATE REQUEST-----([A-Za-z0-9+/=\s]*)-----END (?:NEW )?CERTIFICATE REQUEST-----$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The DER of a PKCS#10 request as EST clients send it (RFC 7030 4.2.1, RFC 8951 3): base64 of the
 * DER, or PEM, told apart by the body and not the content type; CRLF, line breaks and trailing
 * whitespace are tolerated, anything else that is not base64 is refused. The result starts as a
 * DER SEQUENCE; whether it is a valid request is the CSR parser's job.
 */
export function decodeCsrBody(body: string): Decoded {
  const text = body.trim();
  const pem = PEM_CSR.exec(text);
  const base64 = (pem ? pem[1] : text).replace(/[\r\n\t ]+/g, '');
  if (base64.length === 0) return { ok: false, reason: 'the body is empty' };
  if (!BASE64.test(base64)) return { ok: false, reason: 'the body is not base64 (RFC 7030 4.2.1)' };
  const der = Buffer.from(base64, 'base64');
  if (der[0] !== 0x30) return { ok: false, reason: 'the body is not a DER PKCS#10 request' };
  return { ok: true, der };
}

/** A DER answer as an EST body: base64 in lines of 64 characters, CRLF-terminated (RFC 2045 6.8). */
export function base64Body(der: Uint8Array): string {
  const text = Buffer.from(der).toString('base64');
  return (text.match(/.{1,64}/g) ?? []).join('\r\n') + '\r\n';
}

/** HTTP Basic credentials (RFC 7617) from an Authorization header, or null when absent or malformed. */
export function parseBasicAuthorization(
  header: string | undefined,
): { username: string; password: string } | null {
  const match = /^Basic[ ]+([A-Za-z0-9+/]+=*)\s*$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The challenge of a 401 (RFC 7030 3.2.3 via RFC 7617 2): `Basic realm="..."`, quotes escaped. */
export function basicChallenge(realm: string): string {
  return `Basic realm="${realm.replace(/[\\"]/g, (c) => `\\${c}`)}", charset="UTF-8"`;
}

/**
 * A certs-only CMS SignedData (RFC 7030 4.1.3 and 4.2.3, RFC 5652 5): no signer, encapsulated
 * content type id-data without content, the certificates in the given order.
 */
export function certsOnly(certificates: readonly Uint8Array[]): Buffer {
  const signedData = derTlv(
    0x30,
    Buffer.concat([
      Buffer.from([0x02, 0x01, 0x01]), // version 1
      Buffer.from([0x31, 0x00]), // digestAlgorithms: none
      derTlv(0x30, derTlv(0x06, encodeOid(ID_DATA))), // encapContentInfo: id-data, no content
      derTlv(0xa0, Buffer.concat(certificates.map((der) => Buffer.from(der)))), // [0] IMPLICIT certificates
      Buffer.from([0x31, 0x00]), // signerInfos: none
    ]),
  );
  return derTlv(0x30, Buffer.concat([derTlv(0x06, encodeOid(ID_SIGNED_DATA)), derTlv(0xa0, signedData)]));
}

const ID_DATA = '1.2.840.113549.1.7.1';
const ID_SIGNED_DATA = '1.2.840.113549.1.7.2';

/**
 * The attribute names a certificate profile may require (spec 2.9: the canonical DN short names
 * issuance stores, their long spellings, PKCS#9 attributes, EKU names), and their OIDs (csrattrs,
 * RFC 7030 4.5.2).
 */
export const CSR_ATTRIBUTE_OIDS: Readonly<Record<string, string>> = {
  CN: '2.5.4.3',
  commonName: '2.5.4.3',
  SN: '2.5.4.4',
  surname: '2.5.4.4',
  serialNumber: '2.5.4.5',
  C: '2.5.4.6',
  countryName: '2.5.4.6',
  L: '2.5.4.7',
  localityName: '2.5.4.7',
  ST: '2.5.4.8',
  stateOrProvinceName: '2.5.4.8',
  STREET: '2.5.4.9',
  O: '2.5.4.10',
  organizationName: '2.5.4.10',
  OU: '2.5.4.11',
  organizationalUnitName: '2.5.4.11',
  title: '2.5.4.12',
  postalCode: '2.5.4.17',
  GN: '2.5.4.42',
  dnQualifier: '2.5.4.46',
  organizationIdentifier: '2.5.4.97',
  emailAddress: '1.2.840.113549.1.9.1',
  DC: '0.9.2342.19200300.100.1.25',
  UID: '0.9.2342.19200300.100.1.1',
  challengePassword: '1.2.840.113549.1.9.7',
  unstructuredName: '1.2.840.113549.1.9.2',
  extensionRequest: '1.2.840.113549.1.9.14',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
  codeSigning: '1.3.6.1.5.5.7.3.3',
  emailProtection: '1.3.6.1.5.5.7.3.4',
  timeStamping: '1.3.6.1.5.5.7.3.8',
  OCSPSigning: '1.3.6.1.5.5.7.3.9',
};

/** The key types of key algorithm names (`ECDSA-P384`, `RSA-2048`, `Ed25519`) as CsrAttrs name them. */
const EC_PUBLIC_KEY = '1.2.840.10045.2.1';
const CURVE_OIDS: Record<string, string> = {
  'ECDSA-P256': '1.2.840.10045.3.1.7',
  'ECDSA-P384': '1.3.132.0.34',
  'ECDSA-P521': '1.3.132.0.35',
};
const RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
const ED25519 = '1.3.101.112';

/**
 * CsrAttrs (RFC 7030 4.5.2): a SEQUENCE OF the OIDs of the profile's required attributes, in
 * order, each once (names this server does not know are dropped: the client cannot act on them);
 * the challengePassword OID when the profile requires channel binding ("MUST include the
 * challengePassword OID" when identity and proof of possession must be linked, 3.5); and, when the
 * certificate profile allows only some key algorithms, the key types it takes ("MUST provide that
 * information"): an Attribute of id-ecPublicKey with the allowed curves, as 4.5.2's example, and
 * the rsaEncryption or id-Ed25519 OID.
 */
export function csrAttrs(
  required: readonly string[],
  demands: { channelBinding?: boolean; keyAlgorithms?: readonly string[] } = {},
): Buffer {
  const names = [...required, ...(demands.channelBinding ? ['challengePassword'] : [])];
  const oids = [...new Set(names.map((name) => CSR_ATTRIBUTE_OIDS[name]).filter(Boolean))];
  const items = oids.map((oid) => derTlv(0x06, encodeOid(oid)));
  const algorithms = demands.keyAlgorithms ?? [];
  const curves = [...new Set(algorithms.map((a) => CURVE_OIDS[a]).filter(Boolean))];
  if (curves.length)
    items.push(
      derTlv(
        0x30,
        Buffer.concat([
          derTlv(0x06, encodeOid(EC_PUBLIC_KEY)),
          derTlv(0x31, Buffer.concat(curves.map((curve) => derTlv(0x06, encodeOid(curve))))),
        ]),
      ),
    );
  if (algorithms.some((a) => a.startsWith('RSA-'))) items.push(derTlv(0x06, encodeOid(RSA_ENCRYPTION)));
  if (algorithms.includes('Ed25519')) items.push(derTlv(0x06, encodeOid(ED25519)));
  return derTlv(0x30, Buffer.concat(items));
}

function encodeOid(oid: string): Buffer {
  const [first, second, ...rest] = oid.split('.').map(Number);
  const bytes: number[] = [];
  for (const arc of [first * 40 + second, ...rest]) {
    const chunk = [arc & 0x7f];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128))
      chunk.unshift((value & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return Buffer.from(bytes);
}

function derTlv(tag: number, content: Buffer): Buffer {
  const length = content.length;
  if (length < 0x80) return Buffer.concat([Buffer.from([tag, length]), content]);
  const octets: number[] = [];
  for (let value = length; value > 0; value = Math.floor(value / 256)) octets.unshift(value & 0xff);
  return Buffer.concat([Buffer.from([tag, 0x80 | octets.length, ...octets]), content]);
}
