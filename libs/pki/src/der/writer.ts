import { PkiError } from '../errors';
import { Tag, contextConstructed, contextPrimitive } from './tags';

/**
 * A small DER encoder for the hot paths: every function returns the complete encoding of one
 * element as a Buffer, and constructed elements copy their parts once into one allocation. Parts
 * that do not change between calls (OIDs, algorithm identifiers, a CA's name) are encoded once by
 * the caller and passed in as Buffers.
 */

export function lengthOctets(length: number): number {
  if (length < 0x80) return 1;
  if (length < 0x100) return 2;
  if (length < 0x10000) return 3;
  if (length < 0x1000000) return 4;
  return 5;
}

/** Writes the identifier and length octets at `offset`; returns the offset after them. */
export function writeHeader(target: Buffer, offset: number, tag: number, length: number): number {
  target[offset++] = tag;
  if (length < 0x80) {
    target[offset++] = length;
  } else if (length < 0x100) {
    target[offset++] = 0x81;
    target[offset++] = length;
  } else if (length < 0x10000) {
    target[offset++] = 0x82;
    target[offset++] = length >>> 8;
    target[offset++] = length & 0xff;
  } else if (length < 0x1000000) {
    target[offset++] = 0x83;
    target[offset++] = length >>> 16;
    target[offset++] = (length >>> 8) & 0xff;
    target[offset++] = length & 0xff;
  } else {
    target[offset++] = 0x84;
    target.writeUInt32BE(length, offset);
    offset += 4;
  }
  return offset;
}

export function headerLength(length: number): number {
  return 1 + lengthOctets(length);
}

/** One element whose content is the concatenation of `parts`. */
export function tlv(tag: number, ...parts: Uint8Array[]): Buffer {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = Buffer.allocUnsafe(headerLength(length) + length);
  let offset = writeHeader(out, 0, tag, length);
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function tlvList(tag: number, parts: readonly Uint8Array[]): Buffer {
  return tlv(tag, ...parts);
}

export const sequence = (...parts: Uint8Array[]): Buffer => tlv(Tag.Sequence, ...parts);
export const set = (...parts: Uint8Array[]): Buffer => tlv(Tag.Set, ...parts);
/** `[n] EXPLICIT` around one or more already-encoded elements (or a constructed `[n] IMPLICIT`). */
export const explicit = (n: number, ...parts: Uint8Array[]): Buffer => tlv(contextConstructed(n), ...parts);
/** A primitive `[n] IMPLICIT` with the given content octets. */
export const implicit = (n: number, content: Uint8Array): Buffer => tlv(contextPrimitive(n), content);
export const octetString = (content: Uint8Array): Buffer => tlv(Tag.OctetString, content);
export const NULL = Buffer.from([Tag.Null, 0]);
export const TRUE = Buffer.from([Tag.Boolean, 1, 0xff]);

/** BIT STRING of whole octets (no unused bits). */
export function bitString(bytes: Uint8Array, unusedBits = 0): Buffer {
  return tlv(Tag.BitString, Buffer.of(unusedBits), bytes);
}

/** A named-bit BIT STRING (KeyUsage, ReasonFlags) from the bit numbers set, in DER's minimal form. */
export function namedBits(bits: readonly number[]): Buffer {
  if (bits.length === 0) return Buffer.from([Tag.BitString, 1, 0]);
  const highest = Math.max(...bits);
  const bytes = Buffer.alloc((highest >> 3) + 1);
  for (const bit of bits) bytes[bit >> 3] |= 0x80 >> (bit & 7);
  const unused = 7 - (highest & 7);
  return bitString(bytes, unused);
}

/** INTEGER from an unsigned big-endian magnitude (leading zeros removed, a 0x00 added if needed). */
export function unsignedInteger(magnitude: Uint8Array): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const bytes = magnitude.subarray(start);
  if (bytes.length === 0) return Buffer.from([Tag.Integer, 1, 0]);
  return bytes[0] & 0x80 ? tlv(Tag.Integer, Buffer.of(0), bytes) : tlv(Tag.Integer, bytes);
}

