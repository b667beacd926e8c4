import { KeyAlgorithmName } from '@certlane/contracts';
import { CreateCsrOptions, createCsr, KeySpec, parseCsr, SoftwareKeyProvider } from '@certlane/pki';
import {
  applyProfileChanges,
  checkCsrAgainstProfile,
  csrKeyAlgorithm,
  filterRequiredAttributes,
  newProfile,
  normalizeEkus,
  profileEditNeedsApproval,
  profileEditPayload,
  profileId,
  ProfileRules,
} from './profile-rules';

const keys = new SoftwareKeyProvider();
const signers = new Map<string, Awaited<ReturnType<SoftwareKeyProvider['generate']>>['signer']>();
const SPECS: Record<string, KeySpec> = {
  'ECDSA-P256': { algorithm: 'ECDSA', curve: 'P-256' },
  'ECDSA-P384': { algorithm: 'ECDSA', curve: 'P-384' },
  'RSA-2048': { algorithm: 'RSA', size: 2048 },
  Ed25519: { algorithm: 'Ed25519' },
};

/** A real CSR from libs/pki, parsed back as the services see it. */
async function csr(key: keyof typeof SPECS, options: Partial<Omit<CreateCsrOptions, 'signer'>> = {}) {
  let signer = signers.get(key);
  if (!signer) {
    signer = (await keys.generate(SPECS[key])).signer;
    signers.set(key, signer);
  }
  const made = await createCsr({ subject: [['CN', 'app.example.test']], ...options, signer });
  return parseCsr(made.pem);
}

const open: ProfileRules = {
  id: 'prof-open',
  allowed_key_algorithms: [],
  allowed_ekus: [],
  required_csr_attributes: [],
  must_staple: false,
};
const rules = (changes: Partial<ProfileRules>): ProfileRules => ({ ...open, id: 'prof-strict', ...changes });

describe('checkCsrAgainstProfile', () => {
  it('accepts any CSR under a profile with no rules', async () => {
    expect(checkCsrAgainstProfile(await csr('RSA-2048'), open)).toEqual({ ok: true });
  });

  it.each([
    ['ECDSA-P256', 'ECDSA-P256'],
    ['ECDSA-P384', 'ECDSA-P384'],
    ['RSA-2048', 'RSA-2048'],
    ['Ed25519', 'Ed25519'],
  ])('names the key of a %s CSR %s', async (key, name) => {
    expect(csrKeyAlgorithm((await csr(key)).publicKey)).toBe(name);
  });

  it('allowed_key_algorithms: refuses a key outside the list, naming the rule and the key', async () => {
    const profile = rules({ allowed_key_algorithms: ['ECDSA-P256', 'ECDSA-P384'] as KeyAlgorithmName[] });
    expect(checkCsrAgainstProfile(await csr('ECDSA-P384'), profile)).toEqual({ ok: true });
    const refused = checkCsrAgainstProfile(await csr('RSA-2048'), profile);
    expect(refused).toEqual({
      ok: false,
      rule: 'allowed_key_algorithms',
      message:
        'the CSR breaks rule allowed_key_algorithms of profile prof-strict: key algorithm RSA-2048 is not allowed (allowed: ECDSA-P256, ECDSA-P384)',
    });
  });

  it('allowed_ekus: refuses a requested EKU outside the list; requesting none is fine', async () => {
    const profile = rules({ allowed_ekus: ['serverAuth'] });
    expect(checkCsrAgainstProfile(await csr('ECDSA-P256'), profile)).toEqual({ ok: true });
    expect(
      checkCsrAgainstProfile(await csr('ECDSA-P256', { extendedKeyUsage: ['serverAuth'] }), profile),
    ).toEqual({ ok: true });
    const refused = checkCsrAgainstProfile(
      await csr('ECDSA-P256', { extendedKeyUsage: ['serverAuth', 'codeSigning'] }),
      profile,
    );
    expect(refused).toMatchObject({ ok: false, rule: 'allowed_ekus' });
    expect(!refused.ok && refused.message).toContain('extended key usage codeSigning is not allowed');
  });

  it('required_csr_attributes: DN names must be in the subject', async () => {
    const profile = rules({ required_csr_attributes: ['CN', 'O', 'C'] });
    const refused = checkCsrAgainstProfile(await csr('ECDSA-P256'), profile);
    expect(refused).toMatchObject({ ok: false, rule: 'required_csr_attributes' });
    expect(!refused.ok && refused.message).toContain('required attribute(s) missing: O, C');
    const full = await csr('ECDSA-P256', {
      subject: [
        ['C', 'DE'],
        ['O', 'Example'],
        ['CN', 'app.example.test'],
      ],
    });
    expect(checkCsrAgainstProfile(full, profile)).toEqual({ ok: true });
  });

  it('required_csr_attributes: EKU names must be requested', async () => {
    const profile = rules({ required_csr_attributes: ['clientAuth'] });
    expect(
      checkCsrAgainstProfile(await csr('ECDSA-P256', { extendedKeyUsage: ['serverAuth'] }), profile),
    ).toMatchObject({
      ok: false,
      rule: 'required_csr_attributes',
      message: expect.stringContaining('clientAuth'),
    });
    expect(
      checkCsrAgainstProfile(await csr('ECDSA-P256', { extendedKeyUsage: ['clientAuth'] }), profile),
    ).toEqual({ ok: true });
  });

  it('required_csr_attributes: PKCS#9 attributes must be present', async () => {
    const profile = rules({ required_csr_attributes: ['challengePassword', 'unstructuredName'] });
    expect(
      checkCsrAgainstProfile(await csr('ECDSA-P256', { challengePassword: 'pw' }), profile),
    ).toMatchObject({
      ok: false,
      rule: 'required_csr_attributes',
      message: expect.stringMatching(/missing: unstructuredName$/),
    });
    const both = await csr('ECDSA-P256', { challengePassword: 'pw', unstructuredName: 'unit 7' });
    expect(checkCsrAgainstProfile(both, profile)).toEqual({ ok: true });
  });

  it('required_csr_attributes: extensionRequest needs requested extensions', async () => {
    const profile = rules({ required_csr_attributes: ['extensionRequest'] });
    expect(checkCsrAgainstProfile(await csr('ECDSA-P256'), profile)).toMatchObject({
      ok: false,
      rule: 'required_csr_attributes',
    });
    const withSan = await csr('ECDSA-P256', {
      subjectAltNames: [{ type: 'dns', value: 'app.example.test' }],
    });
    expect(checkCsrAgainstProfile(withSan, profile)).toEqual({ ok: true });
  });

  it('must_staple: refuses a CSR without the TLS feature status_request', async () => {
    const profile = rules({ must_staple: true });
    expect(checkCsrAgainstProfile(await csr('ECDSA-P256'), profile)).toEqual({
      ok: false,
      rule: 'must_staple',
      message:
        'the CSR breaks rule must_staple of profile prof-strict: the profile requires must-staple (TLS feature status_request)',
    });
    expect(checkCsrAgainstProfile(await csr('ECDSA-P256', { mustStaple: true }), profile)).toEqual({
      ok: true,
    });
  });

  it('reports the first broken rule in the documented order', async () => {
    const profile = rules({
      allowed_key_algorithms: ['Ed25519'] as KeyAlgorithmName[],
      allowed_ekus: ['clientAuth'],
      required_csr_attributes: ['O'],
      must_staple: true,
    });
    const bad = await csr('RSA-2048', { extendedKeyUsage: ['serverAuth'] });
    expect(checkCsrAgainstProfile(bad, profile)).toMatchObject({ rule: 'allowed_key_algorithms' });
    const badEku = await csr('Ed25519', { extendedKeyUsage: ['serverAuth'] });
    expect(checkCsrAgainstProfile(badEku, profile)).toMatchObject({ rule: 'allowed_ekus' });
    expect(checkCsrAgainstProfile(await csr('Ed25519'), profile)).toMatchObject({
      rule: 'required_csr_attributes',
    });
    const noStaple = await csr('Ed25519', {
      subject: [
        ['O', 'Example'],
        ['CN', 'x.example.test'],
      ],
    });
    expect(checkCsrAgainstProfile(noStaple, profile)).toMatchObject({ rule: 'must_staple' });
  });
});

