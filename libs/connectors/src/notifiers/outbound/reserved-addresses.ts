import {
  ADDRESS_CLASSES,
  AddressClass,
  checkDestination,
  Cidr,
  parseAllowList,
} from '@certlane/network-safety';

/**
 * An outbound notifier call refuses every special-purpose class of `@certlane/network-safety`:
 * private ranges (RFC 1918, CGNAT, IPv6 ULA), loopback, link-local and the cloud metadata
 * endpoints, documentation, benchmarking, multicast and reserved space, IPv4-mapped forms
 * included, unless an operator allow-lists them (SERVICE_NOTIFIER_ALLOWED_NETWORKS).
 */
const NOTIFIER_REFUSED_CLASSES = new Set<AddressClass>(ADDRESS_CLASSES);

/** An allow-list of IPs and CIDRs (SERVICE_NOTIFIER_ALLOWED_NETWORKS). */
export function networkList(entries: readonly string[]): Cidr[] {
  return parseAllowList(entries);
}

/** True when `address` is not an IP address, or is reserved and not allow-listed. */
export function refusedAddress(address: string, allowed: readonly Cidr[]): boolean {
  return !checkDestination(address, allowed, NOTIFIER_REFUSED_CLASSES).allowed;
}
