import { CertId, createOcspRequest } from '@certlane/pki';

/** The key of a CA's CRL: the path of its https URL, `crl/<issuer_id>/<ca_id>.crl` (ADR 0023). */
export function crlKey(issuerId: string, caId: string): string {
  return `crl/${issuerId}/${caId}.crl`;
}

/**
 * The key of the pre-signed response to the RFC 5019 request about one CertID (one request, no
 * nonce, the CertID as the service encodes it: SHA-1 with NULL parameters, as OpenSSL and browsers
 * send it): `ocsp/<issuer_id>/<base64 of the DER request>`. A static server decodes the
 * percent-encoded GET path before it looks the file up, so the key holds the base64 as is; its
 * '/' characters become directories, and a run of them one separator (file systems and nginx's
 * merge_slashes read `a//b` as `a/b`). Undefined when the base64 ends with '/': that path names a
 * directory, no file can answer it (about one serial in 64; those clients use the https responder).
 */
export function ocspKey(issuerId: string, certId: CertId): string | undefined {
  const base64 = createOcspRequest([certId]).toString('base64');
  if (base64.endsWith('/')) return undefined;
  return `ocsp/${issuerId}/${base64.replace(/\/+/g, '/')}`;
}
