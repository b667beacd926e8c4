// A small PKI made with libs/pki itself, shared by the specs: root -> intermediate -> leaves.
import { createSelfSignedCa, intermediateCaTemplate } from '../ca';
import { CertificateAuthority } from '../certificate-builder';
import { Certificate, parseCertificate } from '../certificate';
import { KeySpec, SoftwareKeyProvider, SoftwareSigner } from '../keys/key-provider';

export const provider = new SoftwareKeyProvider();

export interface TestPki {
  root: Certificate;
  rootSigner: SoftwareSigner;
  rootCa: CertificateAuthority;
  intermediate: Certificate;
  intermediateSigner: SoftwareSigner;
  ca: CertificateAuthority;
}

const YEAR = 365 * 86_400_000;

export async function createTestPki(
  spec: KeySpec = { algorithm: 'ECDSA', curve: 'P-256' },
  options: {
    now?: Date;
    urls?: { crlDistributionPoints?: string[]; ocspUrls?: string[]; caIssuersUrls?: string[] };
  } = {},
): Promise<TestPki> {
  const now = options.now ?? new Date();
  const { signer: rootSigner } = await provider.generate(spec);
  const rootIssued = await createSelfSignedCa({
    subject: [
      ['C', 'US'],
      ['O', 'Certlane Test'],
      ['CN', `Test Root ${spec.algorithm}`],
    ],
    signer: rootSigner,
    notBefore: new Date(now.getTime() - 3600_000),
    notAfter: new Date(now.getTime() + 10 * YEAR),
    pathLength: 1,
  });
  const root = parseCertificate(rootIssued.der);
  const rootCa = new CertificateAuthority({ certificate: root, signer: rootSigner });
  const { signer: intermediateSigner } = await provider.generate(spec);
  const intermediateIssued = await rootCa.issue(
    intermediateCaTemplate({
      subject: [
        ['C', 'US'],
        ['O', 'Certlane Test'],
        ['CN', `Test Issuing CA ${spec.algorithm}`],
      ],
      publicKey: intermediateSigner.publicKey,
      notBefore: new Date(now.getTime() - 3600_000),
      notAfter: new Date(now.getTime() + 5 * YEAR),
      pathLength: 0,
    }),
  );
  const intermediate = parseCertificate(intermediateIssued.der);
  const ca = new CertificateAuthority({
    certificate: intermediate,
    signer: intermediateSigner,
    ...options.urls,
  });
  return { root, rootSigner, rootCa, intermediate, intermediateSigner, ca };
}