describe('required CSR attribute names', () => {
  it('keeps known names in canonical spelling, once, and drops unknown ones', () => {
    expect(
      filterRequiredAttributes([
        'commonName',
        'CN',
        'id-kp-serverAuth',
        'o',
        'challengepassword',
        'extensionRequest',
        'favouriteColour',
        'emailAddress',
        'serialNumber',
        '1.2.3.4',
      ]),
    ).toEqual({
      kept: [
        'CN',
        'serverAuth',
        'O',
        'challengePassword',
        'extensionRequest',
        'emailAddress',
        'serialNumber',
      ],
      dropped: ['favouriteColour', '1.2.3.4'],
    });
  });

  it('knows every EKU name of the profile list in both spellings', () => {
    const names = [
      'serverAuth',
      'clientAuth',
      'codeSigning',
      'emailProtection',
      'timeStamping',
      'OCSPSigning',
    ];
    expect(filterRequiredAttributes(names.map((n) => `id-kp-${n}`)).kept).toEqual(names);
  });

  it('normalises EKU spellings', () => {
    expect(normalizeEkus(['id-kp-clientAuth', 'clientAuth', 'serverAuth'])).toEqual([
      'clientAuth',
      'serverAuth',
    ]);
  });
});

describe('profile fields', () => {
  it('fills defaults on create and drops unknown required names', () => {
    const created = newProfile({ name: 'Web TLS', required_csr_attributes: ['CN', 'bogus'] });
    expect(created).toEqual({
      fields: {
        name: 'Web TLS',
        description: '',
        allowed_key_algorithms: [],
        allowed_ekus: [],
        required_csr_attributes: ['CN'],
        must_staple: false,
        validity_days: null,
        requires_approval: false,
      },
      dropped: ['bogus'],
    });
    expect(profileId('Web TLS')).toBe('prof-web-tls');
  });

  it('applies given fields and keeps the others; validity_days null clears it', () => {
    const { fields } = newProfile({ name: 'p', validity_days: 30, must_staple: true });
    const changed = applyProfileChanges(fields, { validity_days: null, allowed_ekus: ['id-kp-serverAuth'] });
    expect(changed.fields).toMatchObject({
      validity_days: null,
      must_staple: true,
      allowed_ekus: ['serverAuth'],
    });
  });

  it('holds an edit for approval when the stored profile or the edit asks for it', () => {
    expect(profileEditNeedsApproval({ requires_approval: false }, {})).toBe(false);
    expect(profileEditNeedsApproval({ requires_approval: false }, { requires_approval: false })).toBe(false);
    expect(profileEditNeedsApproval({ requires_approval: false }, { requires_approval: true })).toBe(true);
    expect(profileEditNeedsApproval({ requires_approval: true }, { requires_approval: false })).toBe(true);
  });

  it('stores only the given fields as payload, names already filtered', () => {
    expect(
      profileEditPayload({ description: 'd', required_csr_attributes: ['cn', 'nope'], name: undefined }),
    ).toEqual({ description: 'd', required_csr_attributes: ['CN'] });
  });
});
