import { CertificateProfileRules, CsrFacts, csrPolicyProblems, enrolledEkus } from './csr-policy';

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

describe('EST SAN rules', () => {
  const base: CsrFacts = { keyAlgorithm: 'EC', curve: 'P-256', commonName: 'd', sanCount: 1 };
  it.each<[string, string, string, string[]]>([
    ['a host name', 'dns', 'device-1.example', []],
    ['an IPv4 address', 'ip', '192.0.2.1', []],
    ['an IPv6 address', 'ip', '2001:db8::1', []],
    ['an e-mail address', 'email', 'ops@fleet.example', []],
    ['a URI', 'url', 'urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66', []],
    ['a wildcard', 'dns', '*.fleet.example', ['wildcard SAN *.fleet.example is not issued over EST or SCEP']],
    ['an underscore name', 'dns', 'bad_host.example', ['SAN bad_host.example is not a host name']],
    ['an empty label', 'dns', 'a..example', ['SAN a..example is not a host name']],
    [
      'a label of 64 characters',
      'dns',
      `${'a'.repeat(64)}.example`,
      [`SAN ${'a'.repeat(64)}.example is not a host name`],
    ],
    ['a bad address', 'ip', '300.1.1.1', ['SAN 300.1.1.1 is not an IP address']],
    ['an e-mail without domain', 'email', 'ops@', ['SAN ops@ is not an e-mail address']],
    ['a URI without scheme', 'url', 'no-scheme', ['SAN no-scheme is not a URI']],
    ['another SAN type', 'dn', 'CN=x', ['SAN type dn is not issued over EST or SCEP']],
  ])('%s', (_, type, value, problems) => {
    expect(csrPolicyProblems({ ...base, sans: [{ type, value }] })).toEqual(problems);
  });
  it('refuses more than 100 SANs', () => {
    const sans = Array.from({ length: 101 }, (_, i) => ({ type: 'dns', value: `d${i}.example` }));
    expect(csrPolicyProblems({ ...base, sans })).toEqual(['at most 100 SANs (got 101)']);
  });
});

describe("the certificate profile's rules over EST (ADR 0061)", () => {
  const facts: CsrFacts = {
    keyAlgorithm: 'EC',
    curve: 'P-256',
    keyName: 'ECDSA-P256',
    commonName: 'd',
    sanCount: 0,
    ekus: ['1.3.6.1.5.5.7.3.2'],
    attributeOids: ['2.5.4.3', '2.5.4.10', '1.2.840.113549.1.9.14'],
  };
  const none: CertificateProfileRules = {
    allowed_key_algorithms: [],
    allowed_ekus: [],
    required_csr_attributes: [],
  };
  it.each<[string, Partial<CertificateProfileRules>, string[]]>([
    ['no rules', {}, []],
    ['the key allowed', { allowed_key_algorithms: ['ECDSA-P256', 'RSA-2048'] }, []],
    [
      'the key not allowed',
      { allowed_key_algorithms: ['RSA-2048'] },
      ['key algorithm ECDSA-P256 is not allowed by the certificate profile (allowed: RSA-2048)'],
    ],
    ['the EKU allowed (id-kp- spelling too)', { allowed_ekus: ['id-kp-clientAuth'] }, []],
    [
      'an EKU not allowed',
      { allowed_ekus: ['serverAuth'] },
      [
        'extended key usage 1.3.6.1.5.5.7.3.2 is not allowed by the certificate profile (allowed: serverAuth)',
      ],
    ],
    [
      'required DN, PKCS#9 and EKU names present',
      { required_csr_attributes: ['CN', 'O', 'extensionRequest', 'clientAuth'] },
      [],
    ],
    [
      'required names missing',
      { required_csr_attributes: ['OU', 'challengePassword', 'serverAuth'] },
      ['the certificate profile requires OU, challengePassword, serverAuth in the CSR'],
    ],
    ['an unknown required name, dropped', { required_csr_attributes: ['noSuchName'] }, []],
  ])('%s', (_, rules, problems) => {
    expect(csrPolicyProblems(facts, { ...none, ...rules })).toEqual(problems);
  });
  it('asks nothing more without a certificate profile', () => {
    expect(csrPolicyProblems({ ...facts, ekus: ['9.9.9'] }, null)).toEqual([]);
  });
});

describe('enrolledEkus: the EKUs of a certificate enrolled under a certificate profile', () => {
  const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
  const CODE_SIGNING = '1.3.6.1.5.5.7.3.3';

  it("leaves the issuer's default without a profile or when the profile allows any", () => {
    expect(enrolledEkus(null, { ekus: [CODE_SIGNING] })).toBeUndefined();
    expect(enrolledEkus({ allowed_ekus: [] }, { ekus: [SERVER_AUTH] })).toBeUndefined();
  });

  it('issues the allowed EKUs the CSR asks for, read from their OIDs', () => {
    expect(enrolledEkus({ allowed_ekus: ['serverAuth', 'codeSigning'] }, { ekus: [CODE_SIGNING] })).toEqual([
      'codeSigning',
    ]);
  });

  it("narrows the issuer's default to the allowed ones when the CSR asks for none", () => {
    expect(enrolledEkus({ allowed_ekus: ['clientAuth'] }, {})).toEqual(['clientAuth']);
    expect(enrolledEkus({ allowed_ekus: ['codeSigning'] }, { ekus: [] })).toEqual(['codeSigning']);
  });
});
