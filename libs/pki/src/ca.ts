import { CertificateTemplate, IssuedCertificate, issuerParts, signTbs } from './certificate-builder';
import { Signer } from './keys/key-provider';
import { PublicKeyInfo } from './keys/public-key';
import { KeyUsage } from './extensions/standard';
import { NameInput, encodeName } from './name';
import { Certificate } from './certificate';
import { PkiError } from './errors';

/** Key usage of the CA certificates made here: keyCertSign and cRLSign, plus digitalSignature for OCSP. */
export const CA_KEY_USAGE: readonly KeyUsage[] = Object.freeze([
  'digitalSignature',
  'keyCertSign',
  'cRLSign',
] as KeyUsage[]);

export interface CaValidity {
  notBefore: Date;
  notAfter: Date;
  /** How many CAs may follow below this one; absent: no limit. */
  pathLength?: number;
  serialNumber?: Buffer;
}

/** A self-signed root CA certificate for `signer`'s key. */
export function createSelfSignedCa(
  options: CaValidity & { subject: NameInput; signer: Signer },
): Promise<IssuedCertificate> {
  const name = encodeName(options.subject);
  // No AKI is passed: the builder then uses the certificate's own key identifier.
  const parts = issuerParts(name, options.signer, undefined, {});
  return signTbs(parts, options.signer, {
    publicKey: options.signer.publicKey,
    subject: name,
    notBefore: options.notBefore,
    notAfter: options.notAfter,
    ca: { pathLength: options.pathLength },
    keyUsage: CA_KEY_USAGE,
    serialNumber: options.serialNumber,
  });
}

/** The template of an intermediate CA certificate, for `CertificateAuthority.issue`. */
export function intermediateCaTemplate(
  options: CaValidity & { subject: NameInput | Buffer; publicKey: PublicKeyInfo },
): CertificateTemplate {
  return {
    publicKey: options.publicKey,
    subject: options.subject,
    notBefore: options.notBefore,
    notAfter: options.notAfter,
    ca: { pathLength: options.pathLength },
    keyUsage: CA_KEY_USAGE,
    serialNumber: options.serialNumber,
  };
}

/**
 * The template of a delegated OCSP responder certificate (RFC 6960 4.2.2.2): id-kp-OCSPSigning,
 * digitalSignature, id-pkix-ocsp-nocheck, no CRL DP or AIA. Keep its validity short.
 */
export function ocspResponderTemplate(options: {
  subject: NameInput | Buffer;
  publicKey: PublicKeyInfo;
  notBefore: Date;
  notAfter: Date;
}): CertificateTemplate {
  return {
    publicKey: options.publicKey,
    subject: options.subject,
    notBefore: options.notBefore,
    notAfter: options.notAfter,
    keyUsage: ['digitalSignature'],
    extendedKeyUsage: ['OCSPSigning'],
    ocspNoCheck: true,
    crlDistributionPoints: [],
    ocspUrls: [],
    caIssuersUrls: [],
  };
}

/**
 * The pathLength a new CA directly under `parent` may carry (RFC 5280 4.2.1.9): refused when the
 * parent is not a CA or its pathLength is 0; otherwise the requested value, clamped to one less
 * than the parent's, so every CA in a tree built here also satisfies its ancestors' limits.
 */
export function childCaPathLength(parent: Certificate, requested?: number): number | undefined {
  const constraints = parent.decoded.basicConstraints;
  if (!constraints?.ca) {
    throw new PkiError('issuer_invalid', 'the parent certificate is not a CA');
  }
  if (constraints.pathLength === undefined) return requested;
  if (constraints.pathLength === 0) {
    throw new PkiError(
      'issuer_invalid',
      'the parent CA has pathLength 0: it may issue end-entity certificates only, not another CA',
    );
  }
  const limit = constraints.pathLength - 1;
  return requested === undefined ? limit : Math.min(requested, limit);
}
