import { DerCursor, Tlv, bytesOf, readOid, readRoot, readString } from './der/reader';
import { Tag } from './der/tags';
import { ia5String, oid, printableString, sequence, set, utf8String } from './der/writer';
import { PkiError } from './errors';
import { Oid } from './oids';

/** One attribute of a distinguished name, in DER order (most significant RDN first). */
export interface NameAttribute {
  oid: string;
  /** The short name (CN, O, C, ...) when the attribute is a known one. */
  shortName?: string;
  value: string;
  /** Index of the RDN it belongs to (several attributes share one in a multi-valued RDN). */
  rdn: number;
}

export interface DistinguishedName {
  /** The Name exactly as encoded (compare names by these bytes, RFC 5280 7.1 in its simple form). */
  der: Buffer;
  attributes: NameAttribute[];
  /** RFC 4514 string, least significant RDN first: `CN=example.com,O=Example,C=US`. */
  text: string;
  /** The most specific commonName, if any. */
  commonName?: string;
}

interface AttributeSpec {
  shortName: string;
  oid: string;
  /** Upper bound from RFC 5280 Appendix A, in characters. */
  max: number;
  encode: 'utf8' | 'printable' | 'ia5';
}

const ATTRIBUTES: AttributeSpec[] = [
  { shortName: 'CN', oid: Oid.commonName, max: 64, encode: 'utf8' },
  { shortName: 'C', oid: Oid.countryName, max: 2, encode: 'printable' },
  { shortName: 'ST', oid: Oid.stateOrProvinceName, max: 128, encode: 'utf8' },
  { shortName: 'L', oid: Oid.localityName, max: 128, encode: 'utf8' },
  { shortName: 'O', oid: Oid.organizationName, max: 64, encode: 'utf8' },
  { shortName: 'OU', oid: Oid.organizationalUnitName, max: 64, encode: 'utf8' },
  { shortName: 'STREET', oid: Oid.streetAddress, max: 128, encode: 'utf8' },
  { shortName: 'serialNumber', oid: Oid.serialNumber, max: 64, encode: 'printable' },
  { shortName: 'SN', oid: Oid.surname, max: 64, encode: 'utf8' },
  { shortName: 'GN', oid: Oid.givenName, max: 64, encode: 'utf8' },
  { shortName: 'title', oid: Oid.title, max: 64, encode: 'utf8' },
  { shortName: 'postalCode', oid: Oid.postalCode, max: 40, encode: 'utf8' },
  { shortName: 'dnQualifier', oid: Oid.dnQualifier, max: 64, encode: 'printable' },
  { shortName: 'organizationIdentifier', oid: Oid.organizationIdentifier, max: 64, encode: 'utf8' },
  { shortName: 'emailAddress', oid: Oid.emailAddress, max: 255, encode: 'ia5' },
  { shortName: 'DC', oid: Oid.domainComponent, max: 63, encode: 'ia5' },
  { shortName: 'UID', oid: Oid.userId, max: 256, encode: 'utf8' },
];

const STRING_TAGS = new Set<number>([
  Tag.Utf8String,
  Tag.PrintableString,
  Tag.Ia5String,
  Tag.NumericString,
  Tag.VisibleString,
  Tag.TeletexString,
  Tag.BmpString,
  Tag.UniversalString,
]);

const BY_SHORT_NAME = new Map(ATTRIBUTES.map((a) => [a.shortName.toLowerCase(), a]));
const BY_OID = new Map(ATTRIBUTES.map((a) => [a.oid, a]));

/** What a caller gives to build a name: `[['C', 'US'], ['O', 'Example'], ['CN', 'Example Root']]`. */
export type NameInput = ReadonlyArray<readonly [type: string, value: string]>;

const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;

