import { isIP } from 'node:net';
import { issuedEkus, PROFILE_EKU_NAMES, ProfileEkuName } from '@certlane/contracts';
import { CSR_ATTRIBUTE_OIDS } from './est-wire';

/** What the CSR policy reads of a request (the server extracts it from the parsed PKCS#10). */
export interface CsrFacts {
  /** `RSASSA-PKCS1-v1_5`/`RSA-PSS`/`RSA` -> 'RSA', `ECDSA` -> 'EC', else the algorithm name. */
  keyAlgorithm: string;
  rsaBits?: number;
  curve?: string;
  commonName?: string;
  sanCount: number;
  /** The key in the names of a certificate profile's `allowed_key_algorithms` (`ECDSA-P256`, `RSA-2048`). */
  keyName?: string;
  /** The extended key usages the CSR requests, as OIDs. */
  ekus?: readonly string[];
  /** The OIDs of the subject's attributes that have a value, and of the request's attributes. */
  attributeOids?: readonly string[];
  /** The requested SubjectAltName entries (`dns`, `ip`, `email`, `url`, or another type name). */
  sans?: readonly { type: string; value: string }[];
}

/** What EST and ACME enforce of the certificate profile their profile names (spec 2.9). */
export interface CertificateProfileRules {
  allowed_key_algorithms: readonly string[];
  allowed_ekus: readonly string[];
  required_csr_attributes: readonly string[];
  /** Certificates of this profile carry the TLS feature status_request (RFC 7633). */
  must_staple?: boolean;
  /** The validity of certificates issued under this profile, in days; the issuer's default when null. */
  validity_days?: number | null;
  /** Enrollments under this profile wait for an approval (RFC 7030 4.2.3, ADR 0065). */
  requires_approval?: boolean;
}

export const EST_ALLOWED_CURVES = ['P-256', 'P-384', 'P-521'] as const;
export const EST_MIN_RSA_BITS = 2048;
export const EST_MAX_SANS = 100;
const EKU_NAME_BY_OID = new Map<string, ProfileEkuName>(
  PROFILE_EKU_NAMES.map((name) => [CSR_ATTRIBUTE_OIDS[name], name]),
);
const HOST_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;

const isHostName = (name: string): boolean =>
  name.length <= 253 && name.split('.').every((label) => HOST_LABEL.test(label));
const oidOf = (name: string): string | undefined =>
  CSR_ATTRIBUTE_OIDS[name.replace(/^id-kp-/, '')] ?? CSR_ATTRIBUTE_OIDS[name];

/**
 * Why a CSR may not be issued on an EST profile (`est_csr_policy_violation`), or an empty list:
 * - EST's own floor: RSA of at least 2048 bits, an EC key on P-256/P-384/P-521 or Ed25519, and
 *   something to name the certificate (a subject CN or a SAN);
 * - SAN rules: at most 100; only DNS names (host names, no wildcard: a device enrolls its own
 *   name), IP addresses, e-mail addresses and URIs, each well formed;
 * - with a certificate profile (ADR 0061): its `allowed_key_algorithms` (when not empty), its
 *   `allowed_ekus` (every requested EKU allowed; requesting none is fine) and its
 *   `required_csr_attributes` (a DN name in the subject, a PKCS#9 name among the request
 *   attributes, an EKU name among the requested EKUs; names EST does not know are dropped, as for
 *   csrattrs).
 */
export function csrPolicyProblems(facts: CsrFacts, profile?: CertificateProfileRules | null): string[] {
  const problems: string[] = [];
  if (facts.keyAlgorithm === 'RSA') {
    if ((facts.rsaBits ?? 0) < EST_MIN_RSA_BITS)
      problems.push(
        `RSA keys must have at least ${EST_MIN_RSA_BITS} bits (got ${facts.rsaBits ?? 'unknown'})`,
      );
  } else if (facts.keyAlgorithm === 'EC') {
    if (!(EST_ALLOWED_CURVES as readonly string[]).includes(facts.curve ?? ''))
      problems.push(`EC keys must be on ${EST_ALLOWED_CURVES.join(', ')} (got ${facts.curve ?? 'unknown'})`);
  } else if (facts.keyAlgorithm !== 'Ed25519') {
    problems.push(`key algorithm ${facts.keyAlgorithm} is not accepted`);
  }
  if (!facts.commonName && facts.sanCount === 0)
    problems.push('the CSR names nothing: no subject CN and no SAN');
  problems.push(...sanProblems(facts.sans ?? []));
  if (profile) problems.push(...certificateProfileProblems(facts, profile));
  return problems;
}

