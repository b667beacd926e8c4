import { KeyObject, createPublicKey, webcrypto } from 'node:crypto';
import { readAlgorithmIdentifier } from '../algorithm-identifier';
import { DerCursor, Tlv, bytesOf, readBitString, readIntegerBytes, readOid, readRoot } from '../der/reader';
import { Tag } from '../der/tags';
import { PkiError } from '../errors';
import { Oid } from '../oids';

/** The key algorithms Certlane certifies and signs with. */
export type KeyAlgorithm = 'RSA' | 'ECDSA' | 'Ed25519';
export type NamedCurve = 'P-256' | 'P-384';

/** RSA sizes accepted for certification and for CA keys. */
export const RSA_KEY_SIZES = [2048, 3072, 4096] as const;
export const NAMED_CURVES: readonly NamedCurve[] = ['P-256', 'P-384'];
export const MIN_RSA_BITS = 2048;

const CURVES_BY_OID: Record<string, { name: string; bits: number; pointBytes: number }> = {
  [Oid.secp256r1]: { name: 'P-256', bits: 256, pointBytes: 32 },
  [Oid.secp384r1]: { name: 'P-384', bits: 384, pointBytes: 48 },
  [Oid.secp521r1]: { name: 'P-521', bits: 521, pointBytes: 66 },
  [Oid.secp256k1]: { name: 'secp256k1', bits: 256, pointBytes: 32 },
};

/**
 * A SubjectPublicKeyInfo, described. Parsing describes any key; `assertSupportedKey` decides
 * whether it may be certified or used to sign.
 */
export interface PublicKeyInfo {
  /** RSA, ECDSA and Ed25519 are supported; other algorithms are named for error messages. */
  algorithm: KeyAlgorithm | 'Ed448' | 'DSA' | 'X25519' | 'RSA-PSS' | 'unknown';
  algorithmOid: string;
  /** Modulus bits for RSA, the curve's size for ECDSA, 256 for Ed25519. */
  size?: number;
  /** For ECDSA: `P-256`, `P-384`, another known name, or the curve's OID. */
  curve?: string;
  /** The complete DER of the SubjectPublicKeyInfo. */
  spki: Buffer;
  /** The content of the subjectPublicKey BIT STRING (hashed for key identifiers and OCSP). */
  subjectPublicKey: Buffer;
  /** A short label: `RSA-2048`, `ECDSA-P-256`, `Ed25519`. */
  description: string;
  /** RSA modulus and exponent (unsigned big-endian). */
  rsa?: { modulus: Buffer; exponent: Buffer };
}

export function parseSpki(der: Buffer, what = 'public key'): PublicKeyInfo {
  return readSpki(der, readRoot(der, Tag.Sequence, what), what);
}

export function readSpki(buf: Buffer, tlv: Tlv, what: string): PublicKeyInfo {
  const cursor = DerCursor.of(buf, tlv, what);
  const algorithm = readAlgorithmIdentifier(buf, cursor.next(Tag.Sequence, 'AlgorithmIdentifier'), what);
  const bits = readBitString(buf, cursor.next(Tag.BitString, 'subjectPublicKey'), what);
  cursor.end();
  if (bits.unusedBits !== 0) throw new PkiError('key_invalid', `${what}: subjectPublicKey has unused bits`);
  const spki = bytesOf(buf, tlv);
  const key = bits.bytes;
  switch (algorithm.oid) {
    case Oid.rsaEncryption: {
      const rsa = readRsaPublicKey(key, what);
      const size = bitLength(rsa.modulus);
      return {
        algorithm: 'RSA',
        algorithmOid: algorithm.oid,
        size,
        spki,
        subjectPublicKey: key,
        description: `RSA-${size}`,
        rsa,
      };
    }
    case Oid.ecPublicKey: {
      if (!algorithm.parameters)
        throw new PkiError('key_invalid', `${what}: EC key without curve parameters`);
      if (algorithm.parameters[0] !== Tag.Oid) {
        throw new PkiError(
          'curve_unsupported',
          `${what}: explicit or implicit EC curve parameters are not supported`,
        );
      }
      const curveOid = readOid(algorithm.parameters, readRoot(algorithm.parameters, Tag.Oid, what), what);
      const curve = CURVES_BY_OID[curveOid];
      const name = curve?.name ?? curveOid;
      if (curve) {
        const uncompressed = key.length === 1 + 2 * curve.pointBytes && key[0] === 4;
        const compressed = key.length === 1 + curve.pointBytes && (key[0] === 2 || key[0] === 3);
        if (!uncompressed && !compressed)
          throw new PkiError('key_invalid', `${what}: malformed ${name} point`);
      }
      return {
        algorithm: 'ECDSA',
        algorithmOid: algorithm.oid,
        size: curve?.bits,
        curve: name,
        spki,
        subjectPublicKey: key,
        description: `ECDSA-${name}`,
      };
    }
    case Oid.ed25519:
      if (key.length !== 32) throw new PkiError('key_invalid', `${what}: Ed25519 key must be 32 bytes`);
      return {
        algorithm: 'Ed25519',
        algorithmOid: algorithm.oid,
        size: 256,
        spki,
        subjectPublicKey: key,
        description: 'Ed25519',
      };
    case Oid.ed448:
      return {
        algorithm: 'Ed448',
        algorithmOid: algorithm.oid,
        size: 456,
        spki,
        subjectPublicKey: key,
        description: 'Ed448',
      };
    case Oid.x25519:
      return {
        algorithm: 'X25519',
        algorithmOid: algorithm.oid,
        size: 256,
        spki,
        subjectPublicKey: key,
        description: 'X25519',
      };
    case Oid.dsa:
      return {
        algorithm: 'DSA',
        algorithmOid: algorithm.oid,
        spki,
        subjectPublicKey: key,
        description: 'DSA',
      };
    case Oid.rsaPss:
      return {
        algorithm: 'RSA-PSS',
        algorithmOid: algorithm.oid,
        spki,
        subjectPublicKey: key,
        description: 'RSA-PSS',
      };
    default:
      return {
        algorithm: 'unknown',
        algorithmOid: algorithm.oid,
        spki,
        subjectPublicKey: key,
        description: algorithm.oid,
      };
  }
}

