import {
  CreateProfileRequest,
  KEY_ALGORITHMS,
  KeyAlgorithmName,
  PROFILE_EKU_NAMES,
  ProfileChanges,
  ProfileEkuName,
} from '@certlane/contracts';
import type { CertificationRequest } from '@certlane/pki';
import { slugify } from '../renewal-policy-id';

/** The stored fields of a profile (id and timestamps excluded), normalised. */
export interface ProfileFields {
  name: string;
  description: string;
  allowed_key_algorithms: KeyAlgorithmName[];
  allowed_ekus: ProfileEkuName[];
  required_csr_attributes: string[];
  must_staple: boolean;
  validity_days: number | null;
  requires_approval: boolean;
}

/** What enforcement reads of a profile. */
export type ProfileRules = Pick<
  ProfileFields,
  'allowed_key_algorithms' | 'allowed_ekus' | 'required_csr_attributes' | 'must_staple'
> & { id: string };

/** `prof-<slug of name>`, like renewal policies (ADR 0005); callers may choose their own id. */
export function profileId(name: string): string {
  return `prof-${slugify(name) || 'profile'}`;
}

// ---- names a profile can require of a CSR (spec 2.9) ----

/** Where a required name is looked for in a CSR. */
export type RequiredAttributeKind = 'eku' | 'dn' | 'pkcs9';

interface AttributeName {
  name: string;
  kind: RequiredAttributeKind;
  /** The OID of the DN attribute or PKCS#9 attribute; the EKU name for EKUs. */
  key: string;
}

/** DN attribute names (RFC 4519 / RFC 5280 short names) with their OIDs. */
const DN_ATTRIBUTES: readonly [name: string, oid: string, aliases: readonly string[]][] = [
  ['CN', '2.5.4.3', ['commonName']],
  ['SN', '2.5.4.4', ['surname']],
  ['serialNumber', '2.5.4.5', []],
  ['C', '2.5.4.6', ['countryName']],
  ['L', '2.5.4.7', ['localityName']],
  ['ST', '2.5.4.8', ['stateOrProvinceName']],
  ['STREET', '2.5.4.9', ['streetAddress']],
  ['O', '2.5.4.10', ['organizationName']],
  ['OU', '2.5.4.11', ['organizationalUnitName']],
  ['title', '2.5.4.12', []],
  ['postalCode', '2.5.4.17', []],
  ['GN', '2.5.4.42', ['givenName']],
  ['dnQualifier', '2.5.4.46', []],
  ['organizationIdentifier', '2.5.4.97', []],
  ['emailAddress', '1.2.840.113549.1.9.1', []],
  ['DC', '0.9.2342.19200300.100.1.25', ['domainComponent']],
  ['UID', '0.9.2342.19200300.100.1.1', ['userId']],
];

/** PKCS#10 request attributes (PKCS#9, RFC 2985). */
const PKCS9_ATTRIBUTES: readonly [name: string, oid: string][] = [
  ['challengePassword', '1.2.840.113549.1.9.7'],
  ['unstructuredName', '1.2.840.113549.1.9.2'],
  ['extensionRequest', '1.2.840.113549.1.9.14'],
];

/** Every accepted spelling (lower case) -> its canonical name and where to look. */
const CATALOGUE: ReadonlyMap<string, AttributeName> = new Map<string, AttributeName>([
  ...PROFILE_EKU_NAMES.flatMap((name) => {
    const entry: AttributeName = { name, kind: 'eku', key: name };
    return [
      [name.toLowerCase(), entry],
      [`id-kp-${name}`.toLowerCase(), entry],
    ] as [string, AttributeName][];
  }),
  ...DN_ATTRIBUTES.flatMap(([name, oid, aliases]) => {
    const entry: AttributeName = { name, kind: 'dn', key: oid };
    return [name, ...aliases].map((spelling) => [spelling.toLowerCase(), entry] as [string, AttributeName]);
  }),
  ...PKCS9_ATTRIBUTES.map(
    ([name, oid]) => [name.toLowerCase(), { name, kind: 'pkcs9', key: oid }] as [string, AttributeName],
  ),
]);

/** The canonical form of a required-attribute name, or null when it is not one we know. */
export function canonicalAttributeName(name: string): string | null {
  return CATALOGUE.get(name.trim().toLowerCase())?.name ?? null;
}

