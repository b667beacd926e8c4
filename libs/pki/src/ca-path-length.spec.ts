import { childCaPathLength } from './ca';
import { parseCertificate } from './certificate';
import { PkiError } from './errors';
import { TestPki, createTestPki, provider } from './testing/fixtures';

let pki: TestPki;

beforeAll(async () => {
  // root pathLength 1, intermediate pathLength 0, leaf issued by the intermediate
  pki = await createTestPki();
});

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof PkiError) return error.code;
    throw error;
  }
  return undefined;
};

describe(childCaPathLength.name, () => {
  it('clamps a child of a pathLength-1 root to pathLength 0, whatever was asked', () => {
    expect(childCaPathLength(pki.root)).toBe(0);
    expect(childCaPathLength(pki.root, 5)).toBe(0);
    expect(childCaPathLength(pki.root, 0)).toBe(0);
  });

  it('refuses a child under a CA with pathLength 0', () => {
    expect(codeOf(() => childCaPathLength(pki.intermediate))).toBe('issuer_invalid');
  });

  it('refuses a parent that is not a CA', async () => {
    const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const leaf = await pki.ca.issue({
      publicKey: signer.publicKey,
      subject: [['CN', 'leaf.example.test']],
      subjectAltNames: [{ type: 'dns', value: 'leaf.example.test' }],
      notBefore: new Date(),
      notAfter: new Date(Date.now() + 86_400_000),
    });
    expect(codeOf(() => childCaPathLength(parseCertificate(leaf.der)))).toBe('issuer_invalid');
  });
});
