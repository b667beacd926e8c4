import { KeyObject, createPrivateKey, generateKeyPair, sign } from 'node:crypto';
import { promisify } from 'node:util';
import { PkiError } from '../errors';
import { SignatureAlgorithm, defaultSignatureAlgorithm } from '../signature-algorithm';
import { NamedCurve, PublicKeyInfo, assertSupportedKey, describeKeyObject } from './public-key';

const generateKeyPairAsync = promisify(generateKeyPair);

/** A key to generate: RSA 2048/3072/4096, ECDSA P-256/P-384 or Ed25519. */
export type KeySpec =
  | { algorithm: 'RSA'; size: 2048 | 3072 | 4096 }
  | { algorithm: 'ECDSA'; curve: NamedCurve }
  | { algorithm: 'Ed25519' };

/**
 * Where a private key lives, as the provider that holds it describes it. A software key's
 * reference is its PKCS#8 DER (the caller encrypts it at rest and never logs it); a PKCS#11 key's
 * reference will be a PKCS#11 URI (RFC 7512) naming the token object, with no key material at all.
 */
export interface KeyHandle {
  readonly provider: string;
  readonly reference: Buffer | string;
}

/**
 * Signs with one private key. Everything that signs in libs/pki (certificates, CRLs, OCSP
 * responses, CSRs) takes a `Signer`, never a private key, so a hardware-backed signer can replace
 * the software one without touching callers.
 */
export interface Signer {
  /** The public half, described (algorithm, size, SPKI DER). */
  readonly publicKey: PublicKeyInfo;
  /** The algorithm `sign` produces. */
  readonly signatureAlgorithm: SignatureAlgorithm;
  /** The signature over `data`, in the X.509 encoding of `signatureAlgorithm` (ECDSA as DER). */
  sign(data: Uint8Array): Promise<Buffer>;
}

/** Creates and loads signing keys. The software provider is the only one today; PKCS#11 slots in here. */
export interface KeyProvider {
  readonly name: string;
  generate(spec: KeySpec): Promise<{ handle: KeyHandle; signer: Signer }>;
  load(handle: KeyHandle): Promise<Signer>;
}

/** A signer over a node `KeyObject`. `crypto.sign` runs synchronously: a P-256 signature takes ~20 µs. */
export class SoftwareSigner implements Signer {
  readonly publicKey: PublicKeyInfo;
  readonly signatureAlgorithm: SignatureAlgorithm;
  private readonly hash: string | null;

  constructor(private readonly privateKey: KeyObject) {
    if (privateKey.type !== 'private')
      throw new PkiError('key_invalid', 'a software signer needs a private key');
    this.publicKey = describeKeyObject(privateKey);
    assertSupportedKey(this.publicKey);
    this.signatureAlgorithm = defaultSignatureAlgorithm(this.publicKey);
    this.hash = this.signatureAlgorithm.hash;
  }

  /** From PKCS#8 DER or PEM (`PRIVATE KEY`, also the traditional `EC PRIVATE KEY`/`RSA PRIVATE KEY`). */
  static fromPrivateKey(key: Buffer | string): SoftwareSigner {
    let keyObject: KeyObject;
    try {
      keyObject =
        typeof key === 'string'
          ? createPrivateKey(key)
          : createPrivateKey({ key, format: 'der', type: 'pkcs8' });
    } catch (error) {
      throw new PkiError('key_invalid', `private key does not load: ${(error as Error).message}`);
    }
    return new SoftwareSigner(keyObject);
  }

  /** Synchronous signing for callers that know they hold a software key (benchmarks, tests). */
  signSync(data: Uint8Array): Buffer {
    return sign(this.hash, data, this.privateKey);
  }

  sign(data: Uint8Array): Promise<Buffer> {
    try {
      return Promise.resolve(sign(this.hash, data, this.privateKey));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** PKCS#8 DER of the private key, for the caller to encrypt and store. */
  exportPkcs8(): Buffer {
    return this.privateKey.export({ type: 'pkcs8', format: 'der' });
  }
}

export class SoftwareKeyProvider implements KeyProvider {
  readonly name = 'software';

  async generate(spec: KeySpec): Promise<{ handle: KeyHandle; signer: SoftwareSigner }> {
    const { privateKey } = await generate(spec);
    const signer = new SoftwareSigner(privateKey);
    return { handle: { provider: this.name, reference: signer.exportPkcs8() }, signer };
  }

  async load(handle: KeyHandle): Promise<SoftwareSigner> {
    if (handle.provider !== this.name || typeof handle.reference === 'string') {
      throw new PkiError('key_invalid', `the software key provider cannot load a ${handle.provider} key`);
    }
    return SoftwareSigner.fromPrivateKey(handle.reference);
  }
}

function generate(spec: KeySpec): Promise<{ privateKey: KeyObject; publicKey: KeyObject }> {
  switch (spec.algorithm) {
    case 'RSA':
      if (![2048, 3072, 4096].includes(spec.size)) {
        throw new PkiError(
          'key_size_unsupported',
          `RSA key of ${spec.size} bits is not supported (2048, 3072 or 4096)`,
        );
      }
      return generateKeyPairAsync('rsa', { modulusLength: spec.size, publicExponent: 65537 });
    case 'ECDSA':
      if (spec.curve !== 'P-256' && spec.curve !== 'P-384') {
        throw new PkiError(
          'curve_unsupported',
          `elliptic curve ${String(spec.curve)} is not supported (P-256 or P-384)`,
        );
      }
      return generateKeyPairAsync('ec', { namedCurve: spec.curve });
    case 'Ed25519':
      return generateKeyPairAsync('ed25519');
    default:
      throw new PkiError(
        'key_algorithm_unsupported',
        `key algorithm ${String((spec as { algorithm: unknown }).algorithm)} is not supported`,
      );
  }
}
