import { CertificateTemplate, IssuedCertificate, issuerParts, signTbs } from './certificate-builder';
import { Signer } from './keys/key-provider';
import { PublicKeyInfo } from './keys/public-key';
import { KeyUsage } from './extensions/standard';
import { NameInput, encodeName } from './name';

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
