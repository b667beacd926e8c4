import { createPrivateKey, createPublicKey, KeyObject, X509Certificate } from 'node:crypto';
import { CompactEncrypt, compactDecrypt, exportJWK, generateKeyPair, JWK } from 'jose';

/**
 * A private key sent to its holder wrapped, never in plaintext (ADR 0033): a compact JWE with
 * ECDH-ES+A256KW (an ephemeral-static P-256 agreement, then AES key wrap) and A256GCM, whose
 * plaintext is the PKCS#8 PEM. The protected header names the certificate and version the key
 * belongs to; being protected, it is authenticated by the GCM tag, so the holder can check it.
 */
export const WRAP_ALG = 'ECDH-ES+A256KW';
export const WRAP_ENC = 'A256GCM';

export interface WrappedKeyLabel {
  certificateId: string;
  versionId: string;
}

/** Wraps `privateKeyPem` (PKCS#8 PEM) to a P-256 public JWK; the caller has validated the JWK. */
export async function wrapPrivateKey(
  privateKeyPem: string,
  recipientPublicJwk: JWK,
  label: WrappedKeyLabel,
): Promise<string> {
  const recipient = createPublicKey({ key: recipientPublicJwk as never, format: 'jwk' });
  if (recipient.asymmetricKeyType !== 'ec' || recipient.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error('the recipient key must be an EC P-256 public key');
  }
  return new CompactEncrypt(new TextEncoder().encode(privateKeyPem))
    .setProtectedHeader({
      alg: WRAP_ALG,
      enc: WRAP_ENC,
      kid: `${label.certificateId}/${label.versionId}`,
      certificate_id: label.certificateId,
      version_id: label.versionId,
    })
    .encrypt(recipient);
}

/** The public JWK of a P-256 recipient key. */
export interface EcP256PublicJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
}

/** An ephemeral P-256 key pair for one fetch: the private half stays in memory. */
export async function generateRecipientKey(): Promise<{ privateKey: KeyObject; publicJwk: EcP256PublicJwk }> {
  const { privateKey, publicKey } = await generateKeyPair(WRAP_ALG, { crv: 'P-256', extractable: false });
  const jwk = await exportJWK(publicKey);
  return {
    privateKey: privateKey as unknown as KeyObject,
    publicJwk: { kty: 'EC', crv: 'P-256', x: String(jwk.x), y: String(jwk.y) },
  };
}

/**
 * Opens a wrapped key: only the two algorithms above are accepted, the protected header must name
 * `expected`, the plaintext must be a private key, and (when `leafPem` is given) the key of that
 * certificate. Returns the PKCS#8 PEM. Error messages never carry key material.
 */
export async function unwrapPrivateKey(
  jwe: string,
  recipientPrivateKey: KeyObject,
  expected: WrappedKeyLabel,
  leafPem?: string,
): Promise<string> {
  const { plaintext, protectedHeader } = await compactDecrypt(jwe, recipientPrivateKey, {
    keyManagementAlgorithms: [WRAP_ALG],
    contentEncryptionAlgorithms: [WRAP_ENC],
  });
  if (
    protectedHeader.certificate_id !== expected.certificateId ||
    protectedHeader.version_id !== expected.versionId
  ) {
    throw new Error(
      `the wrapped key names ${String(protectedHeader.certificate_id)} version ${String(protectedHeader.version_id)}, ` +
        `not ${expected.certificateId} version ${expected.versionId}`,
    );
  }
  const pem = new TextDecoder().decode(plaintext);
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new Error('the wrapped key is not a private key');
  }
  if (leafPem !== undefined && !new X509Certificate(leafPem).checkPrivateKey(key)) {
    throw new Error(
      `the wrapped key does not match the certificate of ${expected.certificateId} version ${expected.versionId}`,
    );
  }
  return key.export({ type: 'pkcs8', format: 'pem' }) as string;
}
