import { constants, createPrivateKey, privateEncrypt } from 'node:crypto';
import { p256 } from '@noble/curves/p256';
import { p384 } from '@noble/curves/p384';
import { CertlaneError, ErrorCode } from '@certlane/contracts';

export type DigestAlgorithm = 'sha256' | 'sha384' | 'sha512';

const DIGEST_LENGTH: Record<DigestAlgorithm, number> = { sha256: 32, sha384: 48, sha512: 64 };

/** DER of DigestInfo up to the digest octets (RFC 8017 9.2, note 1). */
const DIGEST_INFO_PREFIX: Record<DigestAlgorithm, Buffer> = {
  sha256: Buffer.from('3031300d060960864801650304020105000420', 'hex'),
  sha384: Buffer.from('3041300d060960864801650304020205000430', 'hex'),
  sha512: Buffer.from('3051300d060960864801650304020305000440', 'hex'),
};

/**
 * Signs a digest computed by the caller, without hashing it again (issuance.v1.sign-digest, ADR
 * 0021): RSA as PKCS#1 v1.5 over DigestInfo(digest) through `privateEncrypt`, ECDSA over the
 * digest with @noble/curves (`prehash: false`), DER-encoded as X.509 wants it. The result
 * verifies with `crypto.verify(hash, data, publicKey, signature)` over the original data.
 * Ed25519 signs messages, not digests: refused with `not_implemented`.
 */
export function signDigest(pkcs8Der: Buffer, algorithm: DigestAlgorithm, digest: Buffer): Buffer {
  if (digest.length !== DIGEST_LENGTH[algorithm]) {
    throw CertlaneError.validation([
      {
        field: 'digest_base64',
        message: `a ${algorithm} digest is ${DIGEST_LENGTH[algorithm]} bytes, got ${digest.length}`,
      },
    ]);
  }
  const key = createPrivateKey({ key: pkcs8Der, format: 'der', type: 'pkcs8' });
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return privateEncrypt(
        { key, padding: constants.RSA_PKCS1_PADDING },
        Buffer.concat([DIGEST_INFO_PREFIX[algorithm], digest]),
      );
    case 'ec': {
      const jwk = key.export({ format: 'jwk' });
      const scalar = Buffer.from(jwk.d as string, 'base64url');
      const curve = jwk.crv === 'P-256' ? p256 : jwk.crv === 'P-384' ? p384 : undefined;
      if (!curve) throw new CertlaneError(ErrorCode.NotImplemented, `curve ${jwk.crv} cannot sign a digest`);
      return Buffer.from(curve.sign(digest, scalar, { prehash: false }).toDERRawBytes());
    }
    default:
      throw new CertlaneError(
        ErrorCode.NotImplemented,
        `a ${key.asymmetricKeyType} CA key cannot sign a precomputed digest (Ed25519 signs whole messages); use an RSA or ECDSA CA`,
      );
  }
}
