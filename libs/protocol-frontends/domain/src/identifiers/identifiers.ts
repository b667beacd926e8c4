import { isIP } from 'node:net';
import { AcmeIdentifier, AcmeProblem } from '../problems/acme-problem';
import { ChallengeType } from '../challenges/challenge-status';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Whether `name` is a DNS name a certificate may carry (lower case, LDH labels, optional `*.`). */
function dnsProblem(name: string): string | null {
  if (name.length > 253) return 'is longer than 253 characters';
  if (name !== name.toLowerCase()) return 'is not in lower case';
  if (name.endsWith('.')) return 'ends with a dot';
  const labels = name.split('.');
  const [first, ...rest] = labels;
  const wildcard = first === '*';
  if (labels.length < 2) return 'has a single label';
  if (wildcard && rest.length < 2) return 'is a wildcard directly under a top-level domain';
  for (const label of wildcard ? rest : labels) {
    if (label === '*') return 'has a wildcard that is not the leftmost label';
    if (!LABEL.test(label)) return `has an invalid label "${label}"`;
  }
  if (/^[0-9]+$/.test(labels[labels.length - 1]))
    return 'ends in a numeric label (an IP address is an ip identifier)';
  return null;
}

/** The canonical text of an IP identifier (RFC 8738 3: textual form; IPv6 compressed, lower case). */
function canonicalIp(value: string): string | null {
  const version = isIP(value);
  if (version === 4) return value.split('.').every((octet) => String(Number(octet)) === octet) ? value : null;
  if (version === 6) return new URL(`http://[${value}]/`).hostname.slice(1, -1);
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
    identifier?: AcmeIdentifier;
  }[] = [];
  const out = new Map<string, AcmeIdentifier>();
  for (const item of raw) {
    const { type, value } = (item ?? {}) as { type?: unknown; value?: unknown };
    if (typeof type !== 'string' || typeof value !== 'string') {
      problems.push({ type: 'malformed', detail: 'an identifier needs a string type and value' });
      continue;
    }
    if (type === 'dns') {
      const why = dnsProblem(value);
      if (why)
        problems.push({ type: 'rejectedIdentifier', detail: `${value} ${why}`, identifier: { type, value } });
      else out.set(`dns:${value}`, { type, value });
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
      problems.push({ type: 'unsupportedIdentifier', detail: `identifier type "${type}" is not supported` });
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

/**
 * RFC 8555 7.4: the CSR must name exactly the order's identifiers (in the subject alternative
 * names; a common name, if any, must be one of them). Throws badCSR otherwise.
 */
export function checkCsrAgainstOrder(
  csr: { commonName?: string; dnsNames: readonly string[]; ipAddresses: readonly string[] },
  identifiers: readonly AcmeIdentifier[],
): void {
  const want = new Set(identifiers.map((i) => `${i.type}:${i.value}`));
  const have = new Set([
    ...csr.dnsNames.map((n) => `dns:${n.toLowerCase()}`),
    ...csr.ipAddresses.map((a) => `ip:${canonicalIp(a) ?? a}`),
  ]);
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
  const missing = [...want].filter((k) => !have.has(k));
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
}
