import { readAlgorithmIdentifier, AlgorithmIdentifier } from './algorithm-identifier';
import { Certificate, CertificateInput, toCertificate } from './certificate';
import { assertCanIssue, assertSignerMatches, keyIdentifier } from './certificate-builder';
import {
  DerCursor,
  bytesOf,
  readBitString,
  readIntegerBytes,
  readRoot,
  readSmallInteger,
  readTime,
  valueOf,
} from './der/reader';
import { Tag } from './der/tags';
import {
  bigInteger,
  explicit,
  headerLength,
  sequence,
  smallInteger,
  tlv,
  writeHeader,
  x509Time,
} from './der/writer';
import { PkiError } from './errors';
import { Extension, decodeExtensionValue, encodeExtension, readExtensions } from './extensions/extension';
import { authorityKeyIdentifierExtension } from './extensions/standard';
import { Signer } from './keys/key-provider';
import { DistinguishedName, readName } from './name';
import { Oid } from './oids';
import { PemLabel, decodeSingle } from './pem';
import { RevocationReason, revocationReasonCode, revocationReasonFromCode } from './revocation-reason';
import { serialHex } from './serial';
import { signatureAlgorithmOf, verifySignature } from './signature-algorithm';

/** One revoked certificate. */
export interface RevokedEntry {
  /** Hex (as stored) or the INTEGER content octets. */
  serialNumber: string | Uint8Array;
  revokedAt: Date;
  /** Omitted or `unspecified`: no reasonCode extension (RFC 5280 5.3.1 says it SHOULD then be absent). */
  reason?: RevocationReason;
  /** The invalidityDate entry extension (RFC 5280 5.3.2). */
  invalidityDate?: Date;
}

export interface CrlContent {
  /** The cRLNumber: monotonically increasing per issuer (RFC 5280 5.2.3). */
  crlNumber: bigint | number;
  thisUpdate: Date;
  /** Default: thisUpdate + 24 hours (spec section 8). */
  nextUpdate?: Date;
  /** Any iterable: an array, or a generator reading rows as it goes. */
  entries: Iterable<RevokedEntry>;
}

export const CRL_VALIDITY_MS = 24 * 3600 * 1000;

const VERSION_2 = smallInteger(1);
const CHUNK_BYTES = 1 << 20;
/** SEQUENCE { INTEGER (<= 21 octets), Time (<= 17), extensions (<= 2 + 14 + 19) }: an entry's upper bound. */
const MAX_ENTRY_BYTES = 2 + 23 + 17 + 2 + 14 + 19 + 8;

/** Pre-encoded entry extensions for each reason (Extensions SEQUENCE with one reasonCode). */
const REASON_EXTENSIONS = new Map<number, Buffer>();
for (const code of [1, 2, 3, 4, 5, 6, 8, 9, 10]) {
  REASON_EXTENSIONS.set(code, encodeExtension(Oid.crlReason, false, Buffer.from([Tag.Enumerated, 1, code])));
}

/**
 * Builds and signs CRLs for one CA. The issuer name, signature algorithm and AKI are encoded
 * once; the revoked entries are streamed into 1 MiB chunks (no object per entry, times written
 * digit by digit) and copied once into the final buffer, whose header is written last, so a
 * million entries take about a second and twice their DER size in memory.
 */
export class CrlIssuer {
  readonly certificate: Certificate;
  readonly signer: Signer;
  private readonly issuerName: Buffer;
  private readonly algorithm: Buffer;
  private readonly authorityKeyId: Buffer;

  constructor(options: { certificate: CertificateInput; signer: Signer }) {
    const certificate = toCertificate(options.certificate);
    assertCanIssue(certificate, 'cRLSign');
    assertSignerMatches(certificate, options.signer);
    this.certificate = certificate;
    this.signer = options.signer;
    this.issuerName = certificate.subject.der;
    this.algorithm = options.signer.signatureAlgorithm.identifier;
    this.authorityKeyId = authorityKeyIdentifierExtension(
      certificate.decoded.subjectKeyIdentifier ?? keyIdentifier(certificate.publicKey),
    );
  }

