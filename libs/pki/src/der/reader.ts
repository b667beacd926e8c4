import { PkiError } from '../errors';
import { Tag } from './tags';

/**
 * A strict, bounds-checked DER reader. It never recurses on its own (callers descend into the
 * structures they know), so a hostile input cannot exhaust the stack, and every length is checked
 * against the enclosing element before it is used: truncated input gives `der_truncated`, anything
 * else that is not DER (indefinite or non-minimal lengths, high tag numbers, trailing bytes)
 * gives `der_invalid`.
 */
export interface Tlv {
  /** The identifier octet: class, constructed bit and tag number (low-tag-number form only). */
  readonly tag: number;
  /** Offset of the identifier octet. */
  readonly start: number;
  /** Offset of the first content octet. */
  readonly valueStart: number;
  /** Offset just past the last content octet. */
  readonly end: number;
}

const MAX_LENGTH_OCTETS = 4;

export function derError(what: string, message: string, offset?: number): PkiError {
  return new PkiError(
    'der_invalid',
    `${what}: ${message}`,
    offset === undefined ? { object: what } : { object: what, offset },
  );
}

function truncated(what: string, offset: number): PkiError {
  return new PkiError('der_truncated', `${what}: DER truncated at offset ${offset}`, {
    object: what,
    offset,
  });
}

/** Reads one TLV starting at `offset`; it must end at or before `limit`. */
export function readTlv(buf: Uint8Array, offset: number, limit: number, what: string): Tlv {
  if (offset >= limit) throw truncated(what, offset);
  const tag = buf[offset];
  if ((tag & 0x1f) === 0x1f) throw derError(what, 'high tag numbers are not supported', offset);
  if (offset + 1 >= limit) throw truncated(what, offset + 1);
  const first = buf[offset + 1];
  let length: number;
  let valueStart: number;
  if (first < 0x80) {
    length = first;
    valueStart = offset + 2;
  } else {
    const count = first & 0x7f;
    if (count === 0) throw derError(what, 'indefinite length is not DER', offset + 1);
    if (count > MAX_LENGTH_OCTETS) throw derError(what, 'length too large', offset + 1);
    if (offset + 2 + count > limit) throw truncated(what, offset + 2);
    if (buf[offset + 2] === 0) throw derError(what, 'non-minimal length encoding', offset + 1);
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + buf[offset + 2 + i];
    if (length < 0x80) throw derError(what, 'non-minimal length encoding', offset + 1);
    valueStart = offset + 2 + count;
  }
  const end = valueStart + length;
  if (end > limit) throw truncated(what, limit);
  return { tag, start: offset, valueStart, end };
}

/** The whole buffer must be exactly one element with the given tag. */
export function readRoot(buf: Uint8Array, tag: number, what: string): Tlv {
  const tlv = readTlv(buf, 0, buf.length, what);
  if (tlv.tag !== tag) throw derError(what, `expected ${tagName(tag)}, found ${tagName(tlv.tag)}`, 0);
  if (tlv.end !== buf.length)
    throw derError(what, `${buf.length - tlv.end} trailing bytes after the DER`, tlv.end);
  return tlv;
}

/** Sequential reading of the children of one constructed element. */
export class DerCursor {
  private pos: number;
  private readonly limit: number;

  constructor(
    readonly buf: Buffer,
    parent: { valueStart: number; end: number },
    readonly what: string,
  ) {
    this.pos = parent.valueStart;
    this.limit = parent.end;
  }

  static of(buf: Buffer, parent: Tlv, what: string): DerCursor {
    if ((parent.tag & 0x20) === 0)
      throw derError(what, `${tagName(parent.tag)} is not constructed`, parent.start);
    return new DerCursor(buf, parent, what);
  }

  get done(): boolean {
    return this.pos >= this.limit;
  }

  get offset(): number {
    return this.pos;
  }

  peekTag(): number | undefined {
    return this.pos < this.limit ? this.buf[this.pos] : undefined;
  }

  /** The next element; with `tag`, it must have that tag. */
  next(tag?: number, label?: string): Tlv {
    if (this.pos >= this.limit) {
      throw derError(
        this.what,
        `missing ${label ?? (tag === undefined ? 'element' : tagName(tag))}`,
        this.pos,
      );
    }
    const tlv = readTlv(this.buf, this.pos, this.limit, this.what);
    if (tag !== undefined && tlv.tag !== tag) {
      throw derError(
        this.what,
        `expected ${label ? `${label} (${tagName(tag)})` : tagName(tag)}, found ${tagName(tlv.tag)}`,
        tlv.start,
      );
    }
    this.pos = tlv.end;
    return tlv;
  }

  /** The next element if it has this tag, else nothing is consumed. */
  optional(tag: number): Tlv | undefined {
    return this.peekTag() === tag ? this.next(tag) : undefined;
  }

