import { AcmeProblem } from '../problems/acme-problem';

/** One CAA resource record (RFC 8659 4.1): the critical flag, the tag and the value. */
export interface CaaRecord {
  critical: boolean;
  tag: string;
  value: string;
}

/** The tags this CA understands; a critical record of another tag forbids issuance (RFC 8659 4.1). */
const KNOWN_TAGS = new Set([
  'issue',
  'issuewild',
  'iodef',
  'contactemail',
  'contactphone',
  'issuemail',
  'issuevmc',
]);

/**
 * RFC 8659 3: the relevant RRset is the CAA set of the name, else of its closest ancestor that
 * has one (the root excluded). `lookup` answers [] for a name without CAA records (NXDOMAIN or
 * NODATA) and throws for a failed lookup, which must stop issuance.
 */
export async function relevantCaaRecords(
  name: string,
  lookup: (name: string) => Promise<CaaRecord[]>,
): Promise<{ name: string; records: CaaRecord[] } | null> {
  const labels = name.replace(/^\*\./, '').split('.');
  for (let i = 0; i < labels.length; i++) {
    const candidate = labels.slice(i).join('.');
    const records = await lookup(candidate);
    if (records.length > 0) return { name: candidate, records };
  }
  return null;
}

/** RFC 8659 4.2: `tag *WSP "=" *WSP value`, tag `(ALPHA / DIGIT) *( *("-") (ALPHA / DIGIT))`. */
const PARAMETER = /^([A-Za-z0-9](?:-*[A-Za-z0-9])*)[ \t]*=[ \t]*([\x21-\x3a\x3c-\x7e]*)$/;

/** An issue-value read: the issuer domain name, the parameters (tags lower-cased), and repeated tags. */
export interface IssueValue {
  domain: string;
  parameters: Map<string, string>;
  /** Tags given more than once (RFC 8657 3: such an accounturi or validationmethods is unsatisfiable). */
  repeated: Set<string>;
}

/**
 * RFC 8659 4.2: `issuer-domain-name [";" parameter *(";" parameter)]`, the syntax of CAA issue
 * properties and of dns-persist-01 records. Null when a parameter does not parse.
 */
export function parseCaaIssueValue(value: string): IssueValue | null {
  const [domainPart, ...rest] = value.split(';');
  const domain = domainPart.trim().toLowerCase();
  const parameters = new Map<string, string>();
  const repeated = new Set<string>();
  for (const part of rest) {
    const text = part.trim();
    if (!text) continue;
    const match = PARAMETER.exec(text);
    if (!match) return null;
    const tag = match[1].toLowerCase();
    if (parameters.has(tag)) repeated.add(tag);
    parameters.set(tag, match[2]);
  }
  return { domain, parameters, repeated };
}

export interface CaaContext {
  /** The identifier is a wildcard: issuewild properties govern when present (RFC 8659 4.3). */
  wildcard: boolean;
  /** The issuer domain names that name this CA (the directory's caaIdentities). */
  caaIdentities: readonly string[];
  /** The account asking, and how to read an account URI (RFC 8657 3: accounturi). */
  accountId: string;
  accountIdOfUri(uri: string): string | null;
  /** The challenge type that validated the identifier (RFC 8657 4: validationmethods). */
  validationMethod: string;
}

/**
 * RFC 8659 4 with RFC 8657: whether the relevant CAA records let this CA issue. An unknown
 * critical property forbids; the issue (or, for a wildcard, issuewild if any) properties decide;
 * none of them: permitted. A property permits when it names one of our identities and each
 * accounturi/validationmethods parameter it carries fits. Refusals are `caa` problems.
 */
export function checkCaa(records: CaaRecord[], context: CaaContext): void {
  const unknownCritical = records.find((r) => r.critical && !KNOWN_TAGS.has(r.tag.toLowerCase()));
  if (unknownCritical)
    throw new AcmeProblem('caa', `a critical CAA property "${unknownCritical.tag}" is not understood`);
  const issue = records.filter((r) => r.tag.toLowerCase() === 'issue');
  const issuewild = records.filter((r) => r.tag.toLowerCase() === 'issuewild');
  const governing = context.wildcard && issuewild.length > 0 ? issuewild : issue;
  if (governing.length === 0) return;
  const identities = new Set(context.caaIdentities.map((i) => i.toLowerCase()));
  for (const record of governing) {
    const parsed = parseCaaIssueValue(record.value);
    if (!parsed || !identities.has(parsed.domain)) continue;
    // RFC 8657 3 and 4: a property with either parameter more than once is unsatisfiable.
    if (parsed.repeated.has('accounturi') || parsed.repeated.has('validationmethods')) continue;
    const accountUri = parsed.parameters.get('accounturi');
    if (accountUri !== undefined && context.accountIdOfUri(accountUri) !== context.accountId) continue;
    const methods = parsed.parameters.get('validationmethods');
    if (
      methods !== undefined &&
      !methods
        .split(',')
        .map((m) => m.trim())
        .includes(context.validationMethod)
    )
      continue;
    return;
  }
  throw new AcmeProblem(
    'caa',
    `CAA records forbid this CA (${[...identities].join(', ')}) to issue${context.wildcard ? ' a wildcard' : ''} for this account and validation method`,
  );
}
