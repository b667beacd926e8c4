import { spawnSync } from 'node:child_process';
import forge from 'node-forge';
import { parseCsr } from './csr';
import { buildPkcs12, pkcs12Aliases, pkcs12Kdf } from './pkcs12';
import { templateFromCsr } from './profile';
import { TestPki, createTestPki } from './testing/fixtures';
import { KEY_ARGS, OpenSslWorkspace } from './testing/openssl';
import { Certificate, certificatePem, parseCertificate } from './certificate';

let ws: OpenSslWorkspace;
let pki: TestPki;
let leaf: Certificate;

beforeAll(async () => {
  ws = new OpenSslWorkspace();
  pki = await createTestPki();
  const { csrPem } = ws.csr('leaf', [...KEY_ARGS['P-256']], '/CN=p12.example.test');
  leaf = parseCertificate((await pki.ca.issue(templateFromCsr(parseCsr(csrPem)))).der);
});
afterAll(() => ws.remove());

const chain = () => [pki.intermediate, pki.root];

/** `keytool -list` of a PKCS#12 file: each entry's alias, type and SHA-256 fingerprint, in order. */
function keytoolList(file: string, storePassword: string): { output: string; entries: string[][] } {
  const result = spawnSync(
    'keytool',
    // English dates ("Nov 24, 2026") whatever the machine's locale.
    [
      '-J-Duser.language=en',
      '-J-Duser.country=US',
      '-list',
      '-storetype',
      'PKCS12',
      '-keystore',
      ws.path(file),
      '-storepass',
      storePassword,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  const output = `${result.stdout}\n${result.stderr}`;
  expect({ status: result.status, output }).toEqual({ status: 0, output });
  const entries = [
    ...result.stdout.matchAll(
      /^(.+), \w{3} \d{1,2}, \d{4}, (\w+),\s*\nCertificate fingerprint \(SHA-256\): ([0-9A-F:]+)$/gm,
    ),
  ].map(([, alias, type, fingerprint]) => [alias, type, fingerprint.replace(/:/g, '').toLowerCase()]);
  return { output, entries };
}

describe(buildPkcs12.name, () => {
  it('with a password: openssl reads three certificate bags, AES-256 PBES2, SHA-256 MAC, and no key', () => {
    ws.write(
      'pw.p12',
      buildPkcs12(leaf, chain(), { password: 'correct horse', friendlyName: 'p12.example.test' }),
    );
    const info = ws.run(['pkcs12', '-info', '-nokeys', '-in', 'pw.p12', '-passin', 'pass:correct horse']);
    expect(info.status).toBe(0);
    expect(info.output).toMatch(/MAC: sha256, Iteration 2048/);
    expect(info.output).toMatch(
      /PKCS7 Encrypted data: PBES2, PBKDF2, AES-256-CBC, Iteration 10000, PRF hmacWithSHA256/,
    );
    expect(info.output.match(/Certificate bag/g)).toHaveLength(3);
    expect(info.output).toContain('friendlyName: p12.example.test');
    expect(info.output).not.toMatch(/Key bag|Shrouded Keybag|PRIVATE KEY/);
    // -noout: the structure only; still no key bag anywhere.
    const structure = ws.run(['pkcs12', '-info', '-noout', '-in', 'pw.p12', '-passin', 'pass:correct horse']);
    expect(structure.status).toBe(0);
    expect(structure.output).not.toMatch(/Key bag|Shrouded Keybag/);
    // The certificates come out in order: leaf, intermediate, root.
    const subjects = [...info.stdout.matchAll(/^subject=(.*)$/gm)].map((m) => m[1]);
    expect(subjects).toEqual([
      'CN = p12.example.test',
      'C = US, O = Certlane Test, CN = Test Issuing CA ECDSA',
      'C = US, O = Certlane Test, CN = Test Root ECDSA',
    ]);
    const pems = info.stdout.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g);
    expect(pems).toEqual([certificatePem(leaf), certificatePem(pki.intermediate), certificatePem(pki.root)]);
  });

  it('refuses the wrong password (the MAC is checked)', () => {
    ws.write('wrong.p12', buildPkcs12(leaf, chain(), { password: 'right' }));
    const result = ws.run([
      'pkcs12',
      '-info',
      '-nokeys',
      '-noout',
      '-in',
      'wrong.p12',
      '-passin',
      'pass:wrong',
    ]);
    expect(result.status).not.toBe(0);
    expect(result.output).toMatch(/Mac verify error/);
  });

  it('with an empty password: openssl reads it with an empty passphrase', () => {
    ws.write('empty.p12', buildPkcs12(leaf, chain(), { password: '' }));
    const info = ws.run(['pkcs12', '-info', '-nokeys', '-in', 'empty.p12', '-passin', 'pass:']);
    expect(info.status).toBe(0);
    expect(info.output.match(/Certificate bag/g)).toHaveLength(3);
    expect(info.output).not.toMatch(/Key bag|Shrouded Keybag/);
  });

  it('with a non-ASCII password', () => {
    ws.write('utf8.p12', buildPkcs12(leaf, [], { password: 'pässwörd ✓' }));
    const info = ws.run([
      'pkcs12',
      '-info',
      '-nokeys',
      '-noout',
      '-in',
      'utf8.p12',
      '-passin',
      'pass:pässwörd ✓',
    ]);
    expect(info.status).toBe(0);
  });

  it('without a password: certificates in the clear and no MAC', () => {
    ws.write('nopw.p12', buildPkcs12(leaf, chain()));
    const info = ws.run(['pkcs12', '-info', '-nokeys', '-in', 'nopw.p12', '-passin', 'pass:']);
    expect(info.status).toBe(0);
    expect(info.output).toContain('Warning: MAC is absent!');
    expect(info.output).toMatch(/PKCS7 Data/);
    expect(info.output).not.toMatch(/Encrypted data/);
    expect(info.output.match(/Certificate bag/g)).toHaveLength(3);
    expect(info.output).not.toMatch(/Key bag|Shrouded Keybag/);
  });

  it.each([
    ['a password', 'correct horse'],
    ['an empty password', ''],
    ['no password', undefined],
  ])('with %s: keytool lists the leaf and the chain as trusted certificate entries', (_, password) => {
    ws.write('java.p12', buildPkcs12(leaf, chain(), { password, friendlyName: 'Payments API' }));
    const { output, entries } = keytoolList('java.p12', password ?? 'unused');
    expect(output).toContain('Your keystore contains 3 entries');
    // keytool prints aliases lower-cased, ordered by alias.
    expect(entries).toEqual([
      ['payments api', 'trustedCertEntry', leaf.fingerprintSha256],
      ['test issuing ca ecdsa', 'trustedCertEntry', pki.intermediate.fingerprintSha256],
      ['test root ecdsa', 'trustedCertEntry', pki.root.fingerprintSha256],
    ]);
    expect(output).not.toMatch(/PrivateKeyEntry/);
  });

  it('gives every bag a friendlyName and keeps openssl reading it with no key bag', () => {
    ws.write('named.p12', buildPkcs12(leaf, chain()));
    const info = ws.run(['pkcs12', '-info', '-nokeys', '-in', 'named.p12', '-passin', 'pass:']);
    expect(info.status).toBe(0);
    expect([...info.stdout.matchAll(/friendlyName: (.*)$/gm)].map((m) => m[1])).toEqual([
      'p12.example.test',
      'Test Issuing CA ECDSA',
      'Test Root ECDSA',
    ]);
    expect(info.output).not.toMatch(/Key bag|Shrouded Keybag|PRIVATE KEY/);
  });

  it('names the leaf by friendlyName and the others by common name, suffixing aliases Java would merge', () => {
    expect(pkcs12Aliases([leaf, pki.intermediate, pki.root], 'Payments API')).toEqual([
      'Payments API',
      'Test Issuing CA ECDSA',
      'Test Root ECDSA',
    ]);
    expect(pkcs12Aliases([leaf, pki.intermediate], '')).toEqual([
      'p12.example.test',
      'Test Issuing CA ECDSA',
    ]);
    expect(pkcs12Aliases([leaf, pki.intermediate, pki.intermediate], 'TEST ISSUING CA ECDSA')).toEqual([
      'TEST ISSUING CA ECDSA',
      'Test Issuing CA ECDSA (2)',
      'Test Issuing CA ECDSA (3)',
    ]);
  });

  it('is read by node-forge as well, with no key bag', () => {
    const der = buildPkcs12(leaf, chain(), { password: 'forge' });
    const p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(der.toString('binary')), 'forge');
    const certBags = p12.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag] ?? [];
    expect(certBags).toHaveLength(3);
    expect(
      p12.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag })[forge.pki.oids.pkcs8ShroudedKeyBag] ?? [],
    ).toHaveLength(0);
    expect(p12.getBags({ bagType: forge.pki.oids.keyBag })[forge.pki.oids.keyBag] ?? []).toHaveLength(0);
  });

  it('refuses a password that is not a string or too long', () => {
    expect(() => buildPkcs12(leaf, [], { password: 'x'.repeat(2000) })).toThrow(
      expect.objectContaining({ code: 'profile_invalid' }),
    );
    expect(() => buildPkcs12(leaf, [], { password: 5 as unknown as string })).toThrow(
      expect.objectContaining({ code: 'profile_invalid' }),
    );
    for (const counts of [{ iterations: 0 }, { macIterations: 1.5 }, { iterations: 20_000_000 }]) {
      expect(() => buildPkcs12(leaf, [], { password: 'x', ...counts })).toThrow(
        expect.objectContaining({ code: 'profile_invalid' }),
      );
    }
  });

  it('derives keys as RFC 7292 B.2 does (the published SHA-1 vectors)', () => {
    // Vectors from OpenSSL's test/pkcs12_format_test and the original PKCS#12 test suite.
    const salt = Buffer.from('0a58cf64530d823f', 'hex');
    expect(pkcs12Kdf('smeg', salt, 1, 1, 24, 'sha1').toString('hex')).toBe(
      '8aaae6297b6cb04642ab5b077851284eb7128f1a2a7fbca3',
    );
    expect(pkcs12Kdf('smeg', salt, 2, 1, 8, 'sha1').toString('hex')).toBe('79993dfe048d3b76');
    expect(
      pkcs12Kdf('queeg', Buffer.from('05dec959acff72f7', 'hex'), 1, 1000, 24, 'sha1').toString('hex'),
    ).toBe('ed2034e36328830ff09df1e1a07dd357185dac0d4f9eb3d4');
  });
});
