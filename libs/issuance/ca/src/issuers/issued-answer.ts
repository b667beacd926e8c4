import {
  IssuedCertificateResult,
  IssuerError,
  parseCertificate,
  PemLabel,
  pemCertificateBlocks,
  toPem,
} from '@certlane/pki';

/**
 * The certificate a remote CA answered (a script's standard output, Vault's `certificate` and
 * chain): PEM CERTIFICATE blocks, the leaf first and then its chain (issuer first); text around
 * them is ignored. The leaf must certify the CSR's key and not be expired, or the CA or its
 * adapter is broken (misconfigured): a certificate for another key is never handed out.
 */
export function readIssuedCertificate(
  pems: string,
  csrSpki: Buffer,
  what: string,
  now = new Date(),
): IssuedCertificateResult {
  const blocks = pemCertificateBlocks(pems);
  if (blocks.length === 0) throw new IssuerError('misconfigured', `${what} gave no PEM certificate`);
  let certificates;
  try {
    certificates = blocks.map((block) => parseCertificate(block));
  } catch (error) {
    throw new IssuerError(
      'misconfigured',
      `${what} gave a certificate that cannot be read: ${(error as Error).message}`,
    );
  }
  const [leaf, ...chain] = certificates;
  if (!leaf.publicKey.spki.equals(csrSpki))
    throw new IssuerError(
      'misconfigured',
      `${what} gave a certificate for another key than the CSR's (serial ${leaf.serialNumber})`,
    );
  if (leaf.notAfter.getTime() <= now.getTime())
    throw new IssuerError(
      'misconfigured',
      `${what} gave a certificate that expired at ${leaf.notAfter.toISOString()}`,
    );
  return {
    certificate: leaf,
    certificatePem: toPem(PemLabel.certificate, leaf.der),
    chainPem: chain.map((certificate) => toPem(PemLabel.certificate, certificate.der)).join(''),
    serialNumber: leaf.serialNumber,
    subject: leaf.subject.text,
    notBefore: leaf.notBefore,
    notAfter: leaf.notAfter,
    fingerprintSha256: leaf.fingerprintSha256,
  };
}
