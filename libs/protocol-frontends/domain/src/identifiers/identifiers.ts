import { isIP } from 'node:net';
import { domainToASCII, domainToUnicode } from 'node:url';
import { AcmeIdentifier, AcmeProblem, SubproblemIdentifier } from '../problems/acme-problem';
import { ChallengeType } from '../challenges/challenge-status';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Whether `name` (lower-cased) is a DNS name a certificate may carry (LDH labels, optional `*.`). */
function dnsProblem(name: string): string | null {
  if (name.length > 253) return 'is longer than 253 characters';
  if (name.endsWith('.')) return 'ends with a dot';
  const labels = name.split('.');
  const [first, ...rest] = labels;
  const wildcard = first === '*';
  if (labels.length < 2) return 'has a single label';
  if (wildcard && rest.length < 2) return 'is a wildcard directly under a top-level domain';
  for (const label of wildcard ? rest : labels) {
    if (label === '*') return 'has a wildcard that is not the leftmost label';
    if (!LABEL.test(label)) return `has an invalid label "${label}"`;
    const why = reservedLabelProblem(label);
    if (why) return why;
  }
  if (/^[0-9]+$/.test(labels[labels.length - 1]))
    return 'ends in a numeric label (an IP address is an ip identifier)';
  return null;
}

/**
 * CA/B BR 7.1.2.7.12: a label with "--" in its third and fourth characters is a reserved LDH label
 * unless it is an A-label ("xn--") that decodes, and encodes back, as IDNA says (a P-Label).
 */
function reservedLabelProblem(label: string): string | null {
  if (label.slice(2, 4) !== '--') return null;
  if (!label.startsWith('xn--')) return `has a reserved label "${label}"`;
  const unicode = domainToUnicode(label);
  if (!unicode || domainToASCII(unicode) !== label) return `has an invalid IDNA label "${label}"`;
  return null;
}

/**
 * The canonical text of an IP identifier (RFC 8738 3: textual form; IPv6 compressed, lower case);
 * null for anything else, an IPv6 zone index ("%eth0") included.
 */
function canonicalIp(value: string): string | null {
  const version = isIP(value);
  if (version === 4) return value.split('.').every((octet) => String(Number(octet)) === octet) ? value : null;
  if (version === 6 && !value.includes('%')) return new URL(`http://[${value}]/`).hostname.slice(1, -1);
  return null;
}

/**
 * Checks the identifiers of a newOrder (RFC 8555 7.4, RFC 8738) and returns them deduplicated and
 * in a stable order; refused identifiers are answered as one problem with a subproblem each.
 */
export function checkOrderIdentifiers(
  raw: unknown,
  rules: { allowIp: boolean; maxIdentifiers?: number } = { allowIp: true },
): AcmeIdentifier[] {
  if (!Array.isArray(raw) || raw.length === 0)
    throw new AcmeProblem('malformed', 'identifiers must be a non-empty array');
  const max = rules.maxIdentifiers ?? 100;
  if (raw.length > max)
    throw new AcmeProblem('rejectedIdentifier', `an order carries at most ${max} identifiers`);
  const problems: {
    type: 'malformed' | 'rejectedIdentifier' | 'unsupportedIdentifier';
    detail: string;
    identifier?: SubproblemIdentifier;
  }[] = [];
  const out = new Map<string, AcmeIdentifier>();
  for (const item of raw) {
    const { type, value } = (item ?? {}) as { type?: unknown; value?: unknown };
    if (typeof type !== 'string' || typeof value !== 'string') {
      problems.push({ type: 'malformed', detail: 'an identifier needs a string type and value' });
      continue;
    }
    if (type === 'dns') {
      // DNS names compare without case (RFC 4343): the order, its authorizations and the
      // certificate carry the lower-case form, as the CSR check compares it.
      const name = value.toLowerCase();
      const why = dnsProblem(name);
      if (why)
        problems.push({ type: 'rejectedIdentifier', detail: `${value} ${why}`, identifier: { type, value } });
      else out.set(`dns:${name}`, { type, value: name });
    } else if (type === 'ip') {
      const ip = canonicalIp(value);
      if (!rules.allowIp)
        problems.push({
          type: 'rejectedIdentifier',
          detail: 'this profile does not issue for IP addresses',
          identifier: { type, value },
        });
      else if (!ip)
        problems.push({
          type: 'malformed',
          detail: `${value} is not an IP address`,
          identifier: { type, value },
        });
      else out.set(`ip:${ip}`, { type, value: ip });
    } else {
      problems.push({
        type: 'unsupportedIdentifier',
        detail: `identifier type "${type}" is not supported`,
        identifier: { type, value },
      });
    }
  }
  if (problems.length === 1)
    throw new AcmeProblem(problems[0].type, problems[0].detail, { subproblems: problems });
  if (problems.length > 1)
    throw new AcmeProblem('compound', `${problems.length} identifiers were refused`, {
      subproblems: problems,
    });
  return [...out.values()].sort((a, b) => `${a.type}:${a.value}`.localeCompare(`${b.type}:${b.value}`));
}

