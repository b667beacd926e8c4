import { BlockList, isIP } from 'node:net';

/**
 * Addresses an outbound notifier call must not reach unless an operator allow-lists them:
 * "this" network, private ranges (RFC 1918, CGNAT, IPv6 ULA), loopback, link-local (where the
 * cloud metadata services live: 169.254.169.254, fd00:ec2::254 is ULA), benchmarking, multicast
 * and reserved space, and IPv4-mapped IPv6 forms of all of them.
 */
const RESERVED_V4: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
const RESERVED_V6: [string, number][] = [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
];

const reserved = new BlockList();
for (const [network, prefix] of RESERVED_V4) reserved.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of RESERVED_V6) reserved.addSubnet(network, prefix, 'ipv6');

const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** An allow-list of IPs and CIDRs (SERVICE_NOTIFIER_ALLOWED_NETWORKS). */
export function networkList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

/** True when `address` is reserved and not allow-listed. */
export function refusedAddress(address: string, allowed: BlockList): boolean {
  const mapped = MAPPED_V4.exec(address);
  const ip = mapped ? mapped[1] : address;
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  if (isIP(ip) === 0) return true;
  return reserved.check(ip, family) && !allowed.check(ip, family);
}
