import { parseCidr } from '@certlane/network-safety';
import { checkDestination, parseAllowList } from './reserved-addresses';

const refused = (address: string, allow = '') => {
  const verdict = checkDestination(address, parseAllowList(allow));
  return verdict.allowed ? 'allowed' : verdict.reason;
};

describe('checkDestination', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.3.4', 'loopback'],
    ['::1', 'loopback'],
    ['169.254.169.254', 'cloud_metadata'],
    ['169.254.170.2', 'cloud_metadata'],
    ['100.100.100.200', 'cloud_metadata'],
    ['168.63.129.16', 'cloud_metadata'],
    ['fd00:ec2::254', 'cloud_metadata'],
    ['169.254.1.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
  ])('refuses %s as %s', (address, reason) => {
    expect(refused(address)).toBe(reason);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'cloud_metadata'],
    ['64:ff9b::a9fe:a9fe', 'cloud_metadata'],
    ['::127.0.0.1', 'loopback'],
  ])('looks through IPv4 embedded in IPv6: refuses %s as %s', (address, reason) => {
    expect(refused(address)).toBe(reason);
  });

  it.each([
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    'fd12::1',
    '93.184.216.34',
    '2606:4700::1111',
    '169.255.0.1',
  ])('allows the private or public address %s', (address) => {
    expect(refused(address)).toBe('allowed');
  });

  it('refuses a host name: only resolved addresses are judged', () => {
    expect(refused('localhost')).toBe('not_an_ip_address');
  });

  it('re-admits reserved addresses the operator allow-list names, and only those', () => {
    expect(refused('127.0.0.2', '127.0.0.0/8')).toBe('allowed');
    expect(refused('::ffff:127.0.0.2', '127.0.0.0/8')).toBe('allowed');
    expect(refused('::1', '127.0.0.0/8')).toBe('loopback');
    expect(refused('169.254.169.254', '127.0.0.0/8')).toBe('cloud_metadata');
  });
});

describe('parseCidr and parseAllowList', () => {
  it('normalises the network and rejects bad prefixes', () => {
    expect(parseCidr('10.1.2.3/8')).toEqual({ family: 4, network: 10n << 24n, prefix: 8 });
    expect(parseCidr('10.0.0.0/33')).toBeNull();
    expect(parseCidr('10.0.0.0/x')).toBeNull();
    expect(parseCidr('::/0')).toEqual({ family: 6, network: 0n, prefix: 0 });
  });

  it('names the bad entry of an allow-list', () => {
    expect(() => parseAllowList('127.0.0.0/8, nonsense')).toThrow('not a CIDR range: nonsense');
    expect(parseAllowList(' ')).toEqual([]);
  });
});
