import { DerCursor, readOid, readRoot, readTime, readTlv } from './reader';
import { Tag } from './tags';
import {
  generalizedTime,
  namedBits,
  oid,
  sequence,
  smallInteger,
  tlv,
  unsignedInteger,
  utcTime,
  x509Time,
} from './writer';
import { PkiError } from '../errors';

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof PkiError) return error.code;
    throw error;
  }
  return undefined;
}

describe('DER writer', () => {
  it.each([0, 1, 127, 128, 255, 256, 65535, 65536, 0xffffff, 0x1000000])(
    'round-trips a content length of %d',
    (length) => {
      const encoded = tlv(Tag.OctetString, Buffer.alloc(length, 7));
      const parsed = readRoot(encoded, Tag.OctetString, 'test');
      expect(parsed.end - parsed.valueStart).toBe(length);
      expect(parsed.end).toBe(encoded.length);
    },
  );

  it.each([
    ['1.2.840.113549.1.1.11', '06092a864886f70d01010b'],
    ['2.5.29.17', '0603551d11'],
    ['1.3.6.1.5.5.7.48.1.1', '06092b0601050507300101'],
    ['2.999.3', '0603883703'],
    ['0.9.2342.19200300.100.1.25', '060a0992268993f22c640119'],
  ])('encodes and decodes OID %s', (dotted, hex) => {
    expect(oid(dotted).toString('hex')).toBe(hex);
    const buf = Buffer.from(hex, 'hex');
    expect(readOid(buf, readRoot(buf, Tag.Oid, 'test'), 'test')).toBe(dotted);
  });

  it('decodes OID arcs larger than 2^53 without losing precision', () => {
    const dotted = '2.25.329800735698586629295641978511506172918';
    const encoded = oid(dotted);
    expect(readOid(encoded, readRoot(encoded, Tag.Oid, 'test'), 'test')).toBe(dotted);
  });

  it.each([
    [[0x01], '020101'],
    [[0x80], '02020080'],
    [[0x00, 0x00, 0x7f], '02017f'],
    [[], '020100'],
  ])('encodes the unsigned magnitude %j as %s', (bytes, hex) => {
    expect(unsignedInteger(Buffer.from(bytes)).toString('hex')).toBe(hex);
  });

  it('encodes small integers minimally', () => {
    expect(smallInteger(0).toString('hex')).toBe('020100');
    expect(smallInteger(128).toString('hex')).toBe('02020080');
    expect(smallInteger(65537).toString('hex')).toBe('0203010001');
  });

  it('encodes named bits with the DER minimal unused-bit count', () => {
    expect(namedBits([0]).toString('hex')).toBe('03020780'); // digitalSignature
    expect(namedBits([5, 6]).toString('hex')).toBe('03020106'); // keyCertSign, cRLSign
    expect(namedBits([0, 8]).toString('hex')).toBe('0303078080'); // digitalSignature, decipherOnly
  });

  it('encodes times with whole seconds, UTCTime until 2049', () => {
    const date = new Date('2030-02-03T04:05:06.789Z');
    expect(utcTime(date).toString('latin1', 2)).toBe('300203040506Z');
    expect(generalizedTime(date).toString('latin1', 2)).toBe('20300203040506Z');
    expect(x509Time(new Date('2050-01-01T00:00:00Z'))[0]).toBe(Tag.GeneralizedTime);
    expect(code(() => utcTime(new Date('2050-01-01T00:00:00Z')))).toBe('profile_invalid');
    expect(code(() => x509Time(new Date(NaN)))).toBe('profile_invalid');
  });
});