/**
 * The challenges offered for an identifier: a wildcard only through DNS (dns-01, RFC 8555 7.1.3,
 * or dns-persist-01), an IP address never through DNS (RFC 8738 7).
 */
export function challengeTypesFor(
  identifier: AcmeIdentifier,
  enabled: readonly ChallengeType[],
): ChallengeType[] {
  const allowed: readonly ChallengeType[] =
    identifier.type === 'ip'
      ? ['http-01', 'tls-alpn-01']
      : identifier.value.startsWith('*.')
        ? ['dns-01', 'dns-persist-01']
        : ['http-01', 'dns-01', 'tls-alpn-01', 'dns-persist-01'];
  return allowed.filter((t) => enabled.includes(t));
}

/** The identifier an authorization is for: a wildcard's authorization names the base domain (RFC 8555 7.1.4). */
export function authorizationIdentifier(identifier: AcmeIdentifier): {
  identifier: AcmeIdentifier;
  wildcard: boolean;
} {
  if (identifier.type === 'dns' && identifier.value.startsWith('*.'))
    return { identifier: { type: 'dns', value: identifier.value.slice(2) }, wildcard: true };
  return { identifier, wildcard: false };
}

/** What a certificate of an order certifies: the order's identifiers, and one common name or none. */
export interface CertifiedNames {
  subjectAltNames: AcmeIdentifier[];
  /** '' for an empty subject. */
  commonName: string;
}

/** RFC 5280 ub-common-name: the longest common name a certificate can carry. */
const MAX_COMMON_NAME = 64;

/**
 * RFC 8555 7.4: the CSR must name exactly the order's identifiers, as DNS names and IP addresses
 * in its subject alternative names or as its common name (which must be one of them); any other
 * kind of name is badCSR ("MUST NOT issue a certificate with contents other than those
 * requested"). Answers what the certificate certifies: the order's identifiers as its subject
 * alternative names, in the CSR's order (a CSR naming an identifier only in its common name still
 * gets it as a SAN, last), and the CSR's common name, else the first DNS name short enough for one.
 * The CSR's other subject attributes (O, OU, C...) were never validated and are left out.
 */
export function checkCsrAgainstOrder(
  csr: { commonName?: string; subjectAltNames: readonly { type: string; value: string }[] },
  identifiers: readonly AcmeIdentifier[],
): CertifiedNames {
  const unsupported = csr.subjectAltNames.filter((n) => n.type !== 'dns' && n.type !== 'ip');
  if (unsupported.length)
    throw new AcmeProblem(
      'badCSR',
      `the CSR requests ${unsupported.map((n) => `${n.type}:${n.value}`).join(', ')}: only DNS names and IP addresses of the order are certified`,
    );
  const want = new Map(identifiers.map((i) => [`${i.type}:${i.value}`, i]));
  const have = new Set(
    csr.subjectAltNames.map((n) =>
      n.type === 'dns' ? `dns:${n.value.toLowerCase()}` : `ip:${canonicalIp(n.value) ?? n.value}`,
    ),
  );
  // The certificate lists its names in the CSR's order, then those the CSR gave only as its CN.
  const certifiedOrder = [...have];
  if (csr.commonName) {
    const cn = csr.commonName.toLowerCase();
    const key = canonicalIp(cn) ? `ip:${canonicalIp(cn)}` : `dns:${cn}`;
    if (!want.has(key))
      throw new AcmeProblem(
        'badCSR',
        `the CSR's common name ${csr.commonName} is not an identifier of the order`,
      );
    have.add(key);
  }
  const missing = [...want.keys()].filter((k) => !have.has(k));
  const extra = [...have].filter((k) => !want.has(k));
  if (missing.length || extra.length)
    throw new AcmeProblem(
      'badCSR',
      [
        missing.length ? `the CSR lacks ${missing.join(', ')}` : '',
        extra.length ? `the CSR names ${extra.join(', ')} which the order does not` : '',
      ]
        .filter(Boolean)
        .join('; '),
    );
  const subjectAltNames = [...new Set([...certifiedOrder, ...have])].map((key) => {
    const { type, value } = want.get(key)!;
    return { type, value };
  });
  const commonName =
    csr.commonName?.toLowerCase() ??
    subjectAltNames.find((i) => i.type === 'dns' && i.value.length <= MAX_COMMON_NAME)?.value ??
    '';
  return { subjectAltNames, commonName };
}
