import { keyEncryptionKeyRefusal } from './est-key-encryption';

const PROFILE = '6c2f0d1e-6a57-4d3b-9a38-0d8f8f1f6a01';
const OTHER = '0b7e3c55-2f3a-4f7e-8d51-6f3f1f9b2c02';
const KEY_ID = '00112233445566778899aabbccddeeff';

describe(keyEncryptionKeyRefusal.name, () => {
  it('accepts an active key of the profile', () => {
    expect(keyEncryptionKeyRefusal(KEY_ID, { profileId: PROFILE, revoked: false }, PROFILE)).toBeNull();
  });

  it('RFC 7030 4.4.1.1: refuses a key id the server does not hold', () => {
    expect(keyEncryptionKeyRefusal(KEY_ID, null, PROFILE)).toMatch(
      /no key-encryption key 00112233445566778899aabbccddeeff on this profile/,
    );
  });

  it('RFC 7030 4.4.1.1: refuses a revoked key', () => {
    expect(keyEncryptionKeyRefusal(KEY_ID, { profileId: PROFILE, revoked: true }, PROFILE)).toMatch(
      /is revoked/,
    );
  });

  it("RFC 7030 4.4.1.1: refuses another profile's key like an unknown one", () => {
    expect(keyEncryptionKeyRefusal(KEY_ID, { profileId: OTHER, revoked: false }, PROFILE)).toBe(
      keyEncryptionKeyRefusal(KEY_ID, null, PROFILE),
    );
    expect(keyEncryptionKeyRefusal(KEY_ID, { profileId: OTHER, revoked: true }, PROFILE)).toBe(
      keyEncryptionKeyRefusal(KEY_ID, null, PROFILE),
    );
  });
});