/**
 * Spec 2.9: unknown names are dropped, not refused. Known names are stored in their canonical
 * spelling (`commonName` -> `CN`, `id-kp-serverAuth` -> `serverAuth`), each once, in the order given.
 */
export function filterRequiredAttributes(names: readonly string[]): { kept: string[]; dropped: string[] } {
  const kept: string[] = [];
  const dropped: string[] = [];
  for (const name of names) {
    const canonical = canonicalAttributeName(name);
    if (canonical === null) dropped.push(name);
    else if (!kept.includes(canonical)) kept.push(canonical);
  }
  return { kept, dropped };
}

/** `id-kp-serverAuth` -> `serverAuth`; each once. Inputs are validated against the list already. */
export function normalizeEkus(names: readonly string[]): ProfileEkuName[] {
  const out: ProfileEkuName[] = [];
  for (const name of names) {
    const short = name.replace(/^id-kp-/, '') as ProfileEkuName;
    if (PROFILE_EKU_NAMES.includes(short) && !out.includes(short)) out.push(short);
  }
  return out;
}

const unique = <T>(values: readonly T[]): T[] => [...new Set(values)];

/** A create request with defaults filled and names normalised. */
export function newProfile(request: CreateProfileRequest): { fields: ProfileFields; dropped: string[] } {
  const required = filterRequiredAttributes(request.required_csr_attributes ?? []);
  return {
    fields: {
      name: request.name,
      description: request.description ?? '',
      allowed_key_algorithms: unique(request.allowed_key_algorithms ?? []),
      allowed_ekus: normalizeEkus(request.allowed_ekus ?? []),
      required_csr_attributes: required.kept,
      must_staple: request.must_staple ?? false,
      validity_days: request.validity_days ?? null,
      requires_approval: request.requires_approval ?? false,
    },
    dropped: required.dropped,
  };
}

/** PUT semantics: given fields replace the stored ones (normalised), left-out fields are kept. */
export function applyProfileChanges(
  current: ProfileFields,
  changes: ProfileChanges,
): { fields: ProfileFields; dropped: string[] } {
  const required = changes.required_csr_attributes
    ? filterRequiredAttributes(changes.required_csr_attributes)
    : { kept: current.required_csr_attributes, dropped: [] };
  return {
    fields: {
      name: changes.name ?? current.name,
      description: changes.description ?? current.description,
      allowed_key_algorithms: changes.allowed_key_algorithms
        ? unique(changes.allowed_key_algorithms)
        : current.allowed_key_algorithms,
      allowed_ekus: changes.allowed_ekus ? normalizeEkus(changes.allowed_ekus) : current.allowed_ekus,
      required_csr_attributes: required.kept,
      must_staple: changes.must_staple ?? current.must_staple,
      validity_days: changes.validity_days !== undefined ? changes.validity_days : current.validity_days,
      requires_approval: changes.requires_approval ?? current.requires_approval,
    },
    dropped: required.dropped,
  };
}

/**
 * Spec 2.9 / 4.5: an edit is held for approval when the stored profile requires approval, or the
 * edit would set requires-approval true.
 */
export function profileEditNeedsApproval(
  current: Pick<ProfileFields, 'requires_approval'>,
  changes: Pick<ProfileChanges, 'requires_approval'>,
): boolean {
  return current.requires_approval || changes.requires_approval === true;
}

/**
 * The change an approval stores (spec 2.10 `payload`): only the fields the PUT gave, with the
 * required names already filtered, so what is applied later is what the requester saw accepted.
 */
export function profileEditPayload(changes: ProfileChanges): ProfileChanges {
  const payload: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(changes)) {
    if (value !== undefined) payload[key] = value;
  }
  if (changes.required_csr_attributes) {
    payload.required_csr_attributes = filterRequiredAttributes(changes.required_csr_attributes).kept;
  }
  if (changes.allowed_ekus) payload.allowed_ekus = normalizeEkus(changes.allowed_ekus);
  return payload as ProfileChanges;
}

// ---- enforcement ----

/** The rule a CSR broke, named by the profile field that states it. */
export type ProfileRule =
  'allowed_key_algorithms' | 'allowed_ekus' | 'required_csr_attributes' | 'must_staple';

