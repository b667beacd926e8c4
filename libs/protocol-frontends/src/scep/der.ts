/**
 * A few DER encoders (X.690): SCEP clients parse with strict DER decoders (Go's encoding/asn1), so
 * the CertRep and its envelopes are written here in definite-length DER, not by pkijs (which
 * writes constructed OCTET STRINGs and indefinite lengths).
 */
export function tlv(tag: number, content: Buffer): Buffer {
  const length = content.length;
  let header: Buffer;
  if (length < 0x80) header = Buffer.from([tag, length]);
  else {
    const bytes: number[] = [];
    for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
    header = Buffer.from([tag, 0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([header, content]);
}

export const sequence = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));

/** A DER SET OF: its elements sorted by their encodings (X.690 11.6). */
export const setOf = (...items: Buffer[]): Buffer =>
  tlv(0x31, Buffer.concat([...items].sort(Buffer.compare)));

export const octetString = (bytes: Buffer): Buffer => tlv(0x04, bytes);
export const printableString = (value: string): Buffer => tlv(0x13, Buffer.from(value, 'latin1'));
export const nullValue = (): Buffer => Buffer.from([0x05, 0x00]);
export const integer = (value: number): Buffer => tlv(0x02, Buffer.from([value]));
/** [n] EXPLICIT or constructed IMPLICIT context tag. */
export const context = (n: number, content: Buffer): Buffer => tlv(0xa0 + n, content);

export function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const bytes: number[] = [parts[0] * 40 + parts[1]];
  for (const part of parts.slice(2)) {
    const chunk: number[] = [part & 0x7f];
    for (let n = Math.floor(part / 128); n > 0; n = Math.floor(n / 128)) chunk.unshift((n & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

export const algorithm = (dotted: string, params: Buffer | null = nullValue()): Buffer =>
  sequence(oid(dotted), ...(params ? [params] : []));
