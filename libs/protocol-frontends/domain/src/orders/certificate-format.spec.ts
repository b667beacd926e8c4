import { certificateFormatFor } from './certificate-format';

describe('certificateFormatFor (RFC 8555 7.4.2)', () => {
  it.each([
    [undefined, 'pem-chain'],
    ['', 'pem-chain'],
    ['*/*', 'pem-chain'],
    ['application/json, application/jose+json', 'pem-chain'],
    ['application/pem-certificate-chain', 'pem-chain'],
    ['application/pkix-cert', 'pkix-cert'],
    ['Application/PKIX-Cert', 'pkix-cert'],
    ['application/pkcs7-mime', 'pkcs7-certs-only'],
    ['application/pkcs7-mime; smime-type=certs-only', 'pkcs7-certs-only'],
    ['application/pkix-cert;q=0.5, application/pem-certificate-chain', 'pem-chain'],
    ['application/pem-certificate-chain;q=0.2, application/pkcs7-mime;q=0.9', 'pkcs7-certs-only'],
    ['application/pkix-cert, application/pem-certificate-chain', 'pem-chain'],
    ['application/pkix-cert;q=0', 'pem-chain'],
    ['application/pkix-cert;q=abc', 'pem-chain'],
    ['text/html, application/pkix-cert;q=0.1', 'pkix-cert'],
  ])('Accept %p asks for %s', (accept, format) => {
    expect(certificateFormatFor(accept)).toBe(format);
  });
});
