import { networkList, refusedAddress } from './reserved-addresses';

describe('refusedAddress', () => {
  const none = networkList([]);

  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '224.0.0.1',
    'not-an-address',
  ])('refuses %s', (address) => {
    expect(refusedAddress(address, none)).toBe(true);
  });

  it.each(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:93.184.216.34'])(
    'allows the public address %s',
    (address) => {
      expect(refusedAddress(address, none)).toBe(false);
    },
  );

  it('an allow-listed address or network is reachable', () => {
    const allowed = networkList(['127.0.0.1', '10.0.0.0/8']);
    expect(refusedAddress('127.0.0.1', allowed)).toBe(false);
    expect(refusedAddress('10.20.30.40', allowed)).toBe(false);
    expect(refusedAddress('127.0.0.2', allowed)).toBe(true);
    expect(refusedAddress('169.254.169.254', allowed)).toBe(true);
  });
});
