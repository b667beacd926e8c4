import { getDomain } from 'tldts';
import { parseCaaIssueValue } from '../caa/caa';
import { AcmeProblem } from '../problems/acme-problem';

/** draft-ietf-acme-dns-persist: the label the standing TXT record is published under. */
export const DNS_PERSIST_LABEL = '_validation-persist';

/** One `_validation-persist` TXT record read as an RFC 8659 4.2 issue-value. */
export interface DnsPersistRecord {
  issuerDomainName: string;
  /** Parameter names lower-cased; values as written. */
  parameters: Record<string, string>;
}

const DOMAIN = /^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*$/;

/** The parameters this CA reads; others are ignored, as the draft requires of unrecognized tags. */
const KNOWN_PARAMETERS = ['accounturi', 'policy', 'persistuntil'];

/**
 * Parses the value of a `_validation-persist` TXT record: `<issuer-domain-name>` then
 * `; key=value` parameters (the issue-value syntax of RFC 8659 4.2). Null when it does not parse:
 * a record that does not parse is not a record of any CA, and is passed over.
 */
export function parseDnsPersistRecord(value: string): DnsPersistRecord | null {
  const parsed = parseCaaIssueValue(value);
  if (!parsed) return null;
  const issuerDomainName = parsed.domain.replace(/\.$/, '');
  if (!DOMAIN.test(issuerDomainName) || issuerDomainName.length > 253) return null;
  // A parameter this CA reads, named twice, is ambiguous: the record is refused rather than read one way.
  if (KNOWN_PARAMETERS.some((tag) => parsed.repeated.has(tag))) return null;
  return { issuerDomainName, parameters: Object.fromEntries(parsed.parameters) };
}

export interface DnsPersistExpectation {
  /** The issuer domain names the challenge listed (`issuer-domain-names`). */
  issuerDomainNames: readonly string[];
  /** The account the order belongs to. */
  accountId: string;
  /** The account id an `accounturi` names (matched by path, as a `kid` is: ADR 0053), or null. */
  accountIdOfUri: (uri: string) => string | null;
  /** The FQDN being validated: the identifier, or the base domain of a wildcard. */
  domain: string;
  /** The authorization is for a wildcard (`*.` + `domain`). */
  wildcard: boolean;
  now: Date;
}

/** What the TXT lookup of `_validation-persist.<domain>` found. */
export type DnsPersistLookup =
  /** The records' values; none when the name does not exist or has no TXT record. */
  | { domain: string; values: readonly string[] }
  /** Any other failure (timeout, SERVFAIL...), as the resolver named it. */
  | { domain: string; failure: string };

/**
 * The domains whose `_validation-persist` records may authorize `domain` (lower-cased, no
 * trailing dot), closest first: the domain itself, then each ancestor made by removing labels from
 * the left (draft-ietf-acme-dns-persist-02 6.1: the validated FQDN is the requested FQDN or a
 * proper suffix of it), down to the registrable domain as the CA/B Forum Authorization Domain Name
 * prunes: never a public suffix of the Public Suffix List, private suffixes included (a record at
 * `github.io` or `co.uk` must not speak for every name under it). A name that is itself a public
 * suffix is looked up only under its own name (ADR 0068).
 */
export function dnsPersistDomains(domain: string): string[] {
  const name = domain.toLowerCase().replace(/\.$/, '');
  const labels = name.split('.');
  const registrable = getDomain(name, { allowPrivateDomains: true });
  const floor = registrable ? registrable.split('.').length : labels.length;
  const domains = [name];
  for (let i = 1; labels.length - i >= floor; i++) domains.push(labels.slice(i).join('.'));
  return domains;
}

/**
 * draft-ietf-acme-dns-persist-02 validation over the TXT records found at
 * `_validation-persist.<d>` for each `d` of `dnsPersistDomains(expected.domain)` (lookups of other
 * names are ignored). Valid when one record, at any of them, names one of the challenge's issuer
 * domain names, carries `accounturi` naming the ordering account, has not passed its
 * `persistUntil`, and carries `policy=wildcard` when it is at an ancestor (6.2) or the
 * authorization is for a wildcard (5.1). The draft gives no precedence between names, so a record
 * refused at a closer name does not hide a valid one further up (the parent's `policy=wildcard`
 * is the zone owner's explicit opt-in, 7.3). Otherwise: `dns` when a lookup failed (the record
 * that would do may be behind it), else `unauthorized` naming why the closest record of this CA
 * was refused, else `incorrectResponse` (no record names this CA). Answers the `persistUntil` of
 * the record that validated, if it has one: the authorization must not outlive it (4.1 item 5).
 */
export function checkDnsPersist(
  lookups: readonly DnsPersistLookup[],
  expected: DnsPersistExpectation,
): { validUntil?: Date } {
  const domains = dnsPersistDomains(expected.domain);
  let failed: { domain: string; failure: string } | undefined;
  let reason = '';
  for (const domain of domains) {
    const lookup = lookups.find((l) => l.domain.toLowerCase().replace(/\.$/, '') === domain);
    if (lookup === undefined) continue;
    if ('failure' in lookup) {
      failed ??= lookup;
      continue;
    }
    const ours = lookup.values
      .map(parseDnsPersistRecord)
      .filter((r): r is DnsPersistRecord => r !== null)
      .filter((r) => expected.issuerDomainNames.includes(r.issuerDomainName));
    for (const record of ours) {
      const why = refusal(record, domain, domains[0], expected);
      const until = record.parameters['persistuntil'];
      if (why === null) return until === undefined ? {} : { validUntil: new Date(Number(until) * 1000) };
      reason ||= why;
    }
  }
  if (failed)
    throw new AcmeProblem(
      'dns',
      `looking up TXT ${DNS_PERSIST_LABEL}.${failed.domain} failed: ${failed.failure}`,
    );
  if (reason) throw new AcmeProblem('unauthorized', reason);
  throw new AcmeProblem(
    'incorrectResponse',
    `no record at ${domains.map((d) => `${DNS_PERSIST_LABEL}.${d}`).join(', ')} names ${expected.issuerDomainNames.join(' or ')}`,
  );
}

function refusal(
  record: DnsPersistRecord,
  at: string,
  requested: string,
  expected: DnsPersistExpectation,
): string | null {
  const name = `the ${DNS_PERSIST_LABEL}.${at} record`;
  const uri = record.parameters['accounturi'];
  // The record MUST name the account: one without accounturi authorizes no one.
  if (uri === undefined) return `${name} has no accounturi`;
  if (expected.accountIdOfUri(uri) !== expected.accountId)
    return `${name}'s accounturi names another account`;
  const until = record.parameters['persistuntil'];
  if (until !== undefined) {
    if (!/^\d{1,12}$/.test(until)) return `${name}'s persistUntil is not a time`;
    if (Number(until) * 1000 < expected.now.getTime()) return `${name}'s persistUntil has passed`;
  }
  // Any other policy value, or none, limits the record to exactly its own name (4.1 item 4).
  if ((record.parameters['policy'] ?? '').toLowerCase() === 'wildcard') return null;
  if (at !== requested) return `${name} does not cover its subdomains (policy=wildcard)`;
  if (expected.wildcard) return `${name} does not allow wildcards (policy=wildcard)`;
  return null;
}