function readRsaPublicKey(key: Buffer, what: string): { modulus: Buffer; exponent: Buffer } {
  const label = `${what} (RSAPublicKey)`;
  let root: Tlv;
  try {
    root = readRoot(key, Tag.Sequence, label);
  } catch (error) {
    throw new PkiError('key_invalid', `${what}: malformed RSA public key`, {
      cause: (error as Error).message,
    });
  }
  const cursor = DerCursor.of(key, root, label);
  const modulus = readIntegerBytes(key, cursor.next(Tag.Integer, 'modulus'), label);
  const exponent = readIntegerBytes(key, cursor.next(Tag.Integer, 'publicExponent'), label);
  cursor.end();
  if (modulus[0] & 0x80 || exponent[0] & 0x80)
    throw new PkiError('key_invalid', `${what}: negative RSA modulus or exponent`);
  const result = { modulus: stripLeadingZeros(modulus), exponent: stripLeadingZeros(exponent) };
  if (result.modulus[0] === 0) throw new PkiError('key_invalid', `${what}: RSA modulus is zero`);
  return result;
}

function stripLeadingZeros(bytes: Buffer): Buffer {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  return bytes.subarray(i);
}

function bitLength(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  if (i === bytes.length) return 0;
  return (bytes.length - i - 1) * 8 + (32 - Math.clz32(bytes[i]));
}

export interface KeyPolicy {
  /** Key kinds a profile allows, e.g. `['ECDSA-P-256', 'RSA-3072']` or `['ECDSA', 'RSA']`; default all supported. */
  allowed?: readonly string[];
}

/**
 * Refuses keys Certlane does not certify: RSA below 2048 bits (`key_too_weak`), RSA of another size
 * than 2048/3072/4096 (`key_size_unsupported`), curves other than P-256/P-384 (`curve_unsupported`),
 * other algorithms (`key_algorithm_unsupported`), RSA exponents that are even or below 3
 * (`key_invalid`), and kinds outside the profile's allow-list (`key_not_allowed`).
 */
export function assertSupportedKey(info: PublicKeyInfo, policy: KeyPolicy = {}): void {
  switch (info.algorithm) {
    case 'RSA': {
      const size = info.size ?? 0;
      if (size < MIN_RSA_BITS) {
        throw new PkiError(
          'key_too_weak',
          `RSA key of ${size} bits is too weak; at least ${MIN_RSA_BITS} bits are required`,
          {
            key: info.description,
          },
        );
      }
      if (!(RSA_KEY_SIZES as readonly number[]).includes(size)) {
        throw new PkiError(
          'key_size_unsupported',
          `RSA key of ${size} bits is not supported (2048, 3072 or 4096)`,
          {
            key: info.description,
          },
        );
      }
      const e = info.rsa?.exponent ?? Buffer.alloc(1);
      if ((e.length === 1 && e[0] < 3) || (e[e.length - 1] & 1) === 0 || e.length > 8) {
        throw new PkiError('key_invalid', 'RSA public exponent must be odd, at least 3 and at most 64 bits', {
          key: info.description,
        });
      }
      break;
    }
    case 'ECDSA':
      if (!(NAMED_CURVES as readonly string[]).includes(info.curve ?? '')) {
        throw new PkiError(
          'curve_unsupported',
          `elliptic curve ${info.curve} is not supported (P-256 or P-384)`,
          {
            key: info.description,
          },
        );
      }
      break;
    case 'Ed25519':
      break;
    default:
      throw new PkiError(
        'key_algorithm_unsupported',
        `key algorithm ${info.description} is not supported (RSA, ECDSA, Ed25519)`,
        {
          key: info.description,
        },
      );
  }
  if (policy.allowed && !policy.allowed.some((a) => a === info.algorithm || a === info.description)) {
    throw new PkiError(
      'key_not_allowed',
      `${info.description} keys are not allowed here (${policy.allowed.join(', ')})`,
      {
        key: info.description,
        allowed: policy.allowed,
      },
    );
  }
}

