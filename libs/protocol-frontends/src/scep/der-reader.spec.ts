import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { sequence } from './der';
import { certificateNotAfter, issuerAndSerialParts, readIssuerAndSerialNumber } from '../der-reader';

const dir = mkdtempSync(join(tmpdir(), 'der-reader-'));

/** A self-signed P-256 certificate (DER) made by the openssl CLI. */
function selfSigned(name: string, days: number, extra: string[] = []): Buffer {
  const out = join(dir, `${name}.der`);
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', `${days}`]
      .concat(['-keyout', join(dir, `${name}.key`), '-out', out, '-outform', 'DER', '-subj', `/CN=${name}`])
      .concat(extra),
    { stdio: 'ignore' },
  );
  return readFileSync(out);
}

describe('readIssuerAndSerialNumber (RFC 5652 10.2.4, what GetCert carries)', () => {
  const certificate = selfSigned('der-reader', 1, ['-set_serial', '0x00ff0102']);

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
  it.each([
    ['a UTCTime (before 2050)', 30],
    ['a GeneralizedTime (2050 and after)', 36_500],
  ])('reads %s as OpenSSL does', (_kind, days) => {
    const certificate = selfSigned(`not-after-${days}`, days);
    expect(certificateNotAfter(certificate).getTime()).toBe(
      Date.parse(new X509Certificate(certificate).validTo),
    );
  });

  it('refuses what is not a certificate', () => {
    expect(() => certificateNotAfter(Buffer.from('not asn.1'))).toThrow();
  });
});
