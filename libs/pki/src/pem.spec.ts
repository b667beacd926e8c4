import { PkiError } from './errors';
import {
  PemLabel,
  decodeAll,
  decodeSingle,
  parsePemBlocks,
  pemCertificateBlocks,
  toPem,
  withTrailingNewline,
} from './pem';

const der = Buffer.from('3003020101', 'hex');
const other = Buffer.from('3003020102', 'hex');
const pem = toPem('CERTIFICATE', der);

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof PkiError) return error.code;
    throw error;
  }
  return undefined;
}

const single = (input: string | Buffer, labels: string[] = [PemLabel.certificate]) =>
  decodeSingle(input, labels, { maxBytes: 4096, what: 'test' });

describe('PEM', () => {
  it('writes 64-character lines with a final newline', () => {
    const long = toPem('CERTIFICATE', Buffer.alloc(100, 1));
    const lines = long.split('\n');
    expect(lines[0]).toBe('-----BEGIN CERTIFICATE-----');
    expect(lines[1]).toHaveLength(64);
    expect(long.endsWith('-----END CERTIFICATE-----\n')).toBe(true);
  });

  it.each([
    ['LF', pem],
    ['CRLF', pem.replace(/\n/g, '\r\n')],
    ['CR only', pem.replace(/\n/g, '\r')],
    ['trailing newlines', `${pem}\n\n\n`],
    ['no final newline', pem.trimEnd()],
    ['leading text and indentation', `subject=CN = x\nissuer=CN = y\n  ${pem.replace(/\n/g, '\n  ')}`],
    ['a Buffer', Buffer.from(pem)],
  ])('reads a block with %s', (_label, input) => {
    expect(single(input)).toEqual(der);
  });

  it('reads bare base64 (as EST sends it) and DER', () => {
    expect(single(der.toString('base64'))).toEqual(der);
    expect(single(`${der.toString('base64')}\r\n`)).toEqual(der);
    expect(single(der)).toEqual(der);
  });

  it('reads bundles in order and picks the one block with the wanted label', () => {
    const bundle = `${toPem('PRIVATE KEY', other)}${pem}`;
    expect(single(bundle)).toEqual(der);
    const blocks = parsePemBlocks(`${pem}\r\n${toPem('CERTIFICATE', other)}`);
    expect(blocks.map((b) => b.der)).toEqual([der, other]);
    expect(
      decodeAll(`${pem}garbage between\n${toPem('CERTIFICATE', other)}`, ['CERTIFICATE'], { what: 'bundle' }),
    ).toEqual([der, other]);
  });

  it('reports a wrong label as pem_label_mismatch', () => {
    expect(code(() => single(toPem('PRIVATE KEY', der)))).toBe('pem_label_mismatch');
    expect(code(() => single(pem, [PemLabel.certificateRequest]))).toBe('pem_label_mismatch');
  });

  it('refuses two blocks where one is expected', () => {
    expect(code(() => single(pem + pem))).toBe('pem_invalid');
  });

  it.each([
    ['an END label that does not match', pem.replace('END CERTIFICATE', 'END X509 CRL')],
    ['a missing END line', pem.replace('-----END CERTIFICATE-----\n', '')],
    ['characters outside base64', pem.replace('MAMCAQE', 'MA*CAQE')],
    ['base64 of a wrong length', pem.replace('MAMCAQE=', 'MAMCAQ')],
    ['RFC 1421 headers', pem.replace('-----\n', '-----\nProc-Type: 4,ENCRYPTED\n')],
    ['a BEGIN inside a block', pem.replace('MAMCAQE=', '-----BEGIN CERTIFICATE-----')],
    ['a malformed BEGIN line', '-----BEGIN CERTIFICATE----\nMAMCAQE=\n-----END CERTIFICATE-----\n'],
    ['nothing at all', ''],
    ['text that is not base64', 'hello world'],
  ])('reports %s as pem_invalid', (_label, input) => {
    expect(code(() => single(input))).toBe('pem_invalid');
  });

  it('reports input over the limit as input_too_large before parsing it', () => {
    expect(code(() => single('A'.repeat(100_000)))).toBe('input_too_large');
    expect(
      code(() => single(Buffer.concat([Buffer.from([0x30, 0x82, 0x13, 0x88]), Buffer.alloc(5000)]))),
    ).toBe('input_too_large');
    expect(code(() => parsePemBlocks('x'.repeat(2 * 1024 * 1024)))).toBe('input_too_large');
  });

  it('handles a megabyte of hostile text in linear time', () => {
    const started = Date.now();
    expect(code(() => parsePemBlocks(`-----BEGIN ${'A '.repeat(400_000)}`))).toBe('pem_invalid');
    expect(code(() => parsePemBlocks('-----BEGIN X-----\n' + 'QUFB\n'.repeat(200_000)))).toBe('pem_invalid');
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('PEM text helpers', () => {
  const block = (name: string) => `-----BEGIN CERTIFICATE-----\n${name}\n-----END CERTIFICATE-----\n`;

  it('withTrailingNewline adds a newline only where one is missing', () => {
    expect(withTrailingNewline('a')).toBe('a\n');
    expect(withTrailingNewline('a\n')).toBe('a\n');
    expect(withTrailingNewline('')).toBe('\n');
  });

  it('pemCertificateBlocks splits a bundle into its certificate blocks, each ending with one newline', () => {
    const chain = block('issuing') + block('intermediate') + block('root');
    expect(pemCertificateBlocks(chain)).toEqual([block('issuing'), block('intermediate'), block('root')]);
    expect(pemCertificateBlocks(block('a').trimEnd())).toEqual([block('a')]);
  });

  it('pemCertificateBlocks drops what is around and between the blocks, and other labels', () => {
    const key = '-----BEGIN PRIVATE KEY-----\nk\n-----END PRIVATE KEY-----\n';
    expect(pemCertificateBlocks(`subject=CN=a\n${block('a')}\r\n\n${key}${block('b')}trailing`)).toEqual([
      block('a'),
      block('b'),
    ]);
    expect(pemCertificateBlocks('no certificate here')).toEqual([]);
  });
});
