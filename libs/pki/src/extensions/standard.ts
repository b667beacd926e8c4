import {
  DerCursor,
  readBitString,
  readBoolean,
  readOid,
  readRoot,
  readSmallInteger,
  valueOf,
} from '../der/reader';
import { Tag, contextConstructed, contextPrimitive } from '../der/tags';
import {
  NULL,
  TRUE,
  explicit,
  implicit,
  namedBits,
  octetString,
  oid,
  sequence,
  smallInteger,
  tlvList,
} from '../der/writer';
import { PkiError } from '../errors';
import { Oid } from '../oids';
import { Extension, decodeExtensionValue, encodeExtension } from './extension';
import {
  GeneralName,
  SubjectAltNameInput,
  encodeGeneralNames,
  readGeneralName,
  readGeneralNames,
  uriGeneralName,
} from './general-name';

/** RFC 5280 4.2.1.3 KeyUsage bits, by name and bit number. */
export const KEY_USAGES = [
  'digitalSignature',
  'nonRepudiation',
  'keyEncipherment',
  'dataEncipherment',
  'keyAgreement',
  'keyCertSign',
  'cRLSign',
  'encipherOnly',
  'decipherOnly',
] as const;
export type KeyUsage = (typeof KEY_USAGES)[number];

export const EXTENDED_KEY_USAGES = {
  serverAuth: Oid.serverAuth,
  clientAuth: Oid.clientAuth,
  codeSigning: Oid.codeSigning,
  emailProtection: Oid.emailProtection,
  timeStamping: Oid.timeStamping,
  OCSPSigning: Oid.ocspSigning,
  anyExtendedKeyUsage: Oid.anyExtendedKeyUsage,
} as const;
export type ExtendedKeyUsageName = keyof typeof EXTENDED_KEY_USAGES;
const EKU_NAMES = new Map<string, string>(Object.entries(EXTENDED_KEY_USAGES).map(([name, o]) => [o, name]));

// ---------------------------------------------------------------------------------------------
// Encoders: each returns a complete Extension DER.
// ---------------------------------------------------------------------------------------------

export function basicConstraintsExtension(ca: boolean, pathLength?: number): Buffer {
  const parts: Buffer[] = [];
  if (ca) parts.push(TRUE);
  if (ca && pathLength !== undefined) parts.push(smallInteger(pathLength));
  return encodeExtension(Oid.basicConstraints, true, sequence(...parts));
}

export function keyUsageExtension(usages: readonly KeyUsage[]): Buffer {
  const bits = usages.map((u) => {
    const bit = KEY_USAGES.indexOf(u);
    if (bit < 0) throw new PkiError('profile_invalid', `unknown key usage ${JSON.stringify(u)}`);
    return bit;
  });
  if (bits.length === 0) throw new PkiError('profile_invalid', 'key usage must name at least one usage');
  return encodeExtension(Oid.keyUsage, true, namedBits([...new Set(bits)]));
}

/** Extended key usages by name (serverAuth, ...) or dotted OID. */
export function extendedKeyUsageExtension(usages: readonly string[]): Buffer {
  if (usages.length === 0)
    throw new PkiError('profile_invalid', 'extended key usage must name at least one purpose');
  const oids = usages.map((u) => {
    const known = (EXTENDED_KEY_USAGES as Record<string, string>)[u];
    if (known) return known;
    if (/^[0-2](\.(0|[1-9][0-9]*))+$/.test(u)) return u;
    throw new PkiError('profile_invalid', `unknown extended key usage ${JSON.stringify(u)}`);
  });
  return encodeExtension(
    Oid.extKeyUsage,
    false,
    tlvList(
      Tag.Sequence,
      [...new Set(oids)].map((o) => oid(o)),
    ),
  );
}

/** SAN; critical when the subject is empty (RFC 5280 4.2.1.6). */
export function subjectAltNameExtension(names: readonly SubjectAltNameInput[], critical: boolean): Buffer {
  return encodeExtension(Oid.subjectAltName, critical, encodeGeneralNames(names));
}

export function subjectKeyIdentifierExtension(keyId: Uint8Array): Buffer {
  return encodeExtension(Oid.subjectKeyIdentifier, false, octetString(keyId));
}