  /** The DER of a CertificateList (RFC 5280 5.1), v2, signed by the CA. */
  async build(content: CrlContent): Promise<Buffer> {
    const thisUpdate = content.thisUpdate;
    if (!(thisUpdate instanceof Date) || Number.isNaN(thisUpdate.getTime())) {
      throw new PkiError('profile_invalid', 'thisUpdate must be a valid date');
    }
    const nextUpdate = content.nextUpdate ?? new Date(thisUpdate.getTime() + CRL_VALIDITY_MS);
    if (!(nextUpdate.getTime() > thisUpdate.getTime())) {
      throw new PkiError('profile_invalid', 'nextUpdate must be later than thisUpdate');
    }
    if (typeof content.crlNumber === 'number' && !Number.isSafeInteger(content.crlNumber)) {
      throw new PkiError('profile_invalid', 'cRLNumber must be an integer');
    }
    if (typeof content.crlNumber !== 'number' && typeof content.crlNumber !== 'bigint') {
      throw new PkiError('profile_invalid', 'cRLNumber must be an integer');
    }
    const crlNumber = BigInt(content.crlNumber);
    if (crlNumber < 0n || crlNumber >= 1n << 159n) {
      throw new PkiError('profile_invalid', 'cRLNumber must be a non-negative integer of at most 20 octets');
    }
    const { chunks, length: entriesLength } = encodeEntries(content.entries);
    const head = Buffer.concat([
      VERSION_2,
      this.algorithm,
      this.issuerName,
      x509Time(thisUpdate),
      x509Time(nextUpdate),
    ]);
    const extensions = explicit(
      0,
      sequence(this.authorityKeyId, encodeExtension(Oid.crlNumber, false, bigInteger(crlNumber))),
    );
    const revokedLength = entriesLength > 0 ? headerLength(entriesLength) + entriesLength : 0;
    const tbsContent = head.length + revokedLength + extensions.length;
    const tbsLength = headerLength(tbsContent) + tbsContent;
    // One buffer for the whole CertificateList: 6 bytes reserved for the outer header, then the
    // TBS, then room for the algorithm and the signature (at most 1 + 5 + 1 + 512 for RSA-4096).
    const reserve = 6;
    const out = Buffer.allocUnsafe(reserve + tbsLength + this.algorithm.length + 6 + 1024);
    let offset = writeHeader(out, reserve, Tag.Sequence, tbsContent);
    offset += head.copy(out, offset);
    if (entriesLength > 0) {
      offset = writeHeader(out, offset, Tag.Sequence, entriesLength);
      for (const chunk of chunks) offset += chunk.copy(out, offset);
    }
    offset += extensions.copy(out, offset);
    const tbs = out.subarray(reserve, offset);
    const signature = await this.signer.sign(tbs);
    offset += this.algorithm.copy(out, offset);
    offset = writeHeader(out, offset, Tag.BitString, signature.length + 1);
    out[offset++] = 0;
    if (offset + signature.length > out.length)
      throw new PkiError('profile_invalid', 'signature longer than expected');
    offset += signature.copy(out, offset);
    const total = offset - reserve;
    const start = reserve - headerLength(total);
    writeHeader(out, start, Tag.Sequence, total);
    return out.subarray(start, offset);
  }
}

function encodeEntries(entries: Iterable<RevokedEntry>): { chunks: Buffer[]; length: number } {
  const chunks: Buffer[] = [];
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let offset = 0;
  let length = 0;
  let lastTime = NaN;
  let lastTimeBytes: Buffer = Buffer.alloc(0);
  for (const entry of entries) {
    if (offset + MAX_ENTRY_BYTES > chunk.length) {
      chunks.push(chunk.subarray(0, offset));
      chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      offset = 0;
    }
    const serial = serialOctets(entry.serialNumber);
    if (!(entry.revokedAt instanceof Date)) throw new PkiError('profile_invalid', 'revokedAt must be a Date');
    const time = entry.revokedAt.getTime();
    if (time !== lastTime) {
      lastTimeBytes = x509Time(entry.revokedAt);
      lastTime = time;
    }
    const code = entry.reason === undefined ? 0 : revocationReasonCode(entry.reason);
    if (code === 8) {
      throw new PkiError(
        'revocation_reason_invalid',
        'removeFromCRL is only meaningful in a delta CRL; drop the entry instead',
      );
    }
    const reasonExt = code === 0 ? undefined : REASON_EXTENSIONS.get(code);
    const invalidity = entry.invalidityDate
      ? encodeExtension(Oid.invalidityDate, false, generalizedTimeOf(entry.invalidityDate))
      : undefined;
    const extLength = (reasonExt?.length ?? 0) + (invalidity?.length ?? 0);
    const serialLength = 2 + serial.length;
    const content =
      serialLength + lastTimeBytes.length + (extLength ? headerLength(extLength) + extLength : 0);
    const start = offset;
    offset = writeHeader(chunk, offset, Tag.Sequence, content);
    chunk[offset++] = Tag.Integer;
    chunk[offset++] = serial.length;
    offset += serial.copy(chunk, offset);
    offset += lastTimeBytes.copy(chunk, offset);
    if (extLength) {
      offset = writeHeader(chunk, offset, Tag.Sequence, extLength);
      if (reasonExt) offset += reasonExt.copy(chunk, offset);
      if (invalidity) offset += invalidity.copy(chunk, offset);
    }
    length += offset - start;
  }
  if (offset > 0) chunks.push(chunk.subarray(0, offset));
  return { chunks, length };
}

