import { Cidr, cidrContains, embeddedIpv4, IpAddress, parseCidr, parseIpAddress } from './ip-address';

/**
 * Why a destination is refused. Private ranges (10/8, 172.16/12, 192.168/16, fc00::/7) are NOT
 * refused: scanning an organisation's own networks is what discovery is for (ADR 0057).
 */
export type ReservedCategory =
  'loopback' | 'link_local' | 'cloud_metadata' | 'unspecified' | 'multicast' | 'broadcast';

const RANGES: [ReservedCategory, string][] = [
  // Metadata first: 169.254.169.254 is also link-local, and the more precise reason is the useful one.
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
];

const RESERVED: [ReservedCategory, Cidr][] = RANGES.map(([category, text]) => [
  category,
  parseCidr(text) as Cidr,
]);

export type DestinationVerdict =
  | { allowed: true; address: IpAddress }
  | { allowed: false; reason: 'not_an_ip_address' }
  | { allowed: false; reason: ReservedCategory };

/** The reserved category of an address, looking through IPv4 embedded in IPv6; null when public or private. */
export function reservedCategory(address: IpAddress): ReservedCategory | null {
  const candidates = [address, embeddedIpv4(address)].filter((a): a is IpAddress => a !== null);
  for (const candidate of candidates) {
    for (const [category, cidr] of RESERVED) if (cidrContains(cidr, candidate)) return category;
  }
  return null;
}

/**
 * Decides whether a scan or probe may connect to `addressText`, an address already resolved (the
 * caller dials exactly this address, so a DNS answer that changes between check and dial cannot
 * slip through). An operator allow-list of CIDRs re-admits reserved ranges (tests name loopback).
 */
export function checkDestination(addressText: string, allowList: readonly Cidr[]): DestinationVerdict {
  const address = parseIpAddress(addressText);
  if (!address) return { allowed: false, reason: 'not_an_ip_address' };
  const category = reservedCategory(address);
  if (category === null) return { allowed: true, address };
  const candidates = [address, embeddedIpv4(address)].filter((a): a is IpAddress => a !== null);
  const listed = allowList.some((cidr) => candidates.some((candidate) => cidrContains(cidr, candidate)));
  return listed ? { allowed: true, address } : { allowed: false, reason: category };
}

/** Parses the operator allow-list (comma-separated CIDRs); throws naming the bad entry. */
export function parseAllowList(text: string): Cidr[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry) => {
      const cidr = parseCidr(entry);
      if (!cidr) throw new Error(`not a CIDR range: ${entry}`);
      return cidr;
    });
}