export function authorityKeyIdentifierExtension(keyId: Uint8Array): Buffer {
  return encodeExtension(Oid.authorityKeyIdentifier, false, sequence(implicit(0, keyId)));
}

/** One DistributionPoint whose fullName lists the URLs. */
export function crlDistributionPointsExtension(urls: readonly string[]): Buffer {
  const fullName = tlvList(contextConstructed(0), urls.map(uriGeneralName));
  return encodeExtension(Oid.crlDistributionPoints, false, sequence(sequence(explicit(0, fullName))));
}

export function authorityInfoAccessExtension(
  ocspUrls: readonly string[],
  caIssuersUrls: readonly string[],
): Buffer {
  const descriptions = [
    ...ocspUrls.map((u) => sequence(oid(Oid.ocsp), uriGeneralName(u))),
    ...caIssuersUrls.map((u) => sequence(oid(Oid.caIssuers), uriGeneralName(u))),
  ];
  return encodeExtension(Oid.authorityInfoAccess, false, tlvList(Tag.Sequence, descriptions));
}

/** TLS Feature status_request (RFC 7633), known as OCSP must-staple. */
export const MUST_STAPLE_EXTENSION = encodeExtension(Oid.tlsFeature, false, sequence(smallInteger(5)));

/** id-pkix-ocsp-nocheck (RFC 6960 4.2.2.2.1) for a delegated OCSP responder certificate. */
export const OCSP_NO_CHECK_EXTENSION = encodeExtension(Oid.ocspNoCheck, false, NULL);

// ---------------------------------------------------------------------------------------------
// Decoding: the extensions libs/pki understands, read out of a list.
// ---------------------------------------------------------------------------------------------

export interface DecodedExtensions {
  basicConstraints?: { ca: boolean; pathLength?: number; critical: boolean };
  keyUsage?: KeyUsage[];
  /** Names for the known purposes, dotted OIDs for the others. */
  extendedKeyUsage?: string[];
  subjectAltNames?: GeneralName[];
  subjectKeyIdentifier?: Buffer;
  authorityKeyIdentifier?: Buffer;
  crlDistributionPoints?: string[];
  ocspUrls?: string[];
  caIssuersUrls?: string[];
  /** TLS feature features (5 = status_request, i.e. must-staple). */
  tlsFeatures?: number[];
  mustStaple?: boolean;
  ocspNoCheck?: boolean;
  /** Critical extensions not understood here (RFC 5280 4.2: a verifier must then reject). */
  unhandledCritical: string[];
}

export function decodeExtensions(extensions: readonly Extension[], what: string): DecodedExtensions {
  const out: DecodedExtensions = { unhandledCritical: [] };
  for (const ext of extensions) {
    const v = ext.value;
    switch (ext.oid) {
      case Oid.basicConstraints:
        out.basicConstraints = {
          ...decodeExtensionValue('basicConstraints', what, () => decodeBasicConstraints(v, what)),
          critical: ext.critical,
        };
        break;
      case Oid.keyUsage:
        out.keyUsage = decodeExtensionValue('keyUsage', what, () => decodeKeyUsage(v, what));
        break;
      case Oid.extKeyUsage:
        out.extendedKeyUsage = decodeExtensionValue('extKeyUsage', what, () =>
          decodeOidList(v, what).map((o) => EKU_NAMES.get(o) ?? o),
        );
        break;
      case Oid.subjectAltName:
        out.subjectAltNames = decodeExtensionValue('subjectAltName', what, () =>
          readGeneralNames(v, readRoot(v, Tag.Sequence, what), what),
        );
        break;
      case Oid.subjectKeyIdentifier:
        out.subjectKeyIdentifier = decodeExtensionValue('subjectKeyIdentifier', what, () =>
          valueOf(v, readRoot(v, Tag.OctetString, what)),
        );
        break;
      case Oid.authorityKeyIdentifier:
        out.authorityKeyIdentifier = decodeExtensionValue('authorityKeyIdentifier', what, () =>
          decodeAuthorityKeyId(v, what),
        );
        break;
      case Oid.crlDistributionPoints:
        out.crlDistributionPoints = decodeExtensionValue('cRLDistributionPoints', what, () =>
          decodeCrlDistributionPoints(v, what),
        );
        break;
      case Oid.authorityInfoAccess: {
        const aia = decodeExtensionValue('authorityInfoAccess', what, () =>
          decodeAuthorityInfoAccess(v, what),
        );
        out.ocspUrls = aia.ocsp;
        out.caIssuersUrls = aia.caIssuers;
        break;
      }
      case Oid.tlsFeature:
        out.tlsFeatures = decodeExtensionValue('tlsFeature', what, () => decodeIntegerList(v, what));
        out.mustStaple = out.tlsFeatures.includes(5);
        break;
      case Oid.ocspNoCheck:
        out.ocspNoCheck = true;
        break;
      default:
        if (ext.critical) out.unhandledCritical.push(ext.oid);
    }
  }
  return out;
}

