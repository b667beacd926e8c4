import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sequence } from './der';
import { issuerAndSerialParts, readIssuerAndSerialNumber } from '../der-reader';

describe('readIssuerAndSerialNumber (RFC 5652 10.2.4, what GetCert carries)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'der-reader-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-keyout',
      join(dir, 'k.pem'),
      '-out',
      join(dir, 'c.der'),
      '-outform',
      'DER',
      '-subj',
      '/CN=der reader/O=Test',
      '-set_serial',
      '0x00ff0102',
    ],
    { stdio: 'ignore' },
  );
  const certificate = readFileSync(join(dir, 'c.der'));

  it("reads back a certificate's issuer Name and serialNumber as their DER", () => {
    const { issuer, serial } = issuerAndSerialParts(certificate);
    expect(readIssuerAndSerialNumber(sequence(issuer, serial))).toEqual({ issuer, serial });
    expect(serial.toString('hex')).toBe('020400ff0102');
  });

  it('refuses anything else: trailing bytes, a third element, wrong tags, not DER at all', () => {
    const { issuer, serial } = issuerAndSerialParts(certificate);
    expect(() =>
      readIssuerAndSerialNumber(Buffer.concat([sequence(issuer, serial), Buffer.from([0])])),
    ).toThrow();
    expect(() => readIssuerAndSerialNumber(sequence(issuer, serial, serial))).toThrow();
    expect(() => readIssuerAndSerialNumber(sequence(serial, issuer))).toThrow();
    expect(() => readIssuerAndSerialNumber(Buffer.from('not asn.1'))).toThrow();
  });
});
