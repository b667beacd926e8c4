/**
 * Extended key usage names a profile can allow (RFC 5280 4.2.1.12). The `id-kp-` spellings are
 * accepted on input and stored in the short form.
 */
export const PROFILE_EKU_NAMES = [
  'serverAuth',
  'clientAuth',
  'codeSigning',
  'emailProtection',
  'timeStamping',
  'OCSPSigning',
] as const;
export type ProfileEkuName = (typeof PROFILE_EKU_NAMES)[number];
