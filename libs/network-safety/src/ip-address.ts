import { isIPv4, isIPv6 } from 'node:net';

/** An IP address as a number: 32 bits for IPv4, 128 for IPv6. */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly value: bigint;
}

function parseV4(text: string): bigint {
  return text.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}

function parseV6(text: string): bigint {
  let body = text.split('%')[0];
  // A trailing dotted quad (::ffff:1.2.3.4) is two groups.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (quad) {
    const v4 = parseV4(quad[1]);
    body = `${body.slice(0, -quad[1].length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = body.includes('::') ? body.split('::') : [body, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail === undefined ? [] : tail ? tail.split(':') : [];
  const zeros = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...new Array<string>(zeros).fill('0'), ...tailGroups];
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group, 16)), 0n);
}

export function parseIpAddress(text: string): IpAddress | null {
  if (isIPv4(text)) return { family: 4, value: parseV4(text) };
  if (isIPv6(text)) return { family: 6, value: parseV6(text) };
  return null;
}

export interface Cidr {
  readonly family: 4 | 6;
  readonly network: bigint;
  readonly prefix: number;
}

/** Parses `a.b.c.d/n`, `x::/n` or a bare address (a /32 or /128). */
export function parseCidr(text: string): Cidr | null {
  const [addressText, prefixText, extra] = text.trim().split('/');
  if (extra !== undefined) return null;
  const address = parseIpAddress(addressText);
  if (!address) return null;
  const bits = address.family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (!/^\d+$/.test(prefixText ?? String(bits)) || prefix > bits) return null;
  const mask = prefixMask(prefix, bits);
  return { family: address.family, network: address.value & mask, prefix };
}

function prefixMask(prefix: number, bits: number): bigint {
  const all = (1n << BigInt(bits)) - 1n;
  return prefix === 0 ? 0n : ((all >> BigInt(bits - prefix)) << BigInt(bits - prefix)) & all;
}

export function cidrContains(cidr: Cidr, address: IpAddress): boolean {
  if (cidr.family !== address.family) return false;
  const bits = cidr.family === 4 ? 32 : 128;
  return (address.value & prefixMask(cidr.prefix, bits)) === cidr.network;
}

/**
 * The IPv4 address an IPv6 address stands for, when it embeds one: IPv4-mapped (::ffff:0:0/96),
 * IPv4-compatible (::/96) and the NAT64 well-known prefix (64:ff9b::/96). Without this,
 * `::ffff:127.0.0.1` would slip past a check that only knows 127.0.0.0/8.
 */
export function embeddedIpv4(address: IpAddress): IpAddress | null {
  if (address.family !== 6) return null;
  const high = address.value >> 32n;
  const low = address.value & 0xffffffffn;
  if (high === 0xffffn || high === 0x64ff9b0000000000000000n) return { family: 4, value: low };
  if (high === 0n && low > 1n) return { family: 4, value: low };
  return null;
}
