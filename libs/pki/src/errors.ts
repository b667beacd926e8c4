/**
 * Every failure libs/pki reports on purpose is a `PkiError` with one of these stable codes, so a
 * caller can map it to its own error (HTTP 400 or 422) without parsing messages. Anything else
 * escaping the library is a bug.
 */
export const PKI_ERROR_CODES = [
  /** The input is larger than the limit of the function that received it. */
  'input_too_large',
  /** Text that should hold PEM (or bare base64) does not: no block, bad base64, unterminated block. */
  'pem_invalid',
  /** A PEM block has another label than the one expected (e.g. a PRIVATE KEY given as a CSR). */
  'pem_label_mismatch',
  /** DER that ends before a length says it should. */
  'der_truncated',
  /** DER that is not well-formed or not the expected ASN.1 structure. */
  'der_invalid',
  /** The CSR's self-signature does not verify with the public key it carries. */
  'csr_signature_invalid',
  /** A signature or hash algorithm that is unknown or not supported here (e.g. RSA-PSS, MD5). */
  'signature_algorithm_unsupported',
  /** A signature algorithm that is known but refused as weak (SHA-1). */
  'signature_algorithm_weak',
  /** RSA shorter than 2048 bits. */
  'key_too_weak',
  /** RSA of a size other than 2048, 3072 or 4096 bits. */
  'key_size_unsupported',
  /** An elliptic curve other than P-256 and P-384. */
  'curve_unsupported',
  /** A key algorithm other than RSA, ECDSA and Ed25519 (e.g. DSA, Ed448). */
  'key_algorithm_unsupported',
  /** A public key that does not decode or fails its own checks (point not on the curve, even RSA exponent). */
  'key_invalid',
  /** A key refused by the profile's own allow-list although the library supports it. */
  'key_not_allowed',
  /** The signing key does not belong to the CA or responder certificate it is used with. */
  'key_mismatch',
  /** A distinguished name that cannot be encoded or decoded. */
  'name_invalid',
  /** A subject alternative name that is not a valid DNS name, IP address, e-mail address or URI. */
  'san_invalid',
  /** An extension whose value does not decode, or a duplicate extension. */
  'extension_invalid',
  /** A certificate request or profile that is inconsistent (validity, empty subject and SANs, ...). */
  'profile_invalid',
  /** A revocation reason that is not one of the RFC 5280 names, or not allowed where it was used. */
  'revocation_reason_invalid',
  /** A serial number that is not a positive integer of at most 20 octets (hex in text form). */
  'serial_invalid',
  /** An issuer certificate that cannot issue: not a CA, no keyCertSign or cRLSign, expired. */
  'issuer_invalid',
  /** No path from the certificate to a trust anchor can be built from the certificates given. */
  'chain_incomplete',
  /** A path exists but fails verification (signature, validity, CA flag, path length, key usage). */
  'chain_invalid',
  /** An OCSP request that is well-formed DER but not acceptable (too many requests, bad nonce). */
  'ocsp_request_invalid',
] as const;

export type PkiErrorCode = (typeof PKI_ERROR_CODES)[number];

/** Context for logs and error bodies; never holds key material. */
export type PkiErrorDetails = Record<string, unknown>;

export class PkiError extends Error {
  constructor(
    readonly code: PkiErrorCode,
    message: string,
    readonly details?: PkiErrorDetails,
  ) {
    super(message);
    this.name = 'PkiError';
  }
}

export function isPkiError(error: unknown, code?: PkiErrorCode): error is PkiError {
  return error instanceof PkiError && (code === undefined || error.code === code);
}

export function isPkiErrorCode(value: unknown): value is PkiErrorCode {
  return typeof value === 'string' && (PKI_ERROR_CODES as readonly string[]).includes(value);
}
