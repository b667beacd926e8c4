import {
  Certificate,
  CertificateAuthority,
  childCaPathLength,
  intermediateCaTemplate,
  isIssuerOf,
  parseCertificate,
  Signer,
} from '@certlane/pki';
import { asInputError } from './pki-errors';

const DAY_MS = 86_400_000;

/**
 * A cross-certificate of a CA signed by `parent` (ADR 0070): the CA's exact subject DER and
 * SubjectPublicKeyInfo, a CA certificate with the CA's own pathLength (clamped below the parent's,
 * as for any child CA), from now until the CA's own certificate ends or `validityDays` pass, never
 * beyond the parent's notAfter, carrying the parent's CRL distribution point and OCSP responder
 * when given (`revocation`, ADR 0075). A pki refusal (the parent cannot sign CAs) is a 400.
 */
export async function crossSign(
  ca: { certificatePem: string },
  parent: {
    id: string;
    certificatePem: string;
    signer: Signer;
    revocation?: { crl: readonly string[]; ocsp: readonly string[] };
  },
  validityDays?: number,
  now = new Date(),
): Promise<Certificate> {
  const own = parseCertificate(ca.certificatePem);
  try {
    const parentCertificate = parseCertificate(parent.certificatePem);
    const authority = new CertificateAuthority({
      certificate: parentCertificate,
      signer: parent.signer,
      crlDistributionPoints: parent.revocation?.crl,
      ocspUrls: parent.revocation?.ocsp,
    });
    const issued = await authority.issue(
      intermediateCaTemplate({
        subject: own.subject.der,
        publicKey: own.publicKey,
        notBefore: now,
        notAfter: validityDays ? new Date(now.getTime() + validityDays * DAY_MS) : own.notAfter,
        pathLength: childCaPathLength(parentCertificate, own.decoded.basicConstraints?.pathLength),
      }),
    );
    return parseCertificate(issued.der);
  } catch (error) {
    throw asInputError(error, `CA ${parent.id} cannot cross-certify this CA`);
  }
}

/** Why an imported certificate is not a cross-certificate of the CA `own` is the certificate of, or null. */
export function importedCrossCertificateProblem(
  certificate: Certificate,
  own: Certificate,
  now = new Date(),
): { rule: string; message: string } | null {
  if (!certificate.decoded.basicConstraints?.ca) {
    return { rule: 'not_a_ca', message: 'it is not a CA certificate (basicConstraints cA is not set)' };
  }
  if (!certificate.subject.der.equals(own.subject.der)) {
    return { rule: 'subject_mismatch', message: `its subject is not the CA's (${own.subject.text})` };
  }
  if (!certificate.publicKey.spki.equals(own.publicKey.spki)) {
    return { rule: 'key_mismatch', message: "its public key is not the CA's" };
  }
  if (certificate.selfIssued) {
    return { rule: 'self_issued', message: 'it is self-issued: a cross-certificate is signed by another CA' };
  }
  if (certificate.notBefore > now || certificate.notAfter <= now) {
    return { rule: 'not_valid_now', message: 'it is not valid now' };
  }
  return null;
}

/** The CA held here that issued `certificate`, among CAs of its issuer's subject; undefined if none. */
export function heldIssuerOf<T extends { certificate_pem: string | null }>(
  certificate: Certificate,
  candidates: readonly T[],
): T | undefined {
  return candidates.find(
    (candidate) =>
      candidate.certificate_pem !== null &&
      isIssuerOf(parseCertificate(candidate.certificate_pem), certificate),
  );
}
