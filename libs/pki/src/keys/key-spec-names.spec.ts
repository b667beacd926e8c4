import { keySpecFor, KeySpecName } from './key-spec-names';

describe(keySpecFor.name, () => {
  it.each<[KeySpecName, object]>([
    ['ECDSA-P256', { algorithm: 'ECDSA', curve: 'P-256' }],
    ['ECDSA-P384', { algorithm: 'ECDSA', curve: 'P-384' }],
    ['RSA-2048', { algorithm: 'RSA', size: 2048 }],
    ['RSA-3072', { algorithm: 'RSA', size: 3072 }],
    ['RSA-4096', { algorithm: 'RSA', size: 4096 }],
    ['Ed25519', { algorithm: 'Ed25519' }],
  ])('maps %s to its key spec', (name, spec) => {
    expect(keySpecFor(name)).toEqual(spec);
  });

  it('refuses a name it does not know', () => {
    expect(() => keySpecFor('ECDSA-P521' as KeySpecName)).toThrow(
      'key algorithm ECDSA-P521 is not supported',
    );
  });
});
