import { AcmeIdentifier, AcmeProblem } from '../problems/acme-problem';

/** An ACME profile's id: the `{id}` of `/acme/profile/{id}/` and a `profile` of newOrder. */
export const ACME_PROFILE_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** What one ACME profile decides (issue 19 point 7; ADR 0060). */
export interface AcmeProfileSettings {
  id: string;
  description: string;
  /** The issuer of the registry that signs; null: issuance's default. */
  issuerId: string | null;
  /**
   * The certificate profile (of issuance) whose rules a finalize's CSR must meet and whose
   * validity caps validityDays; null: none.
   */
  certificateProfileId: string | null;
  /** The certificate lifetime asked of the issuer; null: the issuer's default. */
  validityDays: number | null;
  allowIp: boolean;
  /** Domains (and their subdomains) orders may name; empty: any. */
  allowedDomains: string[];
  /** Domains (and their subdomains) orders may not name; wins over allowedDomains. */
  deniedDomains: string[];
  externalAccountRequired: boolean;
  newOrdersPerHour: number;
  owner: string | null;
  team: string | null;
  /**
   * The issuer domain names of this profile in CAA records and in dns-persist-01 records (the
   * directory's `meta.caaIdentities`); null: the server-wide SERVICE_ACME_CAA_IDENTITIES.
   */
  caaIdentities: string[] | null;
  /** Whether dns-persist-01 (draft-ietf-acme-dns-persist) is offered for dns identifiers. */
  dnsPersist01: boolean;
  /** Whether a newOrder may ask for notBefore/notAfter (RFC 8555 7.4; ADR 0069). */
  allowRequestedValidity: boolean;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Whether `domain` names `suffix` or a name under it. */
function under(domain: string, suffix: string): boolean {
  return domain === suffix || domain.endsWith(`.${suffix}`);
}

/**
 * The lifetime an ACME profile asks of the issuer: its own, capped by its certificate profile's
 * validity; either alone when the other is null; null (the issuer's default) when both are.
 */
export function acmeValidityDays(
  validityDays: number | null,
  certificateProfileDays: number | null | undefined,
): number | null {
  if (validityDays === null) return certificateProfileDays ?? null;
  return certificateProfileDays == null ? validityDays : Math.min(validityDays, certificateProfileDays);
}

/**
 * `allow_ip` of a profile being created or updated: as asked when the request names it; otherwise
 * off when this change gives the profile its first allowed domains (a profile restricted to some
 * domains issues for no IP address unless told so), else unchanged (ADR 0053 amendment).
 */
export function allowIpAfterChange(change: {
  requested: boolean | undefined;
  current: boolean;
  allowedBefore: readonly string[];
  allowedAfter: readonly string[];
}): boolean {
  if (change.requested !== undefined) return change.requested;
  if (change.allowedBefore.length === 0 && change.allowedAfter.length > 0) return false;
  return change.current;
}

/** The problems of a profile's domain lists (each entry a lower-case DNS name, no wildcard). */
export function acmeProfileProblems(
  settings: Pick<AcmeProfileSettings, 'allowedDomains' | 'deniedDomains'> &
    Partial<Pick<AcmeProfileSettings, 'caaIdentities'>>,
): string[] {
  const problems: string[] = [];
  for (const [field, list] of [
    ['allowed_domains', settings.allowedDomains],
    ['denied_domains', settings.deniedDomains],
    ['caa_identities', settings.caaIdentities ?? []],
  ] as const) {
    for (const domain of list) {
      const labels = domain.split('.');
      if (domain.length > 253 || labels.length < 1 || !labels.every((label) => LABEL.test(label)))
        problems.push(`${field}: "${domain}" is not a lower-case DNS name`);
    }
  }
  return problems;
}

/**
 * The profile's identifier rules over identifiers checked by `checkOrderIdentifiers`: a dns
 * identifier (a wildcard by its base name) under a denied domain, or under none of the allowed
 * ones, is refused; ip identifiers only where the profile allows them. One `rejectedIdentifier`
 * problem with a subproblem per refused identifier (RFC 8555 6.7.1).
 */
export function checkIdentifiersForProfile(
  identifiers: AcmeIdentifier[],
  profile: Pick<AcmeProfileSettings, 'id' | 'allowIp' | 'allowedDomains' | 'deniedDomains'>,
): void {
  const refused: { identifier: AcmeIdentifier; detail: string }[] = [];
  for (const identifier of identifiers) {
    if (identifier.type === 'ip') {
      if (!profile.allowIp)
        refused.push({ identifier, detail: `profile ${profile.id} issues for no IP address` });
      continue;
    }
    const name = identifier.value.replace(/^\*\./, '');
    const denied = profile.deniedDomains.find((domain) => under(name, domain));
    if (denied) refused.push({ identifier, detail: `profile ${profile.id} does not issue under ${denied}` });
    else if (
      profile.allowedDomains.length > 0 &&
      !profile.allowedDomains.some((domain) => under(name, domain))
    )
      refused.push({
        identifier,
        detail: `profile ${profile.id} issues only under ${profile.allowedDomains.join(', ')}`,
      });
  }
  if (refused.length === 0) return;
  throw new AcmeProblem(
    'rejectedIdentifier',
    refused.length === 1
      ? refused[0].detail
      : `${refused.length} identifiers are refused by profile ${profile.id}`,
    { subproblems: refused.map((r) => ({ type: 'rejectedIdentifier' as const, ...r })) },
  );
}