  /** Asserts that every child was read. */
  end(): void {
    if (this.pos < this.limit)
      throw derError(this.what, `unexpected ${tagName(this.buf[this.pos])}`, this.pos);
  }

  /** The remaining children. */
  rest(): Tlv[] {
    const out: Tlv[] = [];
    while (!this.done) out.push(this.next());
    return out;
  }
}

export function children(buf: Buffer, parent: Tlv, what: string): Tlv[] {
  return DerCursor.of(buf, parent, what).rest();
}

export function valueOf(buf: Buffer, tlv: Tlv): Buffer {
  return buf.subarray(tlv.valueStart, tlv.end);
}

export function bytesOf(buf: Buffer, tlv: Tlv): Buffer {
  return buf.subarray(tlv.start, tlv.end);
}

/** The content octets of an INTEGER, as given (two's complement, big-endian). */
export function readIntegerBytes(buf: Buffer, tlv: Tlv, what: string): Buffer {
  if (tlv.end === tlv.valueStart) throw derError(what, 'empty INTEGER', tlv.start);
  return valueOf(buf, tlv);
}

/** A small non-negative INTEGER (versions, path lengths, enumerations). */
export function readSmallInteger(buf: Buffer, tlv: Tlv, what: string): number {
  const bytes = readIntegerBytes(buf, tlv, what);
  if (bytes[0] & 0x80) throw derError(what, 'negative INTEGER where a count was expected', tlv.start);
  if (bytes.length > 6) throw derError(what, 'INTEGER too large', tlv.start);
  let n = 0;
  for (const b of bytes) n = n * 256 + b;
  return n;
}

export function readBoolean(buf: Buffer, tlv: Tlv, what: string): boolean {
  if (tlv.end - tlv.valueStart !== 1) throw derError(what, 'BOOLEAN must be one octet', tlv.start);
  const b = buf[tlv.valueStart];
  if (b !== 0 && b !== 0xff) throw derError(what, 'BOOLEAN must be 0x00 or 0xFF in DER', tlv.start);
  return b === 0xff;
}

const oidCache = new Map<string, string>();

export function readOid(buf: Buffer, tlv: Tlv, what: string): string {
  const start = tlv.valueStart;
  const end = tlv.end;
  if (end === start) throw derError(what, 'empty OBJECT IDENTIFIER', tlv.start);
  if (end - start > 128) throw derError(what, 'OBJECT IDENTIFIER too long', tlv.start);
  // The same few dozen OIDs recur in every certificate, CSR and OCSP request.
  const key = end - start <= 16 ? buf.toString('latin1', start, end) : undefined;
  const cached = key === undefined ? undefined : oidCache.get(key);
  if (cached !== undefined) return cached;
  const dotted = decodeOid(buf, start, end, what);
  if (key !== undefined && oidCache.size < 2048) oidCache.set(key, dotted);
  return dotted;
}

function decodeOid(buf: Buffer, start: number, end: number, what: string): string {
  const arcs: string[] = [];
  let value = 0;
  let big: bigint | undefined;
  let first = true;
  for (let i = start; i < end; i++) {
    const b = buf[i];
    if (value === 0 && big === undefined && b === 0x80) throw derError(what, 'non-minimal OID arc', i);
    if (big !== undefined) big = big * 128n + BigInt(b & 0x7f);
    else if (value > 2 ** 45) big = BigInt(value) * 128n + BigInt(b & 0x7f);
    else value = value * 128 + (b & 0x7f);
    if ((b & 0x80) === 0) {
      if (first) {
        // The first subidentifier packs the first two arcs: 40 * X + Y.
        if (big !== undefined) arcs.push('2', (big - 80n).toString());
        else if (value < 40) arcs.push('0', String(value));
        else if (value < 80) arcs.push('1', String(value - 40));
        else arcs.push('2', String(value - 80));
        first = false;
      } else {
        arcs.push(big !== undefined ? big.toString() : String(value));
      }
      value = 0;
      big = undefined;
    } else if (i === end - 1) {
      throw derError(what, 'OBJECT IDENTIFIER ends inside an arc', i);
    }
  }
  return arcs.join('.');
}

/** BIT STRING content: the unused-bit count and the bytes. */
export function readBitString(buf: Buffer, tlv: Tlv, what: string): { unusedBits: number; bytes: Buffer } {
  if (tlv.end === tlv.valueStart) throw derError(what, 'empty BIT STRING', tlv.start);
  const unusedBits = buf[tlv.valueStart];
  if (unusedBits > 7) throw derError(what, 'BIT STRING with more than 7 unused bits', tlv.start);
  if (unusedBits > 0 && tlv.end - tlv.valueStart === 1)
    throw derError(what, 'empty BIT STRING with unused bits', tlv.start);
  return { unusedBits, bytes: buf.subarray(tlv.valueStart + 1, tlv.end) };
}