function decodeBasicConstraints(v: Buffer, what: string): { ca: boolean; pathLength?: number } {
  const cursor = DerCursor.of(v, readRoot(v, Tag.Sequence, what), what);
  const caTlv = cursor.optional(Tag.Boolean);
  const ca = caTlv ? readBoolean(v, caTlv, what) : false;
  const pathTlv = cursor.optional(Tag.Integer);
  cursor.end();
  return pathTlv ? { ca, pathLength: readSmallInteger(v, pathTlv, what) } : { ca };
}

function decodeKeyUsage(v: Buffer, what: string): KeyUsage[] {
  const { bytes } = readBitString(v, readRoot(v, Tag.BitString, what), what);
  const usages: KeyUsage[] = [];
  KEY_USAGES.forEach((name, bit) => {
    if (bit >> 3 < bytes.length && bytes[bit >> 3] & (0x80 >> (bit & 7))) usages.push(name);
  });
  return usages;
}

function decodeOidList(v: Buffer, what: string): string[] {
  const cursor = DerCursor.of(v, readRoot(v, Tag.Sequence, what), what);
  const out: string[] = [];
  while (!cursor.done) out.push(readOid(v, cursor.next(Tag.Oid), what));
  return out;
}

function decodeIntegerList(v: Buffer, what: string): number[] {
  const cursor = DerCursor.of(v, readRoot(v, Tag.Sequence, what), what);
  const out: number[] = [];
  while (!cursor.done) out.push(readSmallInteger(v, cursor.next(Tag.Integer), what));
  return out;
}

function decodeAuthorityKeyId(v: Buffer, what: string): Buffer | undefined {
  const cursor = DerCursor.of(v, readRoot(v, Tag.Sequence, what), what);
  const keyId = cursor.optional(contextPrimitive(0));
  return keyId ? valueOf(v, keyId) : undefined;
}

function decodeCrlDistributionPoints(v: Buffer, what: string): string[] {
  const urls: string[] = [];
  const points = DerCursor.of(v, readRoot(v, Tag.Sequence, what), what);
  while (!points.done) {
    const point = DerCursor.of(v, points.next(Tag.Sequence, 'DistributionPoint'), what);
    const name = point.optional(contextConstructed(0));
    if (!name) continue;
    const choice = DerCursor.of(v, name, what);
    const fullName = choice.optional(contextConstructed(0));
    if (!fullName) continue;
    for (const gn of readGeneralNames(v, fullName, what)) if (gn.type === 'uri') urls.push(gn.value);
  }
  return urls;
}

function decodeAuthorityInfoAccess(v: Buffer, what: string): { ocsp: string[]; caIssuers: string[] } {
  const out = { ocsp: [] as string[], caIssuers: [] as string[] };
  const cursor = DerCursor.of(v, readRoot(v, Tag.Sequence, what), what);
  while (!cursor.done) {
    const desc = DerCursor.of(v, cursor.next(Tag.Sequence, 'AccessDescription'), what);
    const method = readOid(v, desc.next(Tag.Oid), what);
    const location = readGeneralName(v, desc.next(), what);
    desc.end();
    if (location.type !== 'uri') continue;
    if (method === Oid.ocsp) out.ocsp.push(location.value);
    else if (method === Oid.caIssuers) out.caIssuers.push(location.value);
  }
  return out;
}
