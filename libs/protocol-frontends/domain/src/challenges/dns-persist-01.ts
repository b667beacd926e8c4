import { createHash } from 'node:crypto';
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

/** draft-ietf-acme-dns-persist-02 4.1 item 3: the one hash algorithm every CA accepts (RFC 6920 9.4). */
export const ACCOUNT_HASH_ALGORITHM = 'sha-256';

/** The path under which this server's hashed account URIs live (its directory's `accountHashPrefix`). */
export const ACCOUNT_HASH_PATH = '/acme/account-hash/';

/**
 * draft-ietf-acme-dns-persist-02 4.1 item 3: a hashed account URI, `<prefix>sha-256/<base64url
 * SHA-256(len(domain) || domain || thumbprint || account URL)>`. `domain` is the FQDN the record
 * is at, or `*` (the cross-domain opt-out every CA must accept); `thumbprint` the account key's
 * RFC 7638 thumbprint, base64url (43 characters).
 */
export function hashedAccountUri(
  prefix: string,
  domain: string,
  thumbprint: string,
  accountUrl: string,
): string {
  const name = Buffer.from(domain, 'ascii');
  const digest = createHash('sha256')
    .update(Buffer.from([name.length]))
    .update(name)
    .update(thumbprint, 'ascii')
    .update(accountUrl, 'ascii')
    .digest('base64url');
  return `${prefix}${ACCOUNT_HASH_ALGORITHM}/${digest}`;
}

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
  /**
   * The account's key thumbprints (RFC 7638, base64url), its current key first: a hashed
   * `accounturi` (draft -02) is recomputed over each. Empty: hashed URIs name no one.
   */
  accountThumbprints: readonly string[];
  /** The account is deactivated: none of its records validate (draft -02 4.2 rule 1). */
  accountDeactivated?: boolean;
  /**
   * The account URLs this server may have handed the account, on the origin of a hashed
   * `accounturi` (its `accountHashPrefix` is on the origin the client uses): the hash covers one.
   */
  accountUrlsOn: (origin: string) => readonly string[];
  /** The account id a raw `accounturi` (draft -01) names (matched by path, as a `kid` is: ADR 0053), or null. */
  accountIdOfUri: (uri: string) => string | null;
  /** The FQDN being validated: the identifier, or the base domain of a wildcard. */
  domain: string;
  /** The authorization is for a wildcard (`*.` + `domain`). */
  wildcard: boolean;
  now: Date;
}

/** What a dns-persist-01 validation knows of the ordering account (the server reads it). */
export type DnsPersistAccount = Pick<
  DnsPersistExpectation,
  'accountThumbprints' | 'accountDeactivated' | 'accountUrlsOn'
>;

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
  let refused: Refusal | null = null;
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
      refused ??= why;
    }
  }
  if (failed)
    throw new AcmeProblem(
      'dns',
      `looking up TXT ${DNS_PERSIST_LABEL}.${failed.domain} failed: ${failed.failure}`,
    );
  if (refused) throw new AcmeProblem(refused.type, refused.detail);
  throw new AcmeProblem(
    'incorrectResponse',
    `no record at ${domains.map((d) => `${DNS_PERSIST_LABEL}.${d}`).join(', ')} names ${expected.issuerDomainNames.join(' or ')}`,
  );
}

interface Refusal {
  type: 'unauthorized' | 'malformed';
  detail: string;
}

function refusal(
  record: DnsPersistRecord,
  at: string,
  requested: string,
  expected: DnsPersistExpectation,
): Refusal | null {
  const name = `the ${DNS_PERSIST_LABEL}.${at} record`;
  const unauthorized = (detail: string): Refusal => ({ type: 'unauthorized', detail });
  const uri = record.parameters['accounturi'];
  // The record MUST name the account: one without accounturi is malformed (-02 9.3.1).
  if (uri === undefined) return { type: 'malformed', detail: `${name} has no accounturi` };
  const named = accountNamed(uri, at, expected);
  if (named !== 'yes')
    return named === 'no' ? unauthorized(`${name}'s accounturi names another account`) : named;
  // draft -02 4.2 rule 1: a deactivated account's records stop validating at once.
  if (expected.accountDeactivated) return unauthorized(`${name} names a deactivated account`);
  const until = record.parameters['persistuntil'];
  if (until !== undefined) {
    // 4.1 item 5: a persistUntil that is not a base-10 integer makes the record malformed.
    if (!/^\d{1,12}$/.test(until))
      return { type: 'malformed', detail: `${name}'s persistUntil is not a time` };
    if (Number(until) * 1000 < expected.now.getTime())
      return unauthorized(`${name}'s persistUntil has passed`);
  }
  // Any other policy value, or none, limits the record to exactly its own name (4.1 item 4).
  if ((record.parameters['policy'] ?? '').toLowerCase() === 'wildcard') return null;
  if (at !== requested) return unauthorized(`${name} does not cover its subdomains (policy=wildcard)`);
  if (expected.wildcard) return unauthorized(`${name} does not allow wildcards (policy=wildcard)`);
  return null;
}

/**
 * Whether an `accounturi` names the ordering account: a hashed URI under this server's
 * `accountHashPrefix` (draft -02 4.1 item 3, 4.2: recomputed over each of the account's keys,
 * current first, for the record's own FQDN and for `*`, compared as strings), or the account URL
 * itself (draft -01, still read: clients of -01 publish it). A hashed URI with an algorithm this
 * CA does not accept is malformed (4.1 item 3).
 */
function accountNamed(uri: string, at: string, expected: DnsPersistExpectation): 'yes' | 'no' | Refusal {
  const hashed = parseHashedAccountUri(uri);
  if (!hashed) return expected.accountIdOfUri(uri) === expected.accountId ? 'yes' : 'no';
  if (hashed.algorithm !== ACCOUNT_HASH_ALGORITHM)
    return {
      type: 'malformed',
      detail: `the ${DNS_PERSIST_LABEL}.${at} record's accounturi uses ${hashed.algorithm}; this CA accepts ${ACCOUNT_HASH_ALGORITHM}`,
    };
  // A SHA-256 digest is 43 base64url characters; any other length is not a hash (9.3.1).
  if (hashed.value.length !== 43)
    return {
      type: 'malformed',
      detail: `the ${DNS_PERSIST_LABEL}.${at} record's accounturi is not a ${ACCOUNT_HASH_ALGORITHM} hash`,
    };
  const urls = expected.accountUrlsOn(hashed.origin);
  for (const thumbprint of expected.accountThumbprints)
    for (const domain of [at, '*'])
      for (const url of urls)
        if (hashedAccountUri(hashed.prefix, domain, thumbprint, url) === uri) return 'yes';
  return 'no';
}

/** A hashed account URI of this server's form (https, `ACCOUNT_HASH_PATH`, written as parsed), else null. */
function parseHashedAccountUri(
  uri: string,
): { prefix: string; origin: string; algorithm: string; value: string } | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.username || url.password || url.search || url.hash || url.href !== uri)
    return null;
  if (!url.pathname.startsWith(ACCOUNT_HASH_PATH)) return null;
  const match = /^([a-z0-9-]{1,32})\/([A-Za-z0-9_-]{1,128})$/.exec(
    url.pathname.slice(ACCOUNT_HASH_PATH.length),
  );
  if (!match) return null;
  return {
    prefix: `${url.origin}${ACCOUNT_HASH_PATH}`,
    origin: url.origin,
    algorithm: match[1],
    value: match[2],
  };
}
