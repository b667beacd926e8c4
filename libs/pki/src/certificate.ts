import { createHash } from 'node:crypto';
import { AlgorithmIdentifier, readAlgorithmIdentifier } from './algorithm-identifier';
import {
  DerCursor,
  bytesOf,
  readBitString,
  readIntegerBytes,
  readRoot,
  readSmallInteger,
  readTime,
} from './der/reader';
import { Tag, contextConstructed } from './der/tags';
import { PkiError } from './errors';
import { DecodedExtensions, decodeExtensions } from './extensions/standard';
import { Extension, readExtensions } from './extensions/extension';
import { PublicKeyInfo, readSpki } from './keys/public-key';
import { DistinguishedName, readName } from './name';
import { PemLabel, decodeAll, decodeSingle, toPem } from './pem';
import { serialHex } from './serial';

/** 64 KiB: far above any real certificate, small enough to bound the work per input. */
export const MAX_CERTIFICATE_BYTES = 64 * 1024;

/** An X.509 certificate, parsed. */
export interface Certificate {
  der: Buffer;
  /** The DER of TBSCertificate, the signed part. */
  tbs: Buffer;
  /** 1 or 3 (v2 certificates are read as well). */
  version: number;
  /** Lower-case hex of the serial's INTEGER content octets (as OpenSSL prints it, without colons). */
  serialNumber: string;
  /** The serial INTEGER's content octets, as encoded. */
  serialBytes: Buffer;
  signatureAlgorithm: AlgorithmIdentifier;
  issuer: DistinguishedName;
  subject: DistinguishedName;
  notBefore: Date;
  notAfter: Date;
  publicKey: PublicKeyInfo;
  extensions: Extension[];
  decoded: DecodedExtensions;
  signature: Buffer;
  /** Lower-case hex SHA-256 of the DER. */
  fingerprintSha256: string;
  /** Subject equals issuer (byte for byte). */
  selfIssued: boolean;
}

export type CertificateInput = string | Uint8Array | Certificate;

const WHAT = 'certificate';

export function parseCertificate(
  input: string | Uint8Array,
  options: { maxBytes?: number } = {},
): Certificate {
  const der = decodeSingle(input, [PemLabel.certificate], {
    maxBytes: options.maxBytes ?? MAX_CERTIFICATE_BYTES,
    what: WHAT,
  });
  return parseCertificateDer(der);
}

/** Certificate or the parsed form of one, for functions that accept either. */
export function toCertificate(input: CertificateInput): Certificate {
  return typeof input === 'string' || input instanceof Uint8Array ? parseCertificate(input) : input;
}

/** Every certificate of a PEM bundle, in order (other blocks ignored). */
export function parseCertificates(
  input: string | Uint8Array,
  options: { maxBytes?: number } = {},
): Certificate[] {
  return decodeAll(input, [PemLabel.certificate], {
    maxBytes: options.maxBytes,
    what: 'certificate bundle',
  }).map((der) => parseCertificateDer(der));
}

function parseCertificateDer(der: Buffer): Certificate {
  if (der.length > MAX_CERTIFICATE_BYTES * 16) throw new PkiError('input_too_large', 'certificate too large');
  const root = readRoot(der, Tag.Sequence, WHAT);
  const outer = DerCursor.of(der, root, WHAT);
  const tbsTlv = outer.next(Tag.Sequence, 'TBSCertificate');
  const signatureAlgorithm = readAlgorithmIdentifier(
    der,
    outer.next(Tag.Sequence, 'signatureAlgorithm'),
    WHAT,
  );
  const signatureBits = readBitString(der, outer.next(Tag.BitString, 'signatureValue'), WHAT);
  outer.end();

  const tbs = DerCursor.of(der, tbsTlv, WHAT);
  let version = 1;
  const versionTlv = tbs.optional(contextConstructed(0));
  if (versionTlv) {
    const inner = DerCursor.of(der, versionTlv, WHAT);
    version = readSmallInteger(der, inner.next(Tag.Integer, 'version'), WHAT) + 1;
    inner.end();
    if (version > 3)
      throw new PkiError('der_invalid', `${WHAT}: unknown version ${version}`, { object: WHAT });
  }
  const serialBytes = readIntegerBytes(der, tbs.next(Tag.Integer, 'serialNumber'), WHAT);
  const innerAlgorithm = readAlgorithmIdentifier(der, tbs.next(Tag.Sequence, 'signature'), WHAT);
  if (!innerAlgorithm.der.equals(signatureAlgorithm.der)) {
    throw new PkiError(
      'der_invalid',
      `${WHAT}: signature algorithms inside and outside TBSCertificate differ (RFC 5280 4.1.1.2)`,
      {
        object: WHAT,
      },
    );
  }
  const issuer = readName(der, tbs.next(Tag.Sequence, 'issuer'), WHAT);
  const validity = DerCursor.of(der, tbs.next(Tag.Sequence, 'validity'), WHAT);
  const notBefore = readTime(der, validity.next(), WHAT);
  const notAfter = readTime(der, validity.next(), WHAT);
  validity.end();
  const subject = readName(der, tbs.next(Tag.Sequence, 'subject'), WHAT);
  const publicKey = readSpki(der, tbs.next(Tag.Sequence, 'subjectPublicKeyInfo'), WHAT);
  // issuerUniqueID [1] and subjectUniqueID [2] (v2/v3) are skipped.
  tbs.optional(0x81);
  tbs.optional(0x82);
  let extensions: Extension[] = [];
  const extensionsTlv = tbs.optional(contextConstructed(3));
  if (extensionsTlv) {
    if (version !== 3)
      throw new PkiError('der_invalid', `${WHAT}: extensions in a v${version} certificate`, { object: WHAT });
    const inner = DerCursor.of(der, extensionsTlv, WHAT);
    extensions = readExtensions(der, inner.next(Tag.Sequence, 'Extensions'), WHAT);
    inner.end();
  }
  tbs.end();
  if (signatureBits.unusedBits !== 0)
    throw new PkiError('der_invalid', `${WHAT}: signature has unused bits`, { object: WHAT });
  return {
    der,
    tbs: bytesOf(der, tbsTlv),
    version,
    serialNumber: serialHex(serialBytes),
    serialBytes,
    signatureAlgorithm,
    issuer,
    subject,
    notBefore,
    notAfter,
    publicKey,
    extensions,
    decoded: decodeExtensions(extensions, WHAT),
    signature: signatureBits.bytes,
    fingerprintSha256: createHash('sha256').update(der).digest('hex'),
    selfIssued: issuer.der.equals(subject.der),
  };
}

export function certificatePem(certificate: CertificateInput): string {
  return toPem(PemLabel.certificate, toCertificate(certificate).der);
}
