import { PkiError } from './errors';
import { SERIAL_OCTETS, parseSerialHex, randomSerial, serialHex } from './serial';

describe(randomSerial.name, () => {
  it('gives 17-octet positive serials without a leading zero, all distinct across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const serial = randomSerial();
      expect(serial).toHaveLength(SERIAL_OCTETS);
      expect(serial[0] & 0xc0).toBe(0x40);
      seen.add(serial.toString('hex'));
    }
    expect(seen.size).toBe(10_000);
  });

  it('spreads the random bits (every bit of the last octet varies)', () => {
    let or = 0;
    let and = 0xff;
    for (let i = 0; i < 200; i++) {
      const last = randomSerial()[SERIAL_OCTETS - 1];
      or |= last;
      and &= last;
    }
    expect(or).toBe(0xff);
    expect(and).toBe(0);
  });
});

describe(parseSerialHex.name, () => {
  it.each([
    ['01', '01'],
    ['0001', '01'],
    ['ff', '00ff'],
    ['7F:00:AB', '7f00ab'],
    ['ABCDEF', '00abcdef'],
    ['7'.repeat(40), '7'.repeat(40)],
  ])('reads %s', (text, hex) => {
    expect(parseSerialHex(text).toString('hex')).toBe(hex);
  });

  it.each(['', '0', '00', 'xyz', '12 34', '-01', '0x10', '7'.repeat(41), 'f'.repeat(40), '1:2'])(
    'refuses %j with serial_invalid',
    (text) => {
      expect(() => parseSerialHex(text)).toThrow(PkiError);
      expect(() => parseSerialHex(text)).toThrow(expect.objectContaining({ code: 'serial_invalid' }));
    },
  );

  it('prints content octets as hex without the sign pad', () => {
    expect(serialHex(Buffer.from([0x00, 0xff]))).toBe('ff');
    expect(serialHex(Buffer.from([0x00]))).toBe('00');
    expect(serialHex(Buffer.from([0x7f, 0x00]))).toBe('7f00');
  });
});
