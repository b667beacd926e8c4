/**
 * A small BER/DER reader for the few CMS structures SCEP receives: tag, where the content starts
 * and ends, and the children of a constructed element (indefinite lengths included, as OpenSSL
 * streams them). pkijs parses these messages too, at ten times the cost of the message's own
 * cryptography.
 */
export interface Node {
  tag: number;
  /** Offset of the tag byte. */
  start: number;
  /** Offset of the first content byte. */
  content: number;
  /** Offset just after the content (before the end-of-contents octets of an indefinite length). */
  contentEnd: number;
  /** Offset just after the element. */
  end: number;
}

export function readNode(buf: Buffer, at: number, limit = buf.length): Node {
  if (at + 2 > limit) throw new Error('truncated DER');
  const tag = buf[at];
  if ((tag & 0x1f) === 0x1f) throw new Error('high tag numbers are not used here');
  const first = buf[at + 1];
  let content = at + 2;
  if (first === 0x80) {
    if (!(tag & 0x20)) throw new Error('an indefinite length on a primitive element');
    let cursor = content;
    while (!(buf[cursor] === 0 && buf[cursor + 1] === 0)) {
      if (cursor >= limit) throw new Error('unterminated indefinite length');
      cursor = readNode(buf, cursor, limit).end;
    }
    return { tag, start: at, content, contentEnd: cursor, end: cursor + 2 };
  }
  let length = first;
  if (first & 0x80) {
    const bytes = first & 0x7f;
    if (bytes > 4) throw new Error('a DER length over 4 bytes');
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + buf[at + 2 + i];
    content += bytes;
  }
  const end = content + length;
  if (end > limit) throw new Error('truncated DER');
  return { tag, start: at, content, contentEnd: end, end };
}

export function children(buf: Buffer, node: Node): Node[] {
  const out: Node[] = [];
  for (let at = node.content; at < node.contentEnd;) {
    const child = readNode(buf, at, node.contentEnd);
    out.push(child);
    at = child.end;
  }
  return out;
}

export const bytesOf = (buf: Buffer, node: Node): Buffer => buf.subarray(node.start, node.end);
export const contentOf = (buf: Buffer, node: Node): Buffer => buf.subarray(node.content, node.contentEnd);

/** The octets of an OCTET STRING, primitive or constructed (BER: the concatenation of its pieces). */
export function octets(buf: Buffer, node: Node): Buffer {
  if (!(node.tag & 0x20)) return contentOf(buf, node);
  return Buffer.concat(children(buf, node).map((piece) => octets(buf, piece)));
}

export function oidOf(buf: Buffer, node: Node): string {
  if (node.tag !== 0x06) throw new Error('not an OBJECT IDENTIFIER');
  const bytes = contentOf(buf, node);
  const parts: number[] = [];
  let value = 0;
  for (const byte of bytes) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      if (parts.length === 0)
        parts.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
      else parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}

/**
 * A certificate's notAfter (RFC 5280 4.1.2.5: UTCTime before 2050, GeneralizedTime after, both
 * in UTC with seconds).
 */
export function certificateNotAfter(certificate: Buffer): Date {
  const tbs = children(certificate, children(certificate, readNode(certificate, 0))[0]);
  const at = tbs[0].tag === 0xa0 ? 1 : 0;
  const time = children(certificate, tbs[at + 3])[1];
  const text = contentOf(certificate, time).toString('latin1');
  const match =
    time.tag === 0x17
      ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text)
      : time.tag === 0x18
        ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text)
        : null;
  if (!match) throw new Error('not a certificate validity time');
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number);
  const fullYear = time.tag === 0x18 ? year : year < 50 ? 2000 + year : 1900 + year;
  return new Date(Date.UTC(fullYear, month - 1, day, hour, minute, second));
}

/** The DER of a certificate's issuer Name and serialNumber as a SEQUENCE (IssuerAndSerialNumber). */
export function issuerAndSerialParts(certificate: Buffer): { issuer: Buffer; serial: Buffer } {
  const tbs = children(certificate, children(certificate, readNode(certificate, 0))[0]);
  const at = tbs[0].tag === 0xa0 ? 1 : 0;
  return { serial: bytesOf(certificate, tbs[at]), issuer: bytesOf(certificate, tbs[at + 2]) };
}