export type ProfileCheck = { ok: true } | { ok: false; rule: ProfileRule; message: string };

/** What the check reads of a parsed CSR (libs/pki `parseCsr`). */
export type ProfileCsrFacts = Pick<
  CertificationRequest,
  'publicKey' | 'subject' | 'attributes' | 'requested'
>;

/** The key of a CSR in the names of KEY_ALGORITHMS (`ECDSA-P256`, `RSA-2048`, ...), else pki's label. */
export function csrKeyAlgorithm(key: ProfileCsrFacts['publicKey']): KeyAlgorithmName | string {
  let name: string = key.description;
  if (key.algorithm === 'ECDSA' && key.curve) name = `ECDSA-${key.curve.replace('-', '')}`;
  else if (key.algorithm === 'RSA' && key.size) name = `RSA-${key.size}`;
  else if (key.algorithm === 'Ed25519') name = 'Ed25519';
  return (KEY_ALGORITHMS as readonly string[]).includes(name) ? (name as KeyAlgorithmName) : name;
}

function hasAttribute(csr: ProfileCsrFacts, entry: AttributeName): boolean {
  switch (entry.kind) {
    case 'eku':
      return (csr.requested.extendedKeyUsage ?? []).includes(entry.key);
    case 'dn':
      return csr.subject.attributes.some((a) => a.oid === entry.key && a.value.trim() !== '');
    case 'pkcs9':
      return csr.attributes.some((a) => a.oid === entry.key && a.values.length > 0);
  }
}

/**
 * Checks a parsed CSR against a profile and returns the first broken rule, in this order:
 * 1. `allowed_key_algorithms` (non-empty): the CSR's key is one of them;
 * 2. `allowed_ekus` (non-empty): every EKU the CSR requests is allowed (requesting none is fine);
 * 3. `required_csr_attributes`: every name is present (an EKU name among the requested EKUs, a DN
 *    name in the subject with a non-empty value, a PKCS#9 name among the request attributes);
 * 4. `must_staple`: when set, the CSR requests the TLS feature status_request (RFC 7633).
 * Pure: no I/O, the same answer for the same CSR and profile.
 */
export function checkCsrAgainstProfile(csr: ProfileCsrFacts, profile: ProfileRules): ProfileCheck {
  const refuse = (rule: ProfileRule, why: string): ProfileCheck => ({
    ok: false,
    rule,
    message: `the CSR breaks rule ${rule} of profile ${profile.id}: ${why}`,
  });
  if (profile.allowed_key_algorithms.length > 0) {
    const key = csrKeyAlgorithm(csr.publicKey);
    if (!(profile.allowed_key_algorithms as readonly string[]).includes(key)) {
      return refuse(
        'allowed_key_algorithms',
        `key algorithm ${key} is not allowed (allowed: ${profile.allowed_key_algorithms.join(', ')})`,
      );
    }
  }
  if (profile.allowed_ekus.length > 0) {
    const extra = (csr.requested.extendedKeyUsage ?? []).filter(
      (eku) => !(profile.allowed_ekus as readonly string[]).includes(eku),
    );
    if (extra.length > 0) {
      return refuse(
        'allowed_ekus',
        `extended key usage ${extra.join(', ')} is not allowed (allowed: ${profile.allowed_ekus.join(', ')})`,
      );
    }
  }
  const missing = profile.required_csr_attributes.filter((name) => {
    const entry = CATALOGUE.get(name.toLowerCase());
    return entry !== undefined && !hasAttribute(csr, entry);
  });
  if (missing.length > 0) {
    return refuse('required_csr_attributes', `required attribute(s) missing: ${missing.join(', ')}`);
  }
  if (profile.must_staple && csr.requested.mustStaple !== true) {
    return refuse('must_staple', 'the profile requires must-staple (TLS feature status_request)');
  }
  return { ok: true };
}

/** The EKU names among a profile's required attributes: what a server-built CSR requests. */
export function requiredEkus(profile: Pick<ProfileRules, 'required_csr_attributes'>): ProfileEkuName[] {
  return profile.required_csr_attributes.filter((name) =>
    (PROFILE_EKU_NAMES as readonly string[]).includes(name),
  ) as ProfileEkuName[];
}
