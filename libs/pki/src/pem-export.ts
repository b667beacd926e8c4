import { CertificateInput, toCertificate } from './certificate';
import { PemLabel, toPem } from './pem';

/** The JSON of `GET /certificates/{id}/export/pem`. */
export interface PemExport {
  cert_pem: string;
  /** The issuing chain, issuer first, as given (no leaf). */
  chain_pem: string;
  /** cert_pem followed by chain_pem. */
  full_pem: string;
}

/**
 * PEM export of a certificate and its chain. Every input is parsed first, so a stored PEM that
 * does not parse fails with a `PkiError` (for the 422 of spec 4.2) rather than being echoed.
 */
export function exportPem(certificate: CertificateInput, chain: readonly CertificateInput[] = []): PemExport {
  const cert_pem = toPem(PemLabel.certificate, toCertificate(certificate).der);
  const chain_pem = chain.map((c) => toPem(PemLabel.certificate, toCertificate(c).der)).join('');
  return { cert_pem, chain_pem, full_pem: cert_pem + chain_pem };
}