const DIGITS = /^[0-9]+$/;

/** UTCTime (YYMMDDHHMMSSZ) or GeneralizedTime (YYYYMMDDHHMMSS[.f]Z), as RFC 5280 and 6960 use them. */
export function readTime(buf: Buffer, tlv: Tlv, what: string): Date {
  const text = buf.toString('latin1', tlv.valueStart, tlv.end);
  let year: number;
  let rest: string;
  if (tlv.tag === Tag.UtcTime) {
    if (text.length !== 13 || text[12] !== 'Z' || !DIGITS.test(text.slice(0, 12))) {
      throw derError(what, `malformed UTCTime ${JSON.stringify(text)}`, tlv.start);
    }
    const yy = Number(text.slice(0, 2));
    year = yy >= 50 ? 1900 + yy : 2000 + yy;
    rest = text.slice(2, 12);
  } else if (tlv.tag === Tag.GeneralizedTime) {
    const match = /^([0-9]{14})(\.[0-9]{1,9})?Z$/.exec(text);
    if (!match) throw derError(what, `malformed GeneralizedTime ${JSON.stringify(text)}`, tlv.start);
    year = Number(text.slice(0, 4));
    rest = match[1].slice(4) + (match[2] ?? '');
  } else {
    throw derError(what, `expected a time, found ${tagName(tlv.tag)}`, tlv.start);
  }
  const month = Number(rest.slice(0, 2));
  const day = Number(rest.slice(2, 4));
  const hour = Number(rest.slice(4, 6));
  const minute = Number(rest.slice(6, 8));
  const second = Number(rest.slice(8, 10));
  const millis = rest.length > 10 ? Math.floor(Number(`0${rest.slice(10)}`) * 1000) : 0;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  if (
    month < 1 ||
    month > 12 ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    throw derError(what, `invalid date ${JSON.stringify(text)}`, tlv.start);
  }
  return date;
}

/** The directory-string types that appear in names. */
export function readString(buf: Buffer, tlv: Tlv, what: string): string {
  const content = valueOf(buf, tlv);
  switch (tlv.tag) {
    case Tag.Utf8String:
      return decodeUtf8(content, what, tlv.start);
    case Tag.PrintableString:
    case Tag.Ia5String:
    case Tag.NumericString:
    case Tag.VisibleString:
      for (const b of content) {
        if (b > 0x7f) throw derError(what, `non-ASCII octet in ${tagName(tlv.tag)}`, tlv.start);
      }
      return content.toString('latin1');
    case Tag.TeletexString:
      return content.toString('latin1');
    case Tag.BmpString: {
      if (content.length % 2) throw derError(what, 'BMPString of odd length', tlv.start);
      const swapped = Buffer.from(content);
      swapped.swap16();
      return swapped.toString('utf16le');
    }
    case Tag.UniversalString: {
      if (content.length % 4) throw derError(what, 'UniversalString length not a multiple of 4', tlv.start);
      let out = '';
      for (let i = 0; i < content.length; i += 4) {
        const cp = content.readUInt32BE(i);
        if (cp > 0x10ffff) throw derError(what, 'UniversalString code point out of range', tlv.start);
        out += String.fromCodePoint(cp);
      }
      return out;
    }
    default:
      throw derError(what, `expected a string, found ${tagName(tlv.tag)}`, tlv.start);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: Buffer, what: string, offset: number): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw derError(what, 'invalid UTF-8 in UTF8String', offset);
  }
}

const TAG_NAMES: Record<number, string> = {
  [Tag.Boolean]: 'BOOLEAN',
  [Tag.Integer]: 'INTEGER',
  [Tag.BitString]: 'BIT STRING',
  [Tag.OctetString]: 'OCTET STRING',
  [Tag.Null]: 'NULL',
  [Tag.Oid]: 'OBJECT IDENTIFIER',
  [Tag.Enumerated]: 'ENUMERATED',
  [Tag.Utf8String]: 'UTF8String',
  [Tag.PrintableString]: 'PrintableString',
  [Tag.Ia5String]: 'IA5String',
  [Tag.UtcTime]: 'UTCTime',
  [Tag.GeneralizedTime]: 'GeneralizedTime',
  [Tag.Sequence]: 'SEQUENCE',
  [Tag.Set]: 'SET',
};

export function tagName(tag: number | undefined): string {
  if (tag === undefined) return 'end of data';
  const known = TAG_NAMES[tag];
  if (known) return known;
  const cls = tag >> 6;
  const number = tag & 0x1f;
  const constructed = tag & 0x20 ? ' constructed' : '';
  if (cls === 2) return `[${number}]${constructed}`;
  return `tag 0x${tag.toString(16).padStart(2, '0')}`;
}
