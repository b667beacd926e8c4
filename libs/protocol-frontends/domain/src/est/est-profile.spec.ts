import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { estProfileProblems, EstProfileSettings } from './est-profile-rules';
import { hashEstPassword, verifyEstPassword } from './est-password';
import { parseTrustBundle } from './trust-bundle';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

async function certificate(ca: boolean): Promise<string> {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(algorithm, false, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: ca ? '01' : '02',
    name: ca ? 'CN=EST Test CA' : 'CN=device.example',
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 86_400_000),
    signingAlgorithm: algorithm,
    keys: keys as unknown as Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[0]['keys'],
    extensions: [new x509.BasicConstraintsExtension(ca, undefined, true)],
  });
  return cert.toString('pem') + '\n';
}

describe('EST profile rules (ADR 0058)', () => {
  const base: EstProfileSettings = {
    auth_methods: ['basic'],
    basic_username: 'router',
    basic_password_set: true,
    trust_bundle_pem: null,
  };

  it.each<[string, Partial<EstProfileSettings>, string[]]>([
    ['basic with username and password', {}, []],
    [
      'RFC 7030 3.2.3: basic without a username',
      { basic_username: null },
      ['basic authentication needs basic_username'],
    ],
    [
      'RFC 7030 3.2.3: basic without a password',
      { basic_password_set: false },
      ['basic authentication needs basic_password'],
    ],
    [
      'RFC 7030 3.3.2: mtls without a trust bundle',
      { auth_methods: ['mtls'], basic_username: null, basic_password_set: false },
      ['mtls authentication needs trust_bundle_pem'],
    ],
    [
      'mtls with a trust bundle',
      { auth_methods: ['mtls'], basic_username: null, basic_password_set: false, trust_bundle_pem: 'x' },
      [],
    ],
    ['both methods, both configured', { auth_methods: ['basic', 'mtls'], trust_bundle_pem: 'x' }, []],
    [
      'basic credentials on an mtls-only profile',
      { auth_methods: ['mtls'], trust_bundle_pem: 'x' },
      ['basic_username and basic_password are only for basic authentication'],
    ],
    [
      'no method at all',
      { auth_methods: [], basic_username: null, basic_password_set: false },
      ['auth_methods must name at least one method'],
    ],
  ])('%s', (_, change, problems) => {
    expect(estProfileProblems({ ...base, ...change })).toEqual(problems);
  });
});

describe('EST Basic passwords', () => {
  it('stores a salted scrypt hash that verifies the password and nothing else', async () => {
    const stored = hashEstPassword('correct horse battery');
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(stored).not.toContain('correct horse battery');
    expect(await verifyEstPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyEstPassword('correct horse batterY', stored)).toBe(false);
    expect(hashEstPassword('correct horse battery')).not.toBe(stored);
  });

  it('matches nothing against a malformed or tampered hash', async () => {
    const stored = hashEstPassword('correct horse battery');
    expect(await verifyEstPassword('correct horse battery', 'plain')).toBe(false);
    expect(await verifyEstPassword('correct horse battery', stored.replace('scrypt', 'bcrypt'))).toBe(false);
    expect(await verifyEstPassword('correct horse battery', stored.replace('$16384$', '$99999999$'))).toBe(
      false,
    );
    expect(await verifyEstPassword('correct horse battery', stored.slice(0, -4))).toBe(false);
  });
});

describe('EST trust bundles (RFC 7030 3.3.2)', () => {
  let ca: string;
  let other: string;
  let leaf: string;
  beforeAll(async () => {
    [ca, other, leaf] = await Promise.all([certificate(true), certificate(true), certificate(false)]);
  });

  it('reads every CA certificate of a bundle, CRLF tolerated', () => {
    const bundle = parseTrustBundle(ca + other);
    expect(bundle.ok && bundle.anchors.map((a) => a.subject)).toEqual(['CN=EST Test CA', 'CN=EST Test CA']);
    const crlf = parseTrustBundle(ca.replace(/\n/g, '\r\n'));
    expect(crlf.ok && crlf.anchors).toHaveLength(1);
  });

  it.each([
    ['an empty bundle', () => '', 'the bundle holds no certificate'],
    ['text outside the blocks', () => `${ca}garbage\n`, 'the bundle holds text outside CERTIFICATE blocks'],
    [
      'a private key',
      () => '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n',
      'the bundle holds text outside CERTIFICATE blocks',
    ],
    [
      'a certificate that does not parse',
      () => '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
      'certificate 1 does not parse',
    ],
    ['a certificate that is not a CA', () => ca + leaf, 'certificate 2 is not a CA certificate'],
  ])('refuses the whole bundle for %s', (_, text, reason) => {
    expect(parseTrustBundle(text())).toEqual({ ok: false, reason });
  });
});
