import {
  AddressClass,
  addressClasses,
  checkDestination as checkAgainst,
  Cidr,
  DestinationVerdict as SharedVerdict,
  IpAddress,
  parseAllowList as parseList,
} from '@certlane/network-safety';

/**
 * The address classes a probe or scan refuses (the classification itself is the shared one,
 * `@certlane/network-safety`). Private ranges (10/8, 172.16/12, 192.168/16, fc00::/7) and the
 * other special-purpose ones are NOT refused: scanning an organisation's own networks is what
 * discovery is for (ADR 0057).
 */
export const PROBE_REFUSED_CLASSES = new Set<AddressClass>([
  'cloud_metadata',
  'loopback',
  'link_local',
  'unspecified',
  'multicast',
  'broadcast',
]);

export type ReservedCategory =
  'loopback' | 'link_local' | 'cloud_metadata' | 'unspecified' | 'multicast' | 'broadcast';

export type DestinationVerdict =
  | { allowed: true; address: IpAddress }
  | { allowed: false; reason: 'not_an_ip_address' }
  | { allowed: false; reason: ReservedCategory };

/** The reserved category of an address, looking through IPv4 embedded in IPv6; null when public or private. */
export function reservedCategory(address: IpAddress): ReservedCategory | null {
  const found = addressClasses(address).find((c) => PROBE_REFUSED_CLASSES.has(c));
  return (found as ReservedCategory | undefined) ?? null;
}

/**
 * Decides whether a scan or probe may connect to `addressText`, an address already resolved (the
 * caller dials exactly this address). `SERVICE_NETWORK_ALLOW_CIDRS` re-admits refused ranges.
 */
export function checkDestination(addressText: string, allowList: readonly Cidr[]): DestinationVerdict {
  return checkAgainst(addressText, allowList, PROBE_REFUSED_CLASSES) as SharedVerdict as DestinationVerdict;
}

/** Parses the operator allow-list (comma-separated CIDRs); throws naming the bad entry. */
export function parseAllowList(text: string): Cidr[] {
  return parseList(text);
}
