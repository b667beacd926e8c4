import { isIPv4, isIPv6 } from 'node:net';
import { DerCursor, Tlv, bytesOf, readOid, readRoot, valueOf } from '../der/reader';
import { Tag, contextConstructed, contextPrimitive } from '../der/tags';
import { implicit, tlvList } from '../der/writer';
import { PkiError } from '../errors';
import { readName } from '../name';

/** A subject alternative name to put in a certificate. */
export interface SubjectAltNameInput {
  type: 'dns' | 'ip' | 'email' | 'uri';
  value: string;
}

/** A GeneralName read from an extension; names of other forms keep their DER (hex) in `value`. */
export interface GeneralName {
  type: 'dns' | 'ip' | 'email' | 'uri' | 'dn' | 'registeredId' | 'other';
  value: string;
}

const enum GN {
  OtherName = 0,
  Rfc822Name = 1,
  DnsName = 2,
  DirectoryName = 4,
  Uri = 6,
  IpAddress = 7,
  RegisteredId = 8,
}

export function readGeneralNames(buf: Buffer, tlv: Tlv, what: string): GeneralName[] {
  const cursor = DerCursor.of(buf, tlv, what);
  const names: GeneralName[] = [];
  while (!cursor.done) names.push(readGeneralName(buf, cursor.next(), what));
  return names;
}

export function readGeneralName(buf: Buffer, tlv: Tlv, what: string): GeneralName {
  const ascii = () => {
    const bytes = valueOf(buf, tlv);
    for (const b of bytes)
      if (b > 0x7e || b < 0x20)
        throw new PkiError('der_invalid', `${what}: non-ASCII IA5String in a GeneralName`);
    return bytes.toString('latin1');
  };
  switch (tlv.tag) {
    case contextPrimitive(GN.Rfc822Name):
      return { type: 'email', value: ascii() };
    case contextPrimitive(GN.DnsName):
      return { type: 'dns', value: ascii() };
    case contextPrimitive(GN.Uri):
      return { type: 'uri', value: ascii() };
    case contextPrimitive(GN.IpAddress):
      return { type: 'ip', value: ipText(valueOf(buf, tlv), what) };
    case contextConstructed(GN.DirectoryName): {
      const inner = DerCursor.of(buf, tlv, what);
      const name = readName(buf, inner.next(Tag.Sequence, 'Name'), what);
      inner.end();
      return { type: 'dn', value: name.text };
    }
    case contextPrimitive(GN.RegisteredId): {
      const content = valueOf(buf, tlv);
      const asOid = Buffer.concat([Buffer.of(Tag.Oid, content.length), content]);
      return {
        type: 'registeredId',
        value:
          content.length < 128
            ? readOid(asOid, readRoot(asOid, Tag.Oid, what), what)
            : content.toString('hex'),
      };
    }
    default:
      return { type: 'other', value: bytesOf(buf, tlv).toString('hex') };
  }
}

function ipText(bytes: Buffer, what: string): string {
  if (bytes.length === 4) return Array.from(bytes).join('.');
  if (bytes.length === 16) {
    const groups: string[] = [];
    for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
    return compressIpv6(groups);
  }
  // 8 or 32 octets are address+mask pairs of name constraints; shown as hex.
  if (bytes.length === 8 || bytes.length === 32) return bytes.toString('hex');
  throw new PkiError('der_invalid', `${what}: iPAddress of ${bytes.length} octets`);
}

function compressIpv6(groups: string[]): string {
  let bestStart = -1;
  let bestLength = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLength && j - i > 1) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  if (bestStart < 0) return groups.join(':');
  return `${groups.slice(0, bestStart).join(':')}::${groups.slice(bestStart + bestLength).join(':')}`;
}

const LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;

/** A DNS name as a certificate may carry it: LDH labels (IDNs as A-labels), optionally `*.` first. */
export function isValidDnsName(name: string): boolean {
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split('.');
  const start = labels[0] === '*' ? 1 : 0;
  if (start === 1 && labels.length < 2) return false;
  for (let i = start; i < labels.length; i++) if (!LABEL.test(labels[i])) return false;
  return true;
}

export function ipAddressBytes(text: string): Buffer | undefined {
  if (isIPv4(text)) return Buffer.from(text.split('.').map(Number));
  if (!isIPv6(text) || text.includes('%')) return undefined;
  let head = text;
  let tailV4: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tailV4 = text
      .slice(lastColon + 1)
      .split('.')
      .map(Number);
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [left, right] = head.split('::');
  const leftGroups = left ? left.split(':') : [];
  const rightGroups = right !== undefined && right !== '' ? right.split(':') : [];
  const missing = 8 - leftGroups.length - rightGroups.length;
  const groups =
    right === undefined ? leftGroups : [...leftGroups, ...Array(missing).fill('0'), ...rightGroups];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  if (tailV4.length === 4) out.set(tailV4, 12);
  return out;
}

const EMAIL = /^[\x21-\x3f\x41-\x7e]+@([^@]+)$/;
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[\x21-\x7e]+$/;

/** Validates one SAN and returns its GeneralName DER; `san_invalid` for anything malformed. */
export function encodeSubjectAltName(san: SubjectAltNameInput): Buffer {
  const value = typeof san?.value === 'string' ? san.value : '';
  switch (san?.type) {
    case 'dns':
      if (!isValidDnsName(value))
        throw new PkiError('san_invalid', `not a valid DNS name: ${JSON.stringify(value)}`, { san });
      return implicit(GN.DnsName, Buffer.from(value.toLowerCase(), 'latin1'));
    case 'ip': {
      const bytes = ipAddressBytes(value);
      if (!bytes)
        throw new PkiError('san_invalid', `not a valid IP address: ${JSON.stringify(value)}`, { san });
      return implicit(GN.IpAddress, bytes);
    }
    case 'email': {
      const match = EMAIL.exec(value);
      if (!match || !isValidDnsName(match[1]) || match[1].startsWith('*') || value.length > 255) {
        throw new PkiError('san_invalid', `not a valid e-mail address: ${JSON.stringify(value)}`, { san });
      }
      return implicit(GN.Rfc822Name, Buffer.from(value, 'latin1'));
    }
    case 'uri':
      if (!URI.test(value) || value.length > 2048) {
        throw new PkiError('san_invalid', `not a valid URI: ${JSON.stringify(value)}`, { san });
      }
      return implicit(GN.Uri, Buffer.from(value, 'latin1'));
    default:
      throw new PkiError(
        'san_invalid',
        `unsupported subject alternative name type ${JSON.stringify(san?.type)}`,
      );
  }
}

export function encodeGeneralNames(names: readonly SubjectAltNameInput[]): Buffer {
  return tlvList(Tag.Sequence, names.map(encodeSubjectAltName));
}

/** A URI GeneralName, for CRL distribution points and AIA. */
export function uriGeneralName(uri: string): Buffer {
  return encodeSubjectAltName({ type: 'uri', value: uri });
}
