import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { Certificate, isIssuerOf } from '@certlane/pki';

/** A CA certificate Certlane holds (local CA roots and intermediates) and the issuer it belongs to. */
export interface HeldCaCertificate {
  issuer_id: string;
  certificate: Certificate;
}

/** The leaf's subjectAltNames as the certificate's `sans` (DNS, IP, e-mail and URI names). */
export function importedSans(leaf: Certificate): string[] {
  return (leaf.decoded.subjectAltNames ?? [])
    .filter(
      (name) => name.type === 'dns' || name.type === 'ip' || name.type === 'email' || name.type === 'uri',
    )
    .map((name) => name.value);
}

/**
 * The certificate's common_name: the leaf subject's CN; for a subject without one, the name the
 * request gave, else the first subjectAltName, else the subject DN.
 */
export function importedCommonName(leaf: Certificate, requested: string | undefined): string {
  const name = leaf.subject.commonName || requested || importedSans(leaf)[0] || leaf.subject.text;
  if (!name) {
    throw new CertlaneError(
      ErrorCode.ValidationFailed,
      'common_name: the certificate has no subject and no subjectAltName; give a common_name',
      { field: 'common_name' },
    );
  }
  return name.slice(0, 253);
}

/**
 * The issuer an imported certificate is recorded under (ADR 0043): the issuer whose CA signed it
 * (issuer DN, key identifiers and signature), or none when no CA Certlane holds did. A request
 * may name an issuer Certlane holds no CA for (a remote CA or ACME issuer the certificate is to be
 * renewed by), but not a CA-holding issuer that did not sign it.
 */
export function importedIssuer(
  leaf: Certificate,
  held: readonly HeldCaCertificate[],
  requested: string | undefined,
): string | null {
  const signers = held.filter((ca) => isIssuerOf(ca.certificate, leaf)).map((ca) => ca.issuer_id);
  if (requested === undefined || requested === '') return signers[0] ?? null;
  if (signers.includes(requested) || !held.some((ca) => ca.issuer_id === requested)) return requested;
  throw new CertlaneError(
    ErrorCode.ValidationFailed,
    `issuer_id: the certificate was not issued by issuer ${JSON.stringify(requested)}`,
    { field: 'issuer_id' },
  );
}
