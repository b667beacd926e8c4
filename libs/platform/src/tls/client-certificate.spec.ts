import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyClientCertificate } from './client-certificate';

const dir = mkdtempSync(join(tmpdir(), 'client-cert-'));
const path = (name: string) => join(dir, name);
const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
const CA_EXT = 'basicConstraints=critical,CA:TRUE\nkeyUsage=keyCertSign,cRLSign\n';

function root(name: string): void {
  openssl(
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes']
      .concat(['-keyout', path(`${name}.key`), '-out', path(`${name}.pem`), '-subj', `/CN=${name}`])
      .concat([
        '-days',
        '2',
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=keyCertSign',
      ]),
  );
}
function issue(name: string, issuer: string, extensions: string, days = 2): void {
  openssl(
    ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'].concat([
      '-keyout',
      path(`${name}.key`),
      '-out',
      path(`${name}.csr`),
      '-subj',
      `/CN=${name}`,
    ]),
  );
  writeFileSync(path(`${name}.ext`), extensions);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      path(`${name}.csr`),
      '-CA',
      path(`${issuer}.pem`),
      '-CAkey',
      path(`${issuer}.key`),
    ]
      .concat(['-set_serial', String(Date.now()), '-out', path(`${name}.pem`), '-days', String(days)])
      .concat(['-extfile', path(`${name}.ext`)]),
  );
}
const der = (name: string) => new X509Certificate(readFileSync(path(`${name}.pem`))).raw.toString('base64');
const cert = (name: string) => new X509Certificate(readFileSync(path(`${name}.pem`)));

describe('verifyClientCertificate (ADR 0061, RFC 5280 6 reduced to client chains)', () => {
  // openssl starts validity at the second of issuance: check after the certificates exist.
  let now: Date;
  beforeAll(() => {
    root('Root');
    root('Other');
    issue('Int', 'Root', CA_EXT);
    issue('device', 'Int', 'extendedKeyUsage=clientAuth\n');
    issue('direct', 'Root', 'keyUsage=digitalSignature\n');
    issue('server', 'Int', 'extendedKeyUsage=serverAuth\n');
    issue('subca', 'Int', CA_EXT);
    issue('stranger', 'Other', 'extendedKeyUsage=clientAuth\n');
    now = new Date(Date.now() + 1000);
  });

  it('accepts a leaf with its intermediate up to an anchor, and names the leaf by its SHA-256', () => {
    const check = verifyClientCertificate([der('device'), der('Int')], [cert('Other'), cert('Root')], now);
    expect(check).toEqual({
      ok: true,
      leaf: expect.anything(),
      fingerprint: cert('device').fingerprint256.replace(/:/g, '').toLowerCase(),
    });
    expect(check.ok && check.leaf.subject).toBe('CN=device');
  });

  it('accepts a leaf issued by an anchor directly, and an intermediate as the anchor', () => {
    expect(verifyClientCertificate([der('direct')], [cert('Root')], now).ok).toBe(true);
    expect(verifyClientCertificate([der('device')], [cert('Int')], now).ok).toBe(true);
  });

  it.each<[string, () => string[], string]>([
    ['nothing presented', () => [], 'no client certificate was presented'],
    ['garbage', () => ['AAAA'], 'a presented certificate does not parse'],
    [
      'a certificate of another CA',
      () => [der('stranger')],
      'the client certificate does not chain to a trusted CA',
    ],
    [
      'a leaf without its intermediate',
      () => [der('device')],
      'the client certificate does not chain to a trusted CA',
    ],
    [
      'a CA certificate as the client',
      () => [der('subca'), der('Int')],
      'the client certificate is a CA certificate',
    ],
    [
      'a leaf whose EKU excludes clientAuth',
      () => [der('server'), der('Int')],
      'the client certificate does not allow client authentication',
    ],
  ])('refuses %s', (_, presented, reason) => {
    expect(verifyClientCertificate(presented(), [cert('Root')], now)).toEqual({ ok: false, reason });
  });

  it('refuses a leaf outside its validity', () => {
    const later = new Date(Date.now() + 5 * 86_400_000);
    expect(verifyClientCertificate([der('device'), der('Int')], [cert('Root')], later)).toEqual({
      ok: false,
      reason: 'the client certificate is expired or not yet valid',
    });
  });

  it('does not take an intermediate that is not a CA as a step', () => {
    expect(verifyClientCertificate([der('device'), der('direct')], [cert('Root')], now).ok).toBe(false);
  });
});
