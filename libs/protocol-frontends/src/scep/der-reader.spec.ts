import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { sequence } from './der';
import { certificateNotAfter, issuerAndSerialParts, readIssuerAndSerialNumber } from '../der-reader';

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

describe('certificateNotAfter (RFC 5280 4.1.2.5, what the SCEP retention purges by)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'der-not-after-'));
  const selfSigned = (days: number): Buffer => {
    const out = join(dir, `${days}.der`);
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
        `${days}`,
      ].concat([
        '-keyout',
        join(dir, `${days}.key`),
        '-out',
        out,
        '-outform',
        'DER',
        '-subj',
        '/CN=not after',
      ]),
      { stdio: 'ignore' },
    );
    return readFileSync(out);
  };

  it.each([
    ['a UTCTime (before 2050)', 30],
    ['a GeneralizedTime (2050 and after)', 36_500],
  ])('reads %s as OpenSSL does', (_kind, days) => {
    const certificate = selfSigned(days);
    expect(certificateNotAfter(certificate).getTime()).toBe(
      Date.parse(new X509Certificate(certificate).validTo),
    );
  });

  it('refuses what is not a certificate', () => {
    expect(() => certificateNotAfter(Buffer.from('not asn.1'))).toThrow();
  });
});
