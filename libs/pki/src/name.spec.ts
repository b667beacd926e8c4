import { Tag } from './der/tags';
import { oid, sequence, set, tlv } from './der/writer';
import { PkiError } from './errors';
import { encodeName, parseName } from './name';
import { Oid } from './oids';

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof PkiError) return error.code;
    throw error;
  }
  return undefined;
}

describe(encodeName.name, () => {
  it('encodes C as PrintableString, emailAddress as IA5String, the rest as UTF8String', () => {
    const der = encodeName([
      ['C', 'DE'],
      ['O', 'Bäckerei'],
      ['emailAddress', 'pki@example.test'],
      ['CN', 'Root'],
    ]);
    expect(der.includes(Buffer.from([Tag.PrintableString, 2, 0x44, 0x45]))).toBe(true);
    expect(der.includes(tlv(Tag.Utf8String, Buffer.from('Bäckerei')))).toBe(true);
    expect(der.includes(tlv(Tag.Ia5String, Buffer.from('pki@example.test')))).toBe(true);
    const name = parseName(der);
    expect(name.text).toBe('CN=Root,emailAddress=pki@example.test,O=Bäckerei,C=DE');
    expect(name.attributes.map((a) => a.shortName)).toEqual(['C', 'O', 'emailAddress', 'CN']);
  });

  it('escapes RFC 4514 special characters in text', () => {
    expect(parseName(encodeName([['CN', 'a,b+c "q" #x']])).text).toBe('CN=a\\,b\\+c \\"q\\" #x');
    expect(parseName(encodeName([['CN', '#lead']])).text).toBe('CN=\\#lead');
  });

  it('takes dotted OIDs as attribute types', () => {
    expect(parseName(encodeName([['2.5.4.3', 'x']])).commonName).toBe('x');
    expect(parseName(encodeName([['1.3.6.1.4.1.99999.7', 'y']])).text).toBe('1.3.6.1.4.1.99999.7=y');
  });

  it.each([
    [[['C', 'Germany']]],
    [[['C', 'de']]],
    [[['XX', 'value']]],
    [[['CN', '']]],
    [[['CN', 'a'.repeat(65)]]],
    [[['CN', 'line\nbreak']]],
    [[['serialNumber', 'not*printable']]],
    [[['emailAddress', 'ü@example.test']]],
  ] as const)('refuses %j with name_invalid', (input) => {
    expect(code(() => encodeName(input))).toBe('name_invalid');
  });
});

describe(parseName.name, () => {
  it('reads BMPString, TeletexString and UniversalString values and multi-valued RDNs', () => {
    const bmp = Buffer.from('Zürich', 'utf16le').swap16();
    const universal = Buffer.alloc(8);
    universal.writeUInt32BE(0x1f600, 0);
    universal.writeUInt32BE(0x41, 4);
    const der = sequence(
      set(
        sequence(oid(Oid.organizationName), tlv(Tag.BmpString, bmp)),
        sequence(
          oid(Oid.organizationalUnitName),
          tlv(Tag.TeletexString, Buffer.from([0x63, 0x61, 0x66, 0xe9])),
        ),
      ),
      set(sequence(oid(Oid.commonName), tlv(Tag.UniversalString, universal))),
    );
    const name = parseName(der);
    expect(name.attributes.map((a) => [a.shortName, a.value, a.rdn])).toEqual([
      ['O', 'Zürich', 0],
      ['OU', 'café', 0],
      ['CN', '😀A', 1],
    ]);
    expect(name.text).toBe('CN=😀A,O=Zürich+OU=café');
  });

  it.each([
    [
      'invalid UTF-8',
      sequence(set(sequence(oid(Oid.commonName), tlv(Tag.Utf8String, Buffer.from([0xc3, 0x28]))))),
    ],
    ['an empty RDN', sequence(set())],
    [
      'an RDN that is not a SET',
      sequence(sequence(sequence(oid(Oid.commonName), tlv(Tag.Utf8String, Buffer.from('x'))))),
    ],
    [
      'a BMPString of odd length',
      sequence(set(sequence(oid(Oid.commonName), tlv(Tag.BmpString, Buffer.from([0, 0x41, 0]))))),
    ],
  ])('refuses %s with der_invalid', (_label, der) => {
    expect(code(() => parseName(der))).toBe('der_invalid');
  });

  it('shows a value of a non-string type as #hex', () => {
    const der = sequence(set(sequence(oid('1.2.3.4'), tlv(Tag.Integer, Buffer.from([5])))));
    expect(parseName(der).text).toBe('1.2.3.4=#020105');
  });
});
