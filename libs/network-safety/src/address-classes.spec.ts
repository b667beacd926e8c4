import {
  ADDRESS_CLASSES,
  AddressClass,
  addressClasses,
  checkDestination,
  parseAllowList,
} from './address-classes';
import { parseIpAddress } from './ip-address';

const ALL = new Set<AddressClass>(ADDRESS_CLASSES);
const verdict = (address: string, refused: ReadonlySet<AddressClass> = ALL, allow = '') => {
  const result = checkDestination(address, parseAllowList(allow), refused);
  return result.allowed ? 'allowed' : result.reason;
};

describe('address classes', () => {
  it.each([
    ['169.254.169.254', 'cloud_metadata'],
    ['100.100.100.200', 'cloud_metadata'],
    ['168.63.129.16', 'cloud_metadata'],
    ['fd00:ec2::254', 'cloud_metadata'],
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['169.254.1.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12::1', 'private'],
    ['100.64.0.1', 'shared'],
    ['192.0.2.1', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['192.0.0.8', 'protocol_assignment'],
    ['100::1', 'discard'],
    ['240.0.0.1', 'reserved'],
  ])('%s is %s', (address, expected) => {
    expect(addressClasses(parseIpAddress(address)!)[0]).toBe(expected);
    expect(verdict(address)).toBe(expected);
  });

  it('looks through IPv4 embedded in IPv6 (mapped, compatible, NAT64)', () => {
    expect(verdict('::ffff:127.0.0.1')).toBe('loopback');
    expect(verdict('::ffff:169.254.169.254')).toBe('cloud_metadata');
    expect(verdict('::127.0.0.1')).toBe('loopback');
    expect(verdict('64:ff9b::a9fe:a9fe')).toBe('translation');
    expect(verdict('64:ff9b::a9fe:a9fe', new Set(['cloud_metadata']))).toBe('cloud_metadata');
  });

  it('allows public addresses and anything outside the refused classes', () => {
    expect(verdict('93.184.216.34')).toBe('allowed');
    expect(verdict('2606:2800:220:1:248:1893:25c8:1946')).toBe('allowed');
    expect(verdict('::ffff:93.184.216.34')).toBe('allowed');
    expect(verdict('10.1.2.3', new Set(['loopback']))).toBe('allowed');
  });

  it('refuses what is not an IP address', () => {
    expect(verdict('example.com')).toBe('not_an_ip_address');
  });

  it('re-admits what the allow-list names, embedded forms included', () => {
    expect(verdict('127.0.0.1', ALL, '127.0.0.1')).toBe('allowed');
    expect(verdict('::ffff:127.0.0.1', ALL, '127.0.0.0/8')).toBe('allowed');
    expect(verdict('10.20.30.40', ALL, '10.0.0.0/8, 127.0.0.1')).toBe('allowed');
    expect(verdict('127.0.0.2', ALL, '127.0.0.1')).toBe('loopback');
  });

  it('refuses a malformed allow-list entry by name', () => {
    expect(() => parseAllowList(['10.0.0.0/33'])).toThrow('not a CIDR range: 10.0.0.0/33');
    expect(() => parseAllowList('host.example')).toThrow('host.example');
  });
});
