import { CsrFacts, csrPolicyProblems } from './csr-policy';

describe('EST CSR policy (est_csr_policy_violation)', () => {
  const named: Pick<CsrFacts, 'commonName' | 'sanCount'> = { commonName: 'device.example', sanCount: 0 };

  it.each<[string, CsrFacts, string[]]>([
    ['RSA 2048', { keyAlgorithm: 'RSA', rsaBits: 2048, ...named }, []],
    ['RSA 4096', { keyAlgorithm: 'RSA', rsaBits: 4096, ...named }, []],
    [
      'RSA 1024',
      { keyAlgorithm: 'RSA', rsaBits: 1024, ...named },
      ['RSA keys must have at least 2048 bits (got 1024)'],
    ],
    ['EC P-256', { keyAlgorithm: 'EC', curve: 'P-256', ...named }, []],
    ['EC P-384', { keyAlgorithm: 'EC', curve: 'P-384', ...named }, []],
    [
      'EC secp256k1',
      { keyAlgorithm: 'EC', curve: 'K-256', ...named },
      ['EC keys must be on P-256, P-384, P-521 (got K-256)'],
    ],
    ['Ed25519', { keyAlgorithm: 'Ed25519', ...named }, []],
    ['DSA', { keyAlgorithm: 'DSA', ...named }, ['key algorithm DSA is not accepted']],
    ['a SAN and no CN', { keyAlgorithm: 'EC', curve: 'P-256', sanCount: 1 }, []],
    [
      'neither CN nor SAN',
      { keyAlgorithm: 'EC', curve: 'P-256', sanCount: 0 },
      ['the CSR names nothing: no subject CN and no SAN'],
    ],
  ])('%s', (_, facts, problems) => {
    expect(csrPolicyProblems(facts)).toEqual(problems);
  });
});
