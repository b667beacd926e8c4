import { KEY_ALGORITHMS } from '@certlane/contracts';
import { keySpecFor } from '@certlane/pki';
import { keyAlgorithmName } from './certificate-keys';

describe('keySpecFor and keyAlgorithmName', () => {
  it.each(KEY_ALGORITHMS.map((name) => [name]))('map %s to a key spec and back', (name) => {
    const spec = keySpecFor(name);
    const described =
      spec.algorithm === 'ECDSA'
        ? { algorithm: 'ECDSA', curve: spec.curve }
        : spec.algorithm === 'RSA'
          ? { algorithm: 'RSA', size: spec.size }
          : { algorithm: 'Ed25519' };
    expect(keyAlgorithmName(described)).toBe(name);
  });

  it('names no algorithm for keys the inventory does not offer', () => {
    expect(keyAlgorithmName({ algorithm: 'ECDSA', curve: 'P-521' })).toBeNull();
    expect(keyAlgorithmName({ algorithm: 'RSA', size: 1024 })).toBeNull();
    expect(keyAlgorithmName({ algorithm: 'DSA' })).toBeNull();
  });
});
