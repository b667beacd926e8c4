import { isIP } from 'node:net';
import { parseCidr } from '@certlane/network-safety';

/** One scan's upper bound of address x port pairs: beyond it a target is refused, not truncated. */
export const MAX_SCAN_ENDPOINTS = 1_048_576;

export interface ScanEndpoint {
  host: string;
  port: number;
}

export type ScanExpansion =
  { ok: true; count: number; endpoints: () => Iterable<ScanEndpoint> } | { ok: false; message: string };

function v4Text(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

/**
 * Expands a scan target's CIDR ranges, host names and ports into the endpoints to probe, lazily
 * (a /16 on 3 ports is 196,608 endpoints: counted first, generated as consumed). IPv4 ranges
 * only; IPv6 ranges are refused (too large to sweep), single IPv6 addresses are fine as hosts.
 */
export function expandScanTargets(
  cidrs: readonly string[],
  hosts: readonly string[],
  ports: readonly number[],
): ScanExpansion {
  if (ports.length === 0) return { ok: false, message: 'at least one port is required' };
  const bad = ports.find((port) => !Number.isInteger(port) || port < 1 || port > 65_535);
  if (bad !== undefined) return { ok: false, message: `port ${bad} is not 1 to 65535` };
  const ranges: { first: bigint; size: bigint }[] = [];
  for (const text of cidrs) {
    const cidr = parseCidr(text);
    if (!cidr) return { ok: false, message: `not a CIDR range: ${text}` };
    if (cidr.family === 6) return { ok: false, message: `IPv6 ranges cannot be swept: ${text}` };
    ranges.push({ first: cidr.network, size: 1n << BigInt(32 - cidr.prefix) });
  }
  for (const host of hosts) {
    if (host.trim() === '' || (/[\s/]/.test(host) && !isIP(host))) {
      return { ok: false, message: `not a host name or address: ${JSON.stringify(host)}` };
    }
  }
  const addresses = ranges.reduce((sum, range) => sum + range.size, 0n) + BigInt(hosts.length);
  const count = addresses * BigInt(ports.length);
  if (count > BigInt(MAX_SCAN_ENDPOINTS)) {
    return { ok: false, message: `the target covers ${count} endpoints, more than ${MAX_SCAN_ENDPOINTS}` };
  }
  const uniquePorts = [...new Set(ports)];
  return {
    ok: true,
    count: Number(addresses) * uniquePorts.length,
    *endpoints() {
      for (const range of ranges) {
        for (let offset = 0n; offset < range.size; offset++) {
          const host = v4Text(range.first + offset);
          for (const port of uniquePorts) yield { host, port };
        }
      }
      for (const host of hosts) for (const port of uniquePorts) yield { host, port };
    },
  };
}