/** DER of a Name with one single-valued RDN per entry, most significant first. */
export function encodeName(input: NameInput): Buffer {
  const rdns = input.map(([type, value]) => {
    const spec =
      BY_SHORT_NAME.get(type.toLowerCase()) ??
      (/^[0-2](\.[0-9]+)+$/.test(type) ? BY_OID.get(type) : undefined);
    const attributeOid = spec?.oid ?? (/^[0-2](\.[0-9]+)+$/.test(type) ? type : undefined);
    if (!attributeOid) throw new PkiError('name_invalid', `unknown name attribute ${JSON.stringify(type)}`);
    if (typeof value !== 'string' || value.length === 0) {
      throw new PkiError('name_invalid', `name attribute ${type} must be a non-empty string`);
    }
    if (/[\u0000-\u001f\u007f]/.test(value)) {
      throw new PkiError('name_invalid', `name attribute ${type} contains control characters`);
    }
    const max = spec?.max ?? 256;
    if ([...value].length > max)
      throw new PkiError('name_invalid', `name attribute ${type} is longer than ${max} characters`);
    let encoded: Buffer;
    switch (spec?.encode ?? 'utf8') {
      case 'printable':
        if (!PRINTABLE.test(value))
          throw new PkiError('name_invalid', `name attribute ${type} must be a PrintableString`);
        if (spec?.shortName === 'C' && !/^[A-Z]{2}$/.test(value)) {
          throw new PkiError('name_invalid', 'countryName must be two upper-case letters (ISO 3166)');
        }
        encoded = printableString(value);
        break;
      case 'ia5':
        if (!/^[\x20-\x7e]*$/.test(value))
          throw new PkiError('name_invalid', `name attribute ${type} must be ASCII`);
        encoded = ia5String(value);
        break;
      default:
        encoded = utf8String(value);
    }
    return set(sequence(oid(attributeOid), encoded));
  });
  return sequence(...rdns);
}

export function parseName(der: Buffer, what = 'name'): DistinguishedName {
  return readName(der, readRoot(der, Tag.Sequence, what), what);
}

export function readName(buf: Buffer, tlv: Tlv, what: string): DistinguishedName {
  if (tlv.tag !== Tag.Sequence)
    throw new PkiError('der_invalid', `${what}: Name must be a SEQUENCE`, { object: what });
  const attributes: NameAttribute[] = [];
  const rdnCursor = DerCursor.of(buf, tlv, what);
  let rdn = 0;
  while (!rdnCursor.done) {
    const rdnTlv = rdnCursor.next(Tag.Set, 'RelativeDistinguishedName');
    const atvCursor = DerCursor.of(buf, rdnTlv, what);
    if (atvCursor.done)
      throw new PkiError('der_invalid', `${what}: empty RelativeDistinguishedName`, { object: what });
    while (!atvCursor.done) {
      const atv = DerCursor.of(buf, atvCursor.next(Tag.Sequence, 'AttributeTypeAndValue'), what);
      const attributeOid = readOid(buf, atv.next(Tag.Oid, 'attribute type'), what);
      const valueTlv = atv.next();
      atv.end();
      // A value of a non-string type is shown as RFC 4514 hex: #<DER>; a malformed string is refused.
      const value = STRING_TAGS.has(valueTlv.tag)
        ? readString(buf, valueTlv, what)
        : `#${bytesOf(buf, valueTlv).toString('hex')}`;
      attributes.push({ oid: attributeOid, shortName: BY_OID.get(attributeOid)?.shortName, value, rdn });
    }
    rdn++;
  }
  const commonName = [...attributes].reverse().find((a) => a.oid === Oid.commonName)?.value;
  // The RFC 4514 text is only built when someone reads it (parsing a CSR on the hot path does not).
  let text: string | undefined;
  return {
    der: bytesOf(buf, tlv),
    attributes,
    get text() {
      return (text ??= nameText(attributes));
    },
    commonName,
  };
}

/** RFC 4514: RDNs in reverse order, `+` inside a multi-valued RDN, special characters escaped. */
function nameText(attributes: NameAttribute[]): string {
  const rdns: string[][] = [];
  for (const a of attributes) {
    (rdns[a.rdn] ??= []).push(
      `${a.shortName ?? a.oid}=${a.value.startsWith('#') && !a.shortName ? a.value : escapeValue(a.value)}`,
    );
  }
  return rdns
    .reverse()
    .map((parts) => parts.join('+'))
    .join(',');
}

function escapeValue(value: string): string {
  let out = value.replace(/[\\"+,;<>=]/g, (c) => `\\${c}`).replace(/[\u0000]/g, '\\00');
  if (out.startsWith('#') || out.startsWith(' ')) out = `\\${out}`;
  if (out.endsWith(' ') && !out.endsWith('\\ ')) out = `${out.slice(0, -1)}\\ `;
  return out;
}