const keyObjects = new WeakMap<PublicKeyInfo, KeyObject>();

/**
 * A `KeyObject` for verifying with this key. RSA, uncompressed EC points and Ed25519 are imported
 * as JWK: with OpenSSL 3 that is several times faster than decoding the SPKI DER.
 */
export function publicKeyObject(info: PublicKeyInfo): KeyObject {
  const cached = keyObjects.get(info);
  if (cached) return cached;
  let key: KeyObject;
  try {
    key = createPublicKey(jwkInput(info) ?? { key: info.spki, format: 'der', type: 'spki' });
  } catch (error) {
    throw new PkiError(
      'key_invalid',
      `${info.description} public key does not load: ${(error as Error).message}`,
    );
  }
  keyObjects.set(info, key);
  return key;
}

/**
 * A `KeyObject` for an SPKI in DER (a CSR's key on the enrollment hot paths): read by the DER
 * reader and imported as `publicKeyObject` does, at about half the cost of node decoding the DER
 * for EC keys and a tenth for RSA (OpenSSL 3's decoders). A key the reader does not describe
 * (another curve or algorithm) is decoded by node as before; undecodable bytes throw.
 */
export function spkiKeyObject(der: Buffer): KeyObject {
  let info: PublicKeyInfo | undefined;
  try {
    info = parseSpki(der);
  } catch {
    info = undefined;
  }
  return info && jwkInput(info)
    ? publicKeyObject(info)
    : createPublicKey({ key: der, format: 'der', type: 'spki' });
}

/**
 * The same key as `publicKeyObject`, imported the cheapest way node offers, for the issuance hot
 * path (one fresh key per CSR). An uncompressed P-256 or P-384 point goes through WebCrypto's
 * `raw` import: it runs synchronously on the calling thread (no thread pool; the promise is
 * already settled), checks the point fully as the JWK import does (on the curve, times the order
 * is infinity), but skips the JWK's base64url and BIGNUM round trip. Import plus the first
 * verification cost about 13 % less than through JWK (bench/README.md, section pki). Any other key
 * is imported as `publicKeyObject` does; so is a point that does not load, which then fails
 * with the same `key_invalid` error.
 */
export async function importPublicKey(info: PublicKeyInfo): Promise<KeyObject> {
  const cached = keyObjects.get(info);
  if (cached) return cached;
  const curve = info.curve;
  if (
    info.algorithm !== 'ECDSA' ||
    (curve !== 'P-256' && curve !== 'P-384') ||
    info.subjectPublicKey[0] !== 4
  ) {
    return publicKeyObject(info);
  }
  let key: KeyObject;
  try {
    const imported = await webcrypto.subtle.importKey(
      'raw',
      info.subjectPublicKey,
      { name: 'ECDSA', namedCurve: curve },
      true,
      ['verify'],
    );
    key = KeyObject.from(imported);
  } catch {
    // A point that does not load: the JWK import fails the same way and words the error.
    return publicKeyObject(info);
  }
  keyObjects.set(info, key);
  return key;
}

function jwkInput(info: PublicKeyInfo): { key: Record<string, string>; format: 'jwk' } | undefined {
  if (info.algorithm === 'RSA' && info.rsa) {
    return {
      key: {
        kty: 'RSA',
        n: info.rsa.modulus.toString('base64url'),
        e: info.rsa.exponent.toString('base64url'),
      },
      format: 'jwk',
    };
  }
  if (
    info.algorithm === 'ECDSA' &&
    (info.curve === 'P-256' || info.curve === 'P-384') &&
    info.subjectPublicKey[0] === 4
  ) {
    const n = (info.subjectPublicKey.length - 1) / 2;
    return {
      key: {
        kty: 'EC',
        crv: info.curve,
        x: info.subjectPublicKey.subarray(1, 1 + n).toString('base64url'),
        y: info.subjectPublicKey.subarray(1 + n).toString('base64url'),
      },
      format: 'jwk',
    };
  }
  if (info.algorithm === 'Ed25519') {
    return {
      key: { kty: 'OKP', crv: 'Ed25519', x: info.subjectPublicKey.toString('base64url') },
      format: 'jwk',
    };
  }
  return undefined;
}

/** The public key of a node `KeyObject` (public or private), described. */
export function describeKeyObject(key: KeyObject): PublicKeyInfo {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return parseSpki(publicKey.export({ type: 'spki', format: 'der' }));
}
