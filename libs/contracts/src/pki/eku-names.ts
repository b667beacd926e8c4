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

/** What an issuer puts in a leaf when nothing narrows it. */
const DEFAULT_LEAF_EKUS: readonly ProfileEkuName[] = ['serverAuth', 'clientAuth'];

/**
 * The extended key usages of a leaf issued under the profile: undefined (the issuer's default)
 * when the profile allows any; else what the CSR asked for (the profile check has held it to
 * the allowed ones), or the default narrowed to the allowed ones, or the allowed ones when none
 * of the default is allowed. Never one the profile does not allow.
 */
export function issuedEkus(
  profile: { allowed_ekus: readonly string[] } | null,
  requested: readonly string[] | undefined,
): ProfileEkuName[] | undefined {
  const allowed = (profile?.allowed_ekus ?? []) as readonly ProfileEkuName[];
  if (allowed.length === 0) return undefined;
  const asked = allowed.filter((eku) => requested?.includes(eku));
  if (asked.length > 0) return asked;
  const narrowed = DEFAULT_LEAF_EKUS.filter((eku) => allowed.includes(eku));
  return narrowed.length > 0 ? narrowed : [...allowed];
}
