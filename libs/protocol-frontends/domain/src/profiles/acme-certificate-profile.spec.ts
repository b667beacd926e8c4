import { CertificateProfileRules, certificateProfileProblems, CsrFacts } from '../est/csr-policy';
import { acmeValidityDays } from './acme-profile';

/** What an ACME finalize checks of the certificate profile its ACME profile names (ADR 0068). */
describe('ACME profile -> certificate profile', () => {
  const rules = (over: Partial<CertificateProfileRules> = {}): CertificateProfileRules => ({
    allowed_key_algorithms: [],
    allowed_ekus: [],
    required_csr_attributes: [],
    ...over,
  });
  const ec256: CsrFacts = {
    keyAlgorithm: 'EC',
    curve: 'P-256',
    keyName: 'ECDSA-P256',
    sanCount: 1,
    sans: [{ type: 'dns', value: '*.example.com' }],
    ekus: [],
    attributeOids: [],
  };
  const rsa2048: CsrFacts = { ...ec256, keyAlgorithm: 'RSA', rsaBits: 2048, keyName: 'RSA-2048' };
  const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
  const CODE_SIGNING = '1.3.6.1.5.5.7.3.3';

  it.each<[string, CsrFacts, CertificateProfileRules, string[]]>([
    ['no rules: anything, a wildcard SAN too (ACME checks names against the order)', ec256, rules(), []],
    ['an allowed key', ec256, rules({ allowed_key_algorithms: ['ECDSA-P256', 'RSA-2048'] }), []],
    [
      'a key the profile does not allow',
      ec256,
      rules({ allowed_key_algorithms: ['RSA-2048'] }),
      ['key algorithm ECDSA-P256 is not allowed by the certificate profile (allowed: RSA-2048)'],
    ],
    ['an RSA size the profile allows', rsa2048, rules({ allowed_key_algorithms: ['RSA-2048'] }), []],
    ['no EKU requested under an EKU list', ec256, rules({ allowed_ekus: ['serverAuth'] }), []],
    ['an allowed EKU', { ...ec256, ekus: [SERVER_AUTH] }, rules({ allowed_ekus: ['serverAuth'] }), []],
    [
      'an EKU the profile does not allow',
      { ...ec256, ekus: [SERVER_AUTH, CODE_SIGNING] },
      rules({ allowed_ekus: ['serverAuth'] }),
      [`extended key usage ${CODE_SIGNING} is not allowed by the certificate profile (allowed: serverAuth)`],
    ],
    [
      'a required attribute missing, unknown names dropped',
      ec256,
      rules({ required_csr_attributes: ['organizationName', 'noSuchName'] }),
      ['the certificate profile requires organizationName in the CSR'],
    ],
    [
      'every reason listed',
      { ...ec256, ekus: [CODE_SIGNING] },
      rules({
        allowed_key_algorithms: ['RSA-2048'],
        allowed_ekus: ['serverAuth'],
        required_csr_attributes: ['serverAuth'],
      }),
      [
        'key algorithm ECDSA-P256 is not allowed by the certificate profile (allowed: RSA-2048)',
        `extended key usage ${CODE_SIGNING} is not allowed by the certificate profile (allowed: serverAuth)`,
        'the certificate profile requires serverAuth in the CSR',
      ],
    ],
  ])('%s', (_, facts, profile, problems) => {
    expect(certificateProfileProblems(facts, profile)).toEqual(problems);
  });

  it.each<[number | null, number | null | undefined, number | null]>([
    [null, undefined, null],
    [null, null, null],
    [90, undefined, 90],
    [90, null, 90],
    [null, 30, 30],
    [90, 30, 30],
    [10, 30, 10],
  ])('validity: ACME profile %p, certificate profile %p -> %p', (own, capped, days) => {
    expect(acmeValidityDays(own, capped)).toBe(days);
  });
});