export function smallInteger(value: number): Buffer {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a non-negative integer: ${value}`);
  const bytes: number[] = [];
  let v = value;
  do {
    bytes.unshift(v % 256);
    v = Math.floor(v / 256);
  } while (v > 0);
  if (bytes[0] & 0x80) bytes.unshift(0);
  return tlv(Tag.Integer, Buffer.from(bytes));
}

export function bigInteger(value: bigint): Buffer {
  if (value < 0n) throw new RangeError('negative INTEGER not supported');
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  return unsignedInteger(Buffer.from(hex, 'hex'));
}

export function enumerated(value: number): Buffer {
  if (!Number.isInteger(value) || value < 0 || value > 127)
    throw new RangeError(`ENUMERATED out of range: ${value}`);
  return Buffer.from([Tag.Enumerated, 1, value]);
}

const oidCache = new Map<string, Buffer>();

/** OBJECT IDENTIFIER from its dotted form; encodings are cached. */
export function oid(dotted: string): Buffer {
  const cached = oidCache.get(dotted);
  if (cached) return cached;
  const arcs = dotted.split('.');
  if (arcs.length < 2 || arcs.some((a) => !/^(0|[1-9][0-9]*)$/.test(a))) {
    throw new PkiError('der_invalid', `not an OBJECT IDENTIFIER: ${JSON.stringify(dotted)}`);
  }
  const first = BigInt(arcs[0]);
  const second = BigInt(arcs[1]);
  if (first > 2n || (first < 2n && second > 39n)) {
    throw new PkiError('der_invalid', `not an OBJECT IDENTIFIER: ${JSON.stringify(dotted)}`);
  }
  const content: number[] = [];
  const values = [first * 40n + second, ...arcs.slice(2).map((a) => BigInt(a))];
  for (const value of values) {
    const chunk: number[] = [];
    let v = value;
    do {
      chunk.unshift(Number(v & 0x7fn));
      v >>= 7n;
    } while (v > 0n);
    for (let i = 0; i < chunk.length - 1; i++) chunk[i] |= 0x80;
    content.push(...chunk);
  }
  const encoded = tlv(Tag.Oid, Buffer.from(content));
  if (oidCache.size < 4096) oidCache.set(dotted, encoded);
  return encoded;
}

export const utf8String = (value: string): Buffer => tlv(Tag.Utf8String, Buffer.from(value, 'utf8'));
export const printableString = (value: string): Buffer =>
  tlv(Tag.PrintableString, Buffer.from(value, 'latin1'));
export const ia5String = (value: string): Buffer => tlv(Tag.Ia5String, Buffer.from(value, 'latin1'));

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

function timeDigits(date: Date): string {
  return (
    pad2(date.getUTCMonth() + 1) +
    pad2(date.getUTCDate()) +
    pad2(date.getUTCHours()) +
    pad2(date.getUTCMinutes()) +
    pad2(date.getUTCSeconds())
  );
}

function checkDate(date: Date): void {
  if (Number.isNaN(date.getTime())) throw new PkiError('profile_invalid', 'invalid date');
}

/** GeneralizedTime with whole seconds (RFC 5280 4.1.2.5.2, RFC 6960 uses the same form). */
export function generalizedTime(date: Date): Buffer {
  checkDate(date);
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) throw new PkiError('profile_invalid', `year ${year} cannot be encoded`);
  return tlv(
    Tag.GeneralizedTime,
    Buffer.from(String(year).padStart(4, '0') + timeDigits(date) + 'Z', 'latin1'),
  );
}

/** UTCTime (YYMMDDHHMMSSZ); only for 1950 through 2049. */
export function utcTime(date: Date): Buffer {
  checkDate(date);
  const year = date.getUTCFullYear();
  if (year < 1950 || year > 2049) throw new PkiError('profile_invalid', `year ${year} is outside UTCTime`);
  return tlv(Tag.UtcTime, Buffer.from(pad2(year % 100) + timeDigits(date) + 'Z', 'latin1'));
}

/** RFC 5280 Time: UTCTime through 2049, GeneralizedTime from 2050. */
export function x509Time(date: Date): Buffer {
  checkDate(date);
  const year = date.getUTCFullYear();
  return year >= 1950 && year <= 2049 ? utcTime(date) : generalizedTime(date);
}

export { Tag, contextConstructed, contextPrimitive };