/**
 * An IssuerAndSerialNumber (RFC 5652 10.2.4: SEQUENCE of the issuer Name and the serialNumber
 * INTEGER), each part as its DER, as GetCert (RFC 8894 3.3.4) carries it; throws on anything else.
 */
export function readIssuerAndSerialNumber(der: Buffer): { issuer: Buffer; serial: Buffer } {
  const outer = readNode(der, 0);
  if (outer.tag !== 0x30 || outer.end !== der.length) throw new Error('not an IssuerAndSerialNumber');
  const parts = children(der, outer);
  if (parts.length !== 2 || parts[0].tag !== 0x30 || parts[1].tag !== 0x02)
    throw new Error('not an IssuerAndSerialNumber');
  return { issuer: bytesOf(der, parts[0]), serial: bytesOf(der, parts[1]) };
}

/**
 * The IssuerAndSubject of a GetCertInitial (RFC 8894 3.3.3: SEQUENCE of the issuer Name and the
 * subject Name of the request), each as its DER; throws on anything else.
 */
export function readIssuerAndSubject(der: Buffer): { issuer: Buffer; subject: Buffer } {
  const outer = readNode(der, 0);
  if (outer.tag !== 0x30 || outer.end !== der.length) throw new Error('not an IssuerAndSubject');
  const parts = children(der, outer);
  if (parts.length !== 2 || parts[0].tag !== 0x30 || parts[1].tag !== 0x30)
    throw new Error('not an IssuerAndSubject');
  return { issuer: bytesOf(der, parts[0]), subject: bytesOf(der, parts[1]) };
}

/** The subject Name (DER) of a PKCS#10 request (RFC 2986: CertificationRequestInfo's second field). */
export function csrSubject(csrDer: Buffer): Buffer {
  const info = children(csrDer, readNode(csrDer, 0))[0];
  return bytesOf(csrDer, children(csrDer, info)[1]);
}

/** The SubjectPublicKeyInfo node of a certificate. */
function subjectPublicKeyInfo(certificate: Buffer): Node {
  const tbs = children(certificate, children(certificate, readNode(certificate, 0))[0]);
  const at = tbs[0].tag === 0xa0 ? 1 : 0;
  return tbs[at + 5];
}

/** The DER of a certificate's SubjectPublicKeyInfo. */
export function subjectPublicKeyInfoDer(certificate: Buffer): Buffer {
  return Buffer.from(bytesOf(certificate, subjectPublicKeyInfo(certificate)));
}

/** The subjectPublicKey bits of a certificate (what a subject key identifier hashes). */
export function subjectPublicKeyBits(certificate: Buffer): Buffer {
  const spki = children(certificate, subjectPublicKeyInfo(certificate));
  return contentOf(certificate, spki[1]).subarray(1);
}

const OID_EXTENSION_REQUEST_ATTRIBUTE = '1.2.840.113549.1.9.14';

/**
 * Why a PKCS#10 request is ambiguous, or null: an attribute type given twice, an attribute with
 * several values, or an extension requested twice. Readers disagree on which one counts (the
 * first, the last), so a check could pass on one while the certificate is issued from the other;
 * RFC 2985 makes extensionRequest and challengePassword single-valued, and RFC 5280 4.2 allows
 * one instance of an extension. Throws when the bytes are not a request.
 */
export function csrAmbiguity(csrDer: Buffer): string | null {
  const [info] = children(csrDer, readNode(csrDer, 0));
  const attributes = children(csrDer, info)[3];
  if (attributes?.tag !== 0xa0) return null;
  const types = new Set<string>();
  for (const attribute of children(csrDer, attributes)) {
    const [type, values] = children(csrDer, attribute);
    const oid = oidOf(csrDer, type);
    if (types.has(oid)) return `the request carries attribute ${oid} more than once`;
    types.add(oid);
    const valueNodes = values ? children(csrDer, values) : [];
    if (valueNodes.length > 1) return `attribute ${oid} has more than one value`;
    if (oid !== OID_EXTENSION_REQUEST_ATTRIBUTE || valueNodes.length === 0) continue;
    const extensions = new Set<string>();
    for (const extension of children(csrDer, valueNodes[0])) {
      const extensionOid = oidOf(csrDer, children(csrDer, extension)[0]);
      if (extensions.has(extensionOid)) return `extension ${extensionOid} is requested more than once`;
      extensions.add(extensionOid);
    }
  }
  return null;
}
