import { KeySpec } from './key-provider';

/** The key algorithm names of certificates and CAs (spec 2.2: a certificate's `key_algorithm`). */
export type KeySpecName = 'ECDSA-P256' | 'ECDSA-P384' | 'RSA-2048' | 'RSA-3072' | 'RSA-4096' | 'Ed25519';

/**
 * The key to generate for a key algorithm name. Names come from stored rows and from the server's
 * answers to the agent, so an unknown one is refused at run time as well.
 */
export function keySpecFor(name: KeySpecName): KeySpec {
  switch (name) {
    case 'ECDSA-P256':
      return { algorithm: 'ECDSA', curve: 'P-256' };
    case 'ECDSA-P384':
      return { algorithm: 'ECDSA', curve: 'P-384' };
    case 'RSA-2048':
      return { algorithm: 'RSA', size: 2048 };
    case 'RSA-3072':
      return { algorithm: 'RSA', size: 3072 };
    case 'RSA-4096':
      return { algorithm: 'RSA', size: 4096 };
    case 'Ed25519':
      return { algorithm: 'Ed25519' };
    default:
      throw new Error(`key algorithm ${String(name)} is not supported`);
  }
}
