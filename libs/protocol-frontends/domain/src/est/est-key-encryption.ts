/** A stored key-encryption key as serverkeygen sees it (no key material). */
export interface KeyEncryptionKeyState {
  profileId: string;
  revoked: boolean;
}

/**
 * Why the key-encryption key a CSR's DecryptKeyIdentifier names (RFC 7030 4.4.1.1) cannot
 * protect the generated key on `profileId`, or null when it can. The RFC has the request end in
 * an error when the server does not hold the named key; a key of another profile is answered
 * like an unknown one, so a client learns nothing about other profiles' keys.
 */
export function keyEncryptionKeyRefusal(
  keyIdHex: string,
  key: KeyEncryptionKeyState | null,
  profileId: string,
): string | null {
  if (!key || key.profileId !== profileId)
    return `no key-encryption key ${keyIdHex} on this profile matches the DecryptKeyIdentifier (RFC 7030 4.4.1.1)`;
  if (key.revoked)
    return `the key-encryption key ${keyIdHex} named by the DecryptKeyIdentifier (RFC 7030 4.4.1.1) is revoked`;
  return null;
}
