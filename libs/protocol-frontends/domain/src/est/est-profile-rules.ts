/** The settings of a profile that must agree with each other, after a create or an update. */
export interface EstProfileSettings {
  auth_methods: readonly ('basic' | 'mtls')[];
  basic_username: string | null;
  basic_password_set: boolean;
  trust_bundle_pem: string | null;
}

/**
 * Why a profile's settings cannot serve EST, or an empty list: Basic needs a username and a
 * password (RFC 7030 3.2.3), mutual TLS a trust bundle to check client certificates against
 * (3.3.2); Basic settings on a profile without Basic would be credentials nobody can use.
 */
export function estProfileProblems(settings: EstProfileSettings): string[] {
  const problems: string[] = [];
  const basic = settings.auth_methods.includes('basic');
  const mtls = settings.auth_methods.includes('mtls');
  if (basic && !settings.basic_username) problems.push('basic authentication needs basic_username');
  if (basic && !settings.basic_password_set) problems.push('basic authentication needs basic_password');
  if (!basic && (settings.basic_username || settings.basic_password_set))
    problems.push('basic_username and basic_password are only for basic authentication');
  if (mtls && !settings.trust_bundle_pem) problems.push('mtls authentication needs trust_bundle_pem');
  if (settings.auth_methods.length === 0) problems.push('auth_methods must name at least one method');
  return problems;
}