function generalizedTimeOf(date: Date): Buffer {
  // x509Time switches to GeneralizedTime only from 2050; invalidityDate is always GeneralizedTime.
  const iso = date.toISOString();
  if (Number.isNaN(date.getTime())) throw new PkiError('profile_invalid', 'invalid invalidityDate');
  const text = iso.slice(0, 19).replace(/[-:T]/g, '') + 'Z';
  return tlv(Tag.GeneralizedTime, Buffer.from(text, 'latin1'));
}

const hexSerials = /^[0-9a-fA-F]+$/;

function serialOctets(serial: string | Uint8Array): Buffer {
  let bytes: Buffer;
  if (typeof serial === 'string') {
    if (!hexSerials.test(serial) || serial.length > 42)
      throw new PkiError('serial_invalid', `serial ${JSON.stringify(serial.slice(0, 50))} is not hex`);
    bytes = Buffer.from(serial.length % 2 ? `0${serial}` : serial, 'hex');
  } else {
    bytes = Buffer.from(serial.buffer, serial.byteOffset, serial.byteLength);
  }
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0 && !(bytes[start + 1] & 0x80)) start++;
  bytes = bytes.subarray(start);
  if (bytes.length === 0 || (bytes.length === 1 && bytes[0] === 0))
    throw new PkiError('serial_invalid', 'serial number must be positive');
  if (bytes[0] & 0x80) bytes = Buffer.concat([Buffer.of(0), bytes]);
  if (bytes.length > 20) throw new PkiError('serial_invalid', 'serial number is longer than 20 octets');
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

export interface CrlEntry {
  serialNumber: string;
  revocationDate: Date;
  reason?: RevocationReason;
  invalidityDate?: Date;
}

export interface CertificateRevocationList {
  der: Buffer;
  tbs: Buffer;
  version: number;
  signatureAlgorithm: AlgorithmIdentifier;
  issuer: DistinguishedName;
  thisUpdate: Date;
  nextUpdate?: Date;
  crlNumber?: bigint;
  authorityKeyIdentifier?: Buffer;
  entries: CrlEntry[];
  extensions: Extension[];
  signature: Buffer;
}

/** 64 MiB: room for a CRL of about a million entries. */
export const MAX_CRL_BYTES = 64 * 1024 * 1024;
const WHAT = 'CRL';

