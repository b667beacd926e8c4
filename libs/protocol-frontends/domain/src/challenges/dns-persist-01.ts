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
const PARAMETER = /^([A-Za-z0-9]+)=([\x21-\x3a\x3c-\x7e]*)$/;

/**
 * Parses the value of a `_validation-persist` TXT record: `<issuer-domain-name>` then
 * `; key=value` parameters (the issue-value syntax of RFC 8659 4.2). Null when it does not parse:
 * a record that does not parse is not a record of any CA, and is passed over.
 */
export function parseDnsPersistRecord(value: string): DnsPersistRecord | null {
  const [head, ...rest] = value.split(';');
  const issuerDomainName = head.trim().toLowerCase().replace(/\.$/, '');
  if (!DOMAIN.test(issuerDomainName) || issuerDomainName.length > 253) return null;
  const parameters: Record<string, string> = {};
  for (const part of rest) {
    const trimmed = part.trim();
    if (trimmed === '') continue;
    const match = PARAMETER.exec(trimmed);
    if (!match) return null;
    const key = match[1].toLowerCase();
    // A parameter named twice is ambiguous: the record is refused rather than read one way.
    if (key in parameters) return null;
    parameters[key] = match[2];
  }
  return { issuerDomainName, parameters };
}

export interface DnsPersistExpectation {
  /** The issuer domain names the challenge listed (`issuer-domain-names`). */
  issuerDomainNames: readonly string[];
  /** The account the order belongs to. */
  accountId: string;
  /** The account id an `accounturi` names (matched by path, as a `kid` is: ADR 0053), or null. */
  accountIdOfUri: (uri: string) => string | null;
  /** The authorization is for a wildcard (`*.` + its identifier). */
  wildcard: boolean;
  now: Date;
}

/**
 * draft-ietf-acme-dns-persist validation over the TXT records found at
 * `_validation-persist.<domain>`: valid when one record names one of the challenge's issuer domain
 * names, carries `accounturi` naming the ordering account, has not passed its `persistUntil`, and,
 * for a wildcard, carries `policy=wildcard`. Otherwise an `unauthorized` problem naming why the
 * closest record was refused (or `incorrectResponse` when no record names this CA).
 */
export function checkDnsPersist(values: readonly string[], expected: DnsPersistExpectation): void {
  const ours = values
    .map(parseDnsPersistRecord)
    .filter((r): r is DnsPersistRecord => r !== null)
    .filter((r) => expected.issuerDomainNames.includes(r.issuerDomainName));
  if (ours.length === 0)
    throw new AcmeProblem(
      'incorrectResponse',
      `no ${DNS_PERSIST_LABEL} record names ${expected.issuerDomainNames.join(' or ')}`,
    );
  let reason = '';
  for (const record of ours) {
    const why = refusal(record, expected);
    if (why === null) return;
    reason ||= why;
  }
  throw new AcmeProblem('unauthorized', reason);
}

function refusal(record: DnsPersistRecord, expected: DnsPersistExpectation): string | null {
  const uri = record.parameters['accounturi'];
  // The record MUST name the account: one without accounturi authorizes no one.
  if (uri === undefined) return `the ${DNS_PERSIST_LABEL} record has no accounturi`;
  if (expected.accountIdOfUri(uri) !== expected.accountId)
    return `the ${DNS_PERSIST_LABEL} record's accounturi names another account`;
  const until = record.parameters['persistuntil'];
  if (until !== undefined) {
    if (!/^\d{1,12}$/.test(until)) return `the ${DNS_PERSIST_LABEL} record's persistUntil is not a time`;
    if (Number(until) * 1000 < expected.now.getTime())
      return `the ${DNS_PERSIST_LABEL} record's persistUntil has passed`;
  }
  if (expected.wildcard && (record.parameters['policy'] ?? '').toLowerCase() !== 'wildcard')
    return `the ${DNS_PERSIST_LABEL} record does not allow wildcards (policy=wildcard)`;
  return null;
}