/** Whether a SAN value is well formed, per SAN type EST issues. */
const SAN_CHECKS: Readonly<Record<string, (value: string) => string | null>> = {
  dns: (value) =>
    value.startsWith('*.')
      ? `wildcard SAN ${value} is not issued over EST or SCEP`
      : isHostName(value)
        ? null
        : `SAN ${value} is not a host name`,
  ip: (value) => (isIP(value) !== 0 ? null : `SAN ${value} is not an IP address`),
  email: (value) => {
    const at = value.lastIndexOf('@');
    return at > 0 && !/\s/.test(value) && isHostName(value.slice(at + 1))
      ? null
      : `SAN ${value} is not an e-mail address`;
  },
  url: (value) => (/^[a-z][a-z0-9+.-]*:\S+$/i.test(value) ? null : `SAN ${value} is not a URI`),
};

function sanProblems(sans: readonly { type: string; value: string }[]): string[] {
  if (sans.length > EST_MAX_SANS) return [`at most ${EST_MAX_SANS} SANs (got ${sans.length})`];
  return sans.flatMap(({ type, value }) => {
    const check = SAN_CHECKS[type];
    const problem = check ? check(value) : `SAN type ${type} is not issued over EST or SCEP`;
    return problem ? [problem] : [];
  });
}

/**
 * Why a CSR breaks the certificate profile's own rules, or an empty list: what ACME checks at
 * finalize (RFC 8555 7.4 badCSR). EST's floor and SAN rules are not part of it: ACME checks the
 * CSR's names against the order instead.
 */
export function certificateProfileProblems(facts: CsrFacts, profile: CertificateProfileRules): string[] {
  const problems: string[] = [];
  if (
    profile.allowed_key_algorithms.length > 0 &&
    !profile.allowed_key_algorithms.includes(facts.keyName ?? '')
  )
    problems.push(
      `key algorithm ${facts.keyName ?? facts.keyAlgorithm} is not allowed by the certificate profile (allowed: ${profile.allowed_key_algorithms.join(', ')})`,
    );
  if (profile.allowed_ekus.length > 0) {
    const allowed = new Set(profile.allowed_ekus.map(oidOf));
    const extra = (facts.ekus ?? []).filter((oid) => !allowed.has(oid));
    if (extra.length > 0)
      problems.push(
        `extended key usage ${extra.join(', ')} is not allowed by the certificate profile (allowed: ${profile.allowed_ekus.join(', ')})`,
      );
  }
  const missing = profile.required_csr_attributes.filter((name) => {
    const oid = oidOf(name);
    if (!oid) return false;
    return EKU_NAME_BY_OID.has(oid)
      ? !(facts.ekus ?? []).includes(oid)
      : !(facts.attributeOids ?? []).includes(oid);
  });
  if (missing.length > 0) problems.push(`the certificate profile requires ${missing.join(', ')} in the CSR`);
  return problems;
}

/**
 * The extended key usages of a leaf enrolled under the certificate profile (`issuedEkus`): the
 * allowed ones the CSR asks for, else the issuer's default narrowed to the allowed ones; undefined
 * (the issuer's default) when the profile allows any or there is no profile.
 */
export function enrolledEkus(
  profile: Pick<CertificateProfileRules, 'allowed_ekus'> | null,
  facts: Pick<CsrFacts, 'ekus'>,
): ProfileEkuName[] | undefined {
  const requested = (facts.ekus ?? []).flatMap((oid) => EKU_NAME_BY_OID.get(oid) ?? []);
  return issuedEkus(profile, requested);
}
