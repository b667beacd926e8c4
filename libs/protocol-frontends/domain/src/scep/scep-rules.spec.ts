import { hashChallengePassword, verifyChallengePassword } from './scep-challenge-password';
import { scepCapabilities, messageTypeName, scepUrlPath } from './scep-message';
import { scepProfileProblems, ScepProfileSettings } from './scep-profile-rules';

const settings = (overrides: Partial<ScepProfileSettings> = {}): ScepProfileSettings => ({
  challenge_password_set: false,
  mtls_enabled: false,
  trust_bundle_pem: null,
  mdm_enabled: false,
  mdm_audience: null,
  mdm_trust_pem: null,
  approval_required: false,
  ...overrides,
});

describe('SCEP profile rules (ADR 0059)', () => {
  it('stores a challenge password only as a salted HMAC and verifies it', () => {
    const stored = hashChallengePassword('a-long-challenge-password');
    expect(stored).toMatch(/^hmac-sha256\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(stored).not.toContain('a-long-challenge-password');
    expect(hashChallengePassword('a-long-challenge-password')).not.toBe(stored);
    expect(verifyChallengePassword('a-long-challenge-password', stored)).toBe(true);
    expect(verifyChallengePassword('a-long-challenge-passworD', stored)).toBe(false);
    expect(verifyChallengePassword('a-long-challenge-password', 'scrypt$1$2$3')).toBe(false);
  });

  it.each([
    [settings(), ['a profile needs challenge_password, mdm_enabled or mtls_enabled to authorise requests']],
    [settings({ challenge_password_set: true }), []],
    [
      settings({ mdm_enabled: true }),
      [
        'MDM validation needs mdm_audience',
        'MDM validation needs trust anchors (mdm_trust_path or mdm_trust_pem)',
      ],
    ],
    [settings({ mdm_enabled: true, mdm_audience: 'a', mdm_trust_pem: 'pem' }), []],
    [settings({ mtls_enabled: true }), ['mutual TLS needs trust_bundle_path']],
    [settings({ mtls_enabled: true, trust_bundle_pem: 'pem' }), []],
    [settings({ challenge_password_set: true, approval_required: true }), []],
    [
      settings({ approval_required: true }),
      ['a profile needs challenge_password, mdm_enabled or mtls_enabled to authorise requests'],
    ],
  ])('checks %o', (input, problems) => {
    expect(scepProfileProblems(input)).toEqual(problems);
  });

  it('advertises exactly the implemented capabilities, legacy ones only on legacy profiles', () => {
    expect(scepCapabilities(false)).toEqual([
      'POSTPKIOperation',
      'SHA-256',
      'SHA-384',
      'SHA-512',
      'AES',
      'SCEPStandard',
      'Renewal',
    ]);
    expect(scepCapabilities(true)).toEqual(expect.arrayContaining(['DES3', 'SHA-1']));
    // RFC 8894 3.5.2: SCEPStandard implies 2.9, which a legacy profile does not keep.
    expect(scepCapabilities(true)).not.toContain('SCEPStandard');
  });

  it('names message types and profile paths', () => {
    expect([
      messageTypeName('19'),
      messageTypeName('17'),
      messageTypeName('20'),
      messageTypeName('99'),
    ]).toEqual(['PKCSReq', 'RenewalReq', 'CertPoll', undefined]);
    expect([scepUrlPath('default'), scepUrlPath('phones')]).toEqual(['/scep', '/scep/phones']);
  });
});