/** Reads a CRL (PEM `X509 CRL` or DER). Its signature is checked by `verifyCrl`. */
export function parseCrl(
  input: string | Uint8Array,
  options: { maxBytes?: number } = {},
): CertificateRevocationList {
  const der = decodeSingle(input, [PemLabel.crl], {
    maxBytes: options.maxBytes ?? MAX_CRL_BYTES,
    what: WHAT,
  });
  const outer = DerCursor.of(der, readRoot(der, Tag.Sequence, WHAT), WHAT);
  const tbsTlv = outer.next(Tag.Sequence, 'TBSCertList');
  const signatureAlgorithm = readAlgorithmIdentifier(
    der,
    outer.next(Tag.Sequence, 'signatureAlgorithm'),
    WHAT,
  );
  const signature = readBitString(der, outer.next(Tag.BitString, 'signatureValue'), WHAT).bytes;
  outer.end();
  const tbs = DerCursor.of(der, tbsTlv, WHAT);
  const versionTlv = tbs.optional(Tag.Integer);
  const version = versionTlv ? readSmallInteger(der, versionTlv, WHAT) + 1 : 1;
  const inner = readAlgorithmIdentifier(der, tbs.next(Tag.Sequence, 'signature'), WHAT);
  if (!inner.der.equals(signatureAlgorithm.der))
    throw new PkiError('der_invalid', `${WHAT}: signature algorithms differ`);
  const issuer = readName(der, tbs.next(Tag.Sequence, 'issuer'), WHAT);
  const thisUpdate = readTime(der, tbs.next(), WHAT);
  const peek = tbs.peekTag();
  const nextUpdate =
    peek === Tag.UtcTime || peek === Tag.GeneralizedTime ? readTime(der, tbs.next(), WHAT) : undefined;
  const entries: CrlEntry[] = [];
  const revoked = tbs.optional(Tag.Sequence);
  if (revoked) {
    const cursor = DerCursor.of(der, revoked, WHAT);
    while (!cursor.done) {
      const entry = DerCursor.of(der, cursor.next(Tag.Sequence, 'revoked certificate'), WHAT);
      const serialNumber = serialHex(readIntegerBytes(der, entry.next(Tag.Integer), WHAT));
      const revocationDate = readTime(der, entry.next(), WHAT);
      const result: CrlEntry = { serialNumber, revocationDate };
      const extTlv = entry.optional(Tag.Sequence);
      entry.end();
      if (extTlv) {
        for (const ext of readExtensions(der, extTlv, WHAT)) {
          if (ext.oid === Oid.crlReason) {
            result.reason = decodeExtensionValue('reasonCode', WHAT, () => {
              const t = readRoot(ext.value, Tag.Enumerated, WHAT);
              return revocationReasonFromCode(readSmallInteger(ext.value, { ...t, tag: Tag.Integer }, WHAT));
            });
          } else if (ext.oid === Oid.invalidityDate) {
            result.invalidityDate = decodeExtensionValue('invalidityDate', WHAT, () =>
              readTime(ext.value, readRoot(ext.value, Tag.GeneralizedTime, WHAT), WHAT),
            );
          }
        }
      }
      entries.push(result);
    }
  }
  let extensions: Extension[] = [];
  const extWrapper = tbs.optional(0xa0);
  if (extWrapper) {
    const w = DerCursor.of(der, extWrapper, WHAT);
    extensions = readExtensions(der, w.next(Tag.Sequence), WHAT);
    w.end();
  }
  tbs.end();
  let crlNumber: bigint | undefined;
  let authorityKeyIdentifier: Buffer | undefined;
  for (const ext of extensions) {
    if (ext.oid === Oid.crlNumber) {
      crlNumber = decodeExtensionValue('cRLNumber', WHAT, () => {
        const bytes = readIntegerBytes(ext.value, readRoot(ext.value, Tag.Integer, WHAT), WHAT);
        return BigInt(`0x${bytes.toString('hex')}`);
      });
    } else if (ext.oid === Oid.authorityKeyIdentifier) {
      authorityKeyIdentifier = decodeExtensionValue('authorityKeyIdentifier', WHAT, () => {
        const c = DerCursor.of(ext.value, readRoot(ext.value, Tag.Sequence, WHAT), WHAT);
        const id = c.optional(0x80);
        return id ? valueOf(ext.value, id) : undefined;
      });
    }
  }
  return {
    der,
    tbs: bytesOf(der, tbsTlv),
    version,
    signatureAlgorithm,
    issuer,
    thisUpdate,
    nextUpdate,
    crlNumber,
    authorityKeyIdentifier,
    entries,
    extensions,
    signature,
  };
}

/** The CRL names `issuer` and its signature verifies with the issuer's key. */
export function verifyCrl(crl: CertificateRevocationList, issuer: CertificateInput): boolean {
  const certificate = toCertificate(issuer);
  if (!crl.issuer.der.equals(certificate.subject.der)) return false;
  try {
    return verifySignature(
      signatureAlgorithmOf(crl.signatureAlgorithm, WHAT),
      certificate.publicKey,
      crl.tbs,
      crl.signature,
    );
  } catch {
    return false;
  }
}
