import { Cidr, cidrContains, embeddedIpv4, IpAddress, parseCidr, parseIpAddress } from './ip-address';

/**
 * The special-purpose classes an address may fall in (IANA special-purpose registries, plus the
 * cloud metadata endpoints). Each outbound caller decides which classes it refuses: the notifier
 * all of them, the health monitor only those a scan of one's own network never needs (ADR 0057,
 * 0062). One table, so a range is added once for everyone.
 */
export type AddressClass =
  | 'cloud_metadata'
  | 'loopback'
  | 'link_local'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'private'
  | 'shared'
  | 'documentation'
  | 'benchmarking'
  | 'protocol_assignment'
  | 'translation'
  | 'discard'
  | 'reserved';

export const ADDRESS_CLASSES: readonly AddressClass[] = [
  'cloud_metadata',
  'loopback',
  'link_local',
  'unspecified',
  'multicast',
  'broadcast',
  'private',
  'shared',
  'documentation',
  'benchmarking',
  'protocol_assignment',
  'translation',
  'discard',
  'reserved',
];

/** First match wins: metadata before link-local (169.254.169.254), broadcast before reserved. */
const RANGES: [AddressClass, string][] = [
  ['cloud_metadata', '169.254.169.254/32'], // AWS, GCP, Azure, OpenStack, DigitalOcean
  ['cloud_metadata', '169.254.170.2/32'], // AWS ECS task metadata
  ['cloud_metadata', '100.100.100.200/32'], // Alibaba Cloud
  ['cloud_metadata', '168.63.129.16/32'], // Azure wire server
  ['cloud_metadata', 'fd00:ec2::254/128'], // AWS IMDS over IPv6
  ['loopback', '127.0.0.0/8'],
  ['loopback', '::1/128'],
  ['link_local', '169.254.0.0/16'],
  ['link_local', 'fe80::/10'],
  ['unspecified', '0.0.0.0/8'],
  ['unspecified', '::/128'],
  ['multicast', '224.0.0.0/4'],
  ['multicast', 'ff00::/8'],
  ['broadcast', '255.255.255.255/32'],
  ['private', '10.0.0.0/8'],
  ['private', '172.16.0.0/12'],
  ['private', '192.168.0.0/16'],
  ['private', 'fc00::/7'],
  ['shared', '100.64.0.0/10'], // carrier-grade NAT
  ['documentation', '192.0.2.0/24'],
  ['documentation', '198.51.100.0/24'],
  ['documentation', '203.0.113.0/24'],
  ['documentation', '2001:db8::/32'],
  ['benchmarking', '198.18.0.0/15'],
  ['protocol_assignment', '192.0.0.0/24'],
  ['translation', '64:ff9b::/96'],
  ['discard', '100::/64'],
  ['reserved', '240.0.0.0/4'],
];

const TABLE: [AddressClass, Cidr][] = RANGES.map(([addressClass, text]) => [
  addressClass,
  parseCidr(text) as Cidr,
]);

function classOf(address: IpAddress): AddressClass | null {
  for (const [addressClass, cidr] of TABLE) if (cidrContains(cidr, address)) return addressClass;
  return null;
}

/**
 * The classes of an address: its own and, for an IPv6 address embedding an IPv4 one (mapped,
 * compatible, NAT64), the embedded address's, so `::ffff:127.0.0.1` is loopback too.
 */
export function addressClasses(address: IpAddress): AddressClass[] {
  const candidates = [address, embeddedIpv4(address)].filter((a): a is IpAddress => a !== null);
  return candidates.map(classOf).filter((c): c is AddressClass => c !== null);
}

export type DestinationVerdict =
  | { allowed: true; address: IpAddress }
  | { allowed: false; reason: 'not_an_ip_address' }
  | { allowed: false; reason: AddressClass };

/**
 * Whether an outbound call may connect to `addressText`, an address already resolved (the caller
 * dials exactly this address, so a DNS answer that changes between check and dial cannot slip
 * through). Refused when it falls in one of the `refused` classes, unless the operator's
 * allow-list names it (or the IPv4 address it embeds).
 */
export function checkDestination(
  addressText: string,
  allowList: readonly Cidr[],
  refused: ReadonlySet<AddressClass>,
): DestinationVerdict {
  const address = parseIpAddress(addressText);
  if (!address) return { allowed: false, reason: 'not_an_ip_address' };
  const reason = addressClasses(address).find((c) => refused.has(c));
  if (reason === undefined) return { allowed: true, address };
  const candidates = [address, embeddedIpv4(address)].filter((a): a is IpAddress => a !== null);
  const listed = allowList.some((cidr) => candidates.some((candidate) => cidrContains(cidr, candidate)));
  return listed ? { allowed: true, address } : { allowed: false, reason };
}

/** Parses an operator allow-list (IPs and CIDRs); throws naming the bad entry. */
export function parseAllowList(entries: string | readonly string[]): Cidr[] {
  const list = typeof entries === 'string' ? entries.split(',') : entries;
  return list
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry) => {
      const cidr = parseCidr(entry);
      if (!cidr) throw new Error(`not a CIDR range: ${entry}`);
      return cidr;
    });
}
