import { createPrivateKey, createPublicKey, webcrypto } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as x509 from '@peculiar/x509';

/**
 * A PKCS#10 request (DER) for the key at `keyPath` (RSA or P-256, PEM) with one extensionRequest
 * attribute per entry of `extensionRequests`, each a SAN of those DNS names. Two of them make an
 * ambiguous request (readers disagree on which one counts), which the servers refuse.
 */
export async function csrWithDnsNames(
  keyPath: string,
  commonName: string,
  extensionRequests: string[][],
  challenge?: string,
): Promise<Buffer> {
  const privateKey = createPrivateKey(readFileSync(keyPath));
  const algorithm =
    privateKey.asymmetricKeyType === 'rsa'
      ? { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }
      : { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = {
    privateKey: await webcrypto.subtle.importKey(
      'pkcs8',
      privateKey.export({ type: 'pkcs8', format: 'der' }),
      algorithm,
      true,
      ['sign'],
    ),
    publicKey: await webcrypto.subtle.importKey(
      'spki',
      createPublicKey(privateKey).export({ type: 'spki', format: 'der' }),
      algorithm,
      true,
      ['verify'],
    ),
  };
  const extensionRequest = (names: string[]) =>
    new x509.ExtensionsAttribute([
      new x509.SubjectAlternativeNameExtension(names.map((value) => ({ type: 'dns' as const, value }))),
    ]);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create(
    {
      name: `CN=${commonName}`,
      keys: keys as unknown as Parameters<typeof x509.Pkcs10CertificateRequestGenerator.create>[0]['keys'],
      signingAlgorithm: algorithm,
      attributes: [
        ...(challenge ? [new x509.ChallengePasswordAttribute(challenge)] : []),
        ...extensionRequests.map(extensionRequest),
      ],
    },
    webcrypto as unknown as Parameters<typeof x509.Pkcs10CertificateRequestGenerator.create>[1],
  );
  return Buffer.from(csr.rawData);
}