describe('DER reader', () => {
  const valid = sequence(smallInteger(1), oid('2.5.4.3'));

  it('reads a well-formed structure', () => {
    const root = readRoot(valid, Tag.Sequence, 'test');
    const cursor = DerCursor.of(valid, root, 'test');
    expect(cursor.next(Tag.Integer).end).toBe(5);
    expect(readOid(valid, cursor.next(Tag.Oid), 'test')).toBe('2.5.4.3');
    expect(() => cursor.end()).not.toThrow();
  });

  it.each([
    ['empty input', ''],
    ['a lone tag', '30'],
    ['a length beyond the data', '3005020101'],
    ['long-form length octets cut off', '3082'],
    ['a nested length beyond its parent', '3003020501'],
  ])('reports %s as der_truncated', (_label, hex) => {
    const buf = Buffer.from(hex, 'hex');
    expect(
      code(() => {
        const root = readRoot(buf, Tag.Sequence, 'test');
        DerCursor.of(buf, root, 'test').rest();
      }),
    ).toBe('der_truncated');
  });

  it.each([
    ['indefinite length', '3080020101000000'],
    ['a non-minimal long-form length', '3081030201010000'],
    ['a length with a leading zero octet', '308200030201010000'],
    ['a high tag number', '1f8101020101'],
    ['trailing bytes', '3003020101ff'],
    ['a wrong outer tag', '3103020101'],
    ['a length of more than four octets', '3085000000000300'],
  ])('reports %s as der_invalid', (_label, hex) => {
    const buf = Buffer.from(hex, 'hex');
    expect(code(() => readRoot(buf, Tag.Sequence, 'test'))).toBe('der_invalid');
  });

  it('never reads past the limit it is given', () => {
    const buf = Buffer.from('3003020101', 'hex');
    expect(code(() => readTlv(buf, 0, 3, 'test'))).toBe('der_truncated');
  });

  it.each([
    ['0603', 'an OID arc with a leading 0x80', '06028001'],
    ['0603', 'an OID ending inside an arc', '06022a86'],
    ['0603', 'an empty OID', '0600'],
  ])('%s: refuses %s', (_t, _label, hex) => {
    const buf = Buffer.from(hex, 'hex');
    expect(code(() => readOid(buf, readRoot(buf, Tag.Oid, 'test'), 'test'))).toBe('der_invalid');
  });

  it.each([
    ['170d3330303233313030303030305a', 'February 31'],
    ['170d3330303130313234303030305a', 'hour 24'],
    ['170c333030313031303030303030', 'no Z'],
    ['180f323033303031303130303030303041', 'a letter instead of Z'],
    ['0403414243', 'an OCTET STRING'],
  ])('refuses the time %s (%s)', (hex) => {
    const buf = Buffer.from(hex, 'hex');
    expect(code(() => readTime(buf, readTlv(buf, 0, buf.length, 'test'), 'test'))).toBe('der_invalid');
  });

  it('reads UTCTime years 50-99 as 19xx and 00-49 as 20xx', () => {
    const a = Buffer.from(`170d${Buffer.from('500101000000Z').toString('hex')}`, 'hex');
    const b = Buffer.from(`170d${Buffer.from('491231235959Z').toString('hex')}`, 'hex');
    expect(readTime(a, readTlv(a, 0, a.length, 't'), 't').toISOString()).toBe('1950-01-01T00:00:00.000Z');
    expect(readTime(b, readTlv(b, 0, b.length, 't'), 't').toISOString()).toBe('2049-12-31T23:59:59.000Z');
  });

  it('survives every truncation and every single-byte corruption of a real structure with a PkiError', () => {
    const sample = sequence(
      sequence(oid('1.2.840.10045.2.1'), oid('1.2.840.10045.3.1.7')),
      tlv(Tag.BitString, Buffer.alloc(66, 4)),
    );
    const walk = (buf: Buffer) => {
      const root = readRoot(buf, Tag.Sequence, 'fuzz');
      const cursor = DerCursor.of(buf, root, 'fuzz');
      for (const child of cursor.rest()) if (child.tag & 0x20) DerCursor.of(buf, child, 'fuzz').rest();
    };
    for (let cut = 0; cut < sample.length; cut++) {
      expect(code(() => walk(sample.subarray(0, cut)))).toMatch(/^der_/);
    }
    for (let i = 0; i < sample.length; i++) {
      for (const value of [0x00, 0x80, 0xff, 0x1f, 0x84]) {
        const corrupted = Buffer.from(sample);
        corrupted[i] = value;
        expect(() => code(() => walk(corrupted))).not.toThrow();
      }
    }
  });
});
