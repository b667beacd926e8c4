import { expandScanTargets, MAX_SCAN_ENDPOINTS } from './scan-targets';

const endpoints = (cidrs: string[], hosts: string[], ports: number[]) => {
  const expansion = expandScanTargets(cidrs, hosts, ports);
  if (!expansion.ok) throw new Error(expansion.message);
  return { count: expansion.count, list: [...expansion.endpoints()].map((e) => `${e.host}:${e.port}`) };
};

describe('expandScanTargets', () => {
  it('expands ranges and hosts over every port, ranges first', () => {
    expect(endpoints(['127.0.0.4/31'], ['db.internal'], [443, 8443])).toEqual({
      count: 6,
      list: [
        '127.0.0.4:443',
        '127.0.0.4:8443',
        '127.0.0.5:443',
        '127.0.0.5:8443',
        'db.internal:443',
        'db.internal:8443',
      ],
    });
  });

  it('counts a /16 without generating it', () => {
    const expansion = expandScanTargets(['10.0.0.0/16'], [], [443]);
    expect(expansion).toMatchObject({ ok: true, count: 65_536 });
  });

  it.each([
    [['10.0.0.0/8'], [], [443], `the target covers ${16_777_216} endpoints, more than ${MAX_SCAN_ENDPOINTS}`],
    [['fd00::/64'], [], [443], 'IPv6 ranges cannot be swept: fd00::/64'],
    [['10.0.0.0/33'], [], [443], 'not a CIDR range: 10.0.0.0/33'],
    [[], ['a b'], [443], 'not a host name or address: "a b"'],
    [[], ['x.test'], [], 'at least one port is required'],
    [[], ['x.test'], [0], 'port 0 is not 1 to 65535'],
  ])('refuses %j %j %j: %s', (cidrs, hosts, ports, message) => {
    expect(expandScanTargets(cidrs, hosts, ports)).toEqual({ ok: false, message });
  });
});
