import { CaKeyAlgorithm } from '@certlane/contracts';
import {
  CertificateAuthority,
  childCaPathLength,
  createCsr,
  createSelfSignedCa,
  intermediateCaTemplate,
  KeyProvider,
  KeySpec,
  keySpecFor,
  NameInput,
  parseCertificate,
  Signer,
  toPem,
} from '@certlane/pki';

const DAY_MS = 86_400_000;

/** The local CA's key algorithms as pki key specs; ECDSA P-256 is the default (ADR 0021). */
export function caKeySpec(algorithm: CaKeyAlgorithm = 'ECDSA-P256'): KeySpec {
  return keySpecFor(algorithm);
}

export function caSubject(commonName: string, organization?: string): NameInput {
  return organization
    ? [
        ['O', organization],
        ['CN', commonName],
      ]
    : [['CN', commonName]];
}

/** A new CA: its key (PKCS#8 DER, for the caller to seal), and its certificate or CSR. */
export interface NewCa {
  pkcs8: Buffer;
  certificatePem?: string;
  csrPem?: string;
  subject: string;
  serialHex?: string;
  notBefore?: Date;
  notAfter?: Date;
  fingerprintSha256?: string;
}

export interface NewCaOptions {
  subject: NameInput;
  keyAlgorithm?: CaKeyAlgorithm;
  validityDays: number;
  pathLength?: number;
  now?: Date;
}

async function generate(provider: KeyProvider, algorithm?: CaKeyAlgorithm) {
  const { handle, signer } = await provider.generate(caKeySpec(algorithm));
  if (!Buffer.isBuffer(handle.reference)) throw new Error('the local CA stores software keys only');
  return { pkcs8: handle.reference, signer };
}

function describe(pkcs8: Buffer, der: Buffer): NewCa {
  const certificate = parseCertificate(der);
  return {
    pkcs8,
    certificatePem: toPem('CERTIFICATE', der),
    subject: certificate.subject.text,
    serialHex: certificate.serialNumber,
    notBefore: certificate.notBefore,
    notAfter: certificate.notAfter,
    fingerprintSha256: certificate.fingerprintSha256,
  };
}

/** A self-signed root. */
export async function createRoot(provider: KeyProvider, options: NewCaOptions): Promise<NewCa> {
  const { pkcs8, signer } = await generate(provider, options.keyAlgorithm);
  const now = options.now ?? new Date();
  const issued = await createSelfSignedCa({
    subject: options.subject,
    signer,
    notBefore: now,
    notAfter: new Date(now.getTime() + options.validityDays * DAY_MS),
    pathLength: options.pathLength,
  });
  return describe(pkcs8, issued.der);
}

/**
 * A CA signed by `parent` (its notAfter is clamped to the parent's), carrying the CRL distribution
 * points and OCSP responders of the parent (`revocation`, ADR 0075), where its revocation shows.
 */
export async function createChild(
  provider: KeyProvider,
  parent: {
    certificatePem: string;
    signer: Signer;
    revocation?: { crl: readonly string[]; ocsp: readonly string[] };
  },
  options: NewCaOptions,
): Promise<NewCa> {
  const { pkcs8, signer } = await generate(provider, options.keyAlgorithm);
  const now = options.now ?? new Date();
  const authority = new CertificateAuthority({
    certificate: parent.certificatePem,
    signer: parent.signer,
    crlDistributionPoints: parent.revocation?.crl,
    ocspUrls: parent.revocation?.ocsp,
  });
  const pathLength = childCaPathLength(parseCertificate(parent.certificatePem), options.pathLength);
  const issued = await authority.issue(
    intermediateCaTemplate({
      subject: options.subject,
      publicKey: signer.publicKey,
      notBefore: now,
      notAfter: new Date(now.getTime() + options.validityDays * DAY_MS),
      pathLength,
    }),
  );
  return describe(pkcs8, issued.der);
}

/** A sub-CA under an external root: the key and a CSR for that root to sign (status pending). */
export async function createSubCaRequest(provider: KeyProvider, options: NewCaOptions): Promise<NewCa> {
  const { pkcs8, signer } = await generate(provider, options.keyAlgorithm);
  const csr = await createCsr({
    subject: options.subject,
    signer,
    ca: { pathLength: options.pathLength },
    keyUsage: ['digitalSignature', 'keyCertSign', 'cRLSign'],
  });
  const name = options.subject
    .map(([type, value]) => `${type}=${value}`)
    .reverse()
    .join(',');
  return { pkcs8, csrPem: csr.pem, subject: name };
}
