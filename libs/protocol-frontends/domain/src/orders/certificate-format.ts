/**
 * The forms a certificate is downloaded in (RFC 8555 7.4.2): the PEM chain by default, and on
 * request by `Accept` the end-entity certificate in DER (`application/pkix-cert`, RFC 2585) or
 * the chain as a certs-only PKCS#7 (`application/pkcs7-mime`, RFC 5751 3.2.1).
 */
export const CERTIFICATE_FORMATS = {
  'pem-chain': 'application/pem-certificate-chain',
  'pkix-cert': 'application/pkix-cert',
  'pkcs7-certs-only': 'application/pkcs7-mime',
} as const;
export type CertificateFormat = keyof typeof CERTIFICATE_FORMATS;

/**
 * The form an `Accept` header asks for: the one of highest quality among those offered, the PEM
 * chain when it ties or when nothing offered is asked for. Never a refusal: clients send JSON
 * types or `*\/*` on every request (RFC 8555 7.4.2 makes other formats a client's MAY), and
 * answering 406 to them breaks their downloads, as Let's Encrypt's ignoring of Accept taught them.
 */
export function certificateFormatFor(accept: string | undefined): CertificateFormat {
  if (!accept) return 'pem-chain';
  let best: { format: CertificateFormat; quality: number } = { format: 'pem-chain', quality: 0 };
  for (const range of accept.split(',')) {
    const [type, ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    const format = (Object.keys(CERTIFICATE_FORMATS) as CertificateFormat[]).find(
      (candidate) => CERTIFICATE_FORMATS[candidate] === type,
    );
    if (!format) continue;
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    if (!Number.isFinite(quality) || quality <= 0) continue;
    const better = quality > best.quality || (quality === best.quality && format === 'pem-chain');
    if (better) best = { format, quality };
  }
  return best.format;
}
