import { KeyObject, verify } from 'node:crypto';
import { AlgorithmIdentifier } from './algorithm-identifier';
import { NULL, oid, sequence } from './der/writer';
import { PkiError } from './errors';
import { KeyAlgorithm, PublicKeyInfo, importPublicKey, publicKeyObject } from './keys/public-key';
import { Oid } from './oids';

export type SignatureAlgorithmName =
  | 'sha256WithRSAEncryption'
  | 'sha384WithRSAEncryption'
  | 'sha512WithRSAEncryption'
  | 'ecdsa-with-SHA256'
  | 'ecdsa-with-SHA384'
  | 'ecdsa-with-SHA512'
  | 'Ed25519';

export type HashName = 'sha256' | 'sha384' | 'sha512';

/** A signature algorithm Certlane signs and verifies with, and its pre-encoded AlgorithmIdentifier. */
export interface SignatureAlgorithm {
  readonly name: SignatureAlgorithmName;
  readonly oid: string;
  /** The digest given to `crypto.sign`/`crypto.verify`; null for Ed25519. */
  readonly hash: HashName | null;
  readonly keyAlgorithm: KeyAlgorithm;
  /** DER of the AlgorithmIdentifier (RSA with NULL parameters, ECDSA and Ed25519 without; RFC 4055, 5758, 8410). */
  readonly identifier: Buffer;
}

function define(
  name: SignatureAlgorithmName,
  dotted: string,
  hash: HashName | null,
  keyAlgorithm: KeyAlgorithm,
): SignatureAlgorithm {
  const identifier = keyAlgorithm === 'RSA' ? sequence(oid(dotted), NULL) : sequence(oid(dotted));
  return Object.freeze({ name, oid: dotted, hash, keyAlgorithm, identifier });
}

export const SignatureAlgorithms = {
  sha256WithRSAEncryption: define('sha256WithRSAEncryption', Oid.sha256WithRsa, 'sha256', 'RSA'),
  sha384WithRSAEncryption: define('sha384WithRSAEncryption', Oid.sha384WithRsa, 'sha384', 'RSA'),
  sha512WithRSAEncryption: define('sha512WithRSAEncryption', Oid.sha512WithRsa, 'sha512', 'RSA'),
  'ecdsa-with-SHA256': define('ecdsa-with-SHA256', Oid.ecdsaWithSha256, 'sha256', 'ECDSA'),
  'ecdsa-with-SHA384': define('ecdsa-with-SHA384', Oid.ecdsaWithSha384, 'sha384', 'ECDSA'),
  'ecdsa-with-SHA512': define('ecdsa-with-SHA512', Oid.ecdsaWithSha512, 'sha512', 'ECDSA'),
  Ed25519: define('Ed25519', Oid.ed25519, null, 'Ed25519'),
} as const satisfies Record<SignatureAlgorithmName, SignatureAlgorithm>;

const BY_OID = new Map<string, SignatureAlgorithm>(Object.values(SignatureAlgorithms).map((a) => [a.oid, a]));

const WEAK: Record<string, string> = {
  [Oid.sha1WithRsa]: 'sha1WithRSAEncryption',
  [Oid.md5WithRsa]: 'md5WithRSAEncryption',
  [Oid.ecdsaWithSha1]: 'ecdsa-with-SHA1',
};

/** The algorithm a signed object names, refusing SHA-1/MD5 (`signature_algorithm_weak`) and unknown ones. */
export function signatureAlgorithmOf(identifier: AlgorithmIdentifier, what: string): SignatureAlgorithm {
  const algorithm = BY_OID.get(identifier.oid);
  if (!algorithm) {
    if (WEAK[identifier.oid]) {
      throw new PkiError(
        'signature_algorithm_weak',
        `${what}: ${WEAK[identifier.oid]} signatures are refused as weak`,
        {
          algorithm: WEAK[identifier.oid],
        },
      );
    }
    throw new PkiError(
      'signature_algorithm_unsupported',
      `${what}: signature algorithm ${identifier.oid} is not supported`,
      {
        algorithm: identifier.oid,
      },
    );
  }
  const params = identifier.parameters;
  const paramsOk =
    algorithm.keyAlgorithm === 'RSA' ? params === undefined || params.equals(NULL) : params === undefined;
  if (!paramsOk) {
    throw new PkiError('der_invalid', `${what}: unexpected parameters for ${algorithm.name}`, {
      object: what,
    });
  }
  return algorithm;
}

/** The algorithm Certlane signs with for a key: SHA-256 for RSA and P-256, SHA-384 for P-384. */
export function defaultSignatureAlgorithm(key: PublicKeyInfo): SignatureAlgorithm {
  switch (key.algorithm) {
    case 'RSA':
      return SignatureAlgorithms.sha256WithRSAEncryption;
    case 'ECDSA':
      return key.curve === 'P-384'
        ? SignatureAlgorithms['ecdsa-with-SHA384']
        : SignatureAlgorithms['ecdsa-with-SHA256'];
    case 'Ed25519':
      return SignatureAlgorithms.Ed25519;
    default:
      throw new PkiError('key_algorithm_unsupported', `no signature algorithm for ${key.description} keys`);
  }
}

/** True when `signature` over `data` verifies; false for a wrong signature or a key of another algorithm. */
export function verifySignature(
  algorithm: SignatureAlgorithm,
  key: PublicKeyInfo | KeyObject,
  data: Uint8Array,
  signature: Uint8Array,
): boolean {
  const keyAlgorithm = key instanceof KeyObject ? keyObjectAlgorithm(key) : key.algorithm;
  if (keyAlgorithm !== algorithm.keyAlgorithm) return false;
  const keyObject = key instanceof KeyObject ? key : publicKeyObject(key);
  try {
    return verify(algorithm.hash, data, keyObject, signature);
  } catch {
    // OpenSSL rejects some malformed signatures (bad ECDSA DER) by throwing rather than returning false.
    return false;
  }
}

/**
 * `verifySignature` for a key seen for the first time (a CSR's): the key is imported through
 * `importPublicKey`, which is cheaper for EC points. Same results, on the calling thread.
 */
export async function verifySignatureAsync(
  algorithm: SignatureAlgorithm,
  key: PublicKeyInfo,
  data: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  if (key.algorithm !== algorithm.keyAlgorithm) return false;
  const keyObject = await importPublicKey(key);
  try {
    return verify(algorithm.hash, data, keyObject, signature);
  } catch {
    return false;
  }
}

function keyObjectAlgorithm(key: KeyObject): string | undefined {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return 'RSA';
    case 'ec':
      return 'ECDSA';
    case 'ed25519':
      return 'Ed25519';
    default:
      return key.asymmetricKeyType;
  }
}
