import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

export interface GeneratedCertificate {
  certPem: string;
  keyPem: string;
}

/**
 * A self-signed ECDSA P-256 server certificate for local use (quick start, tests). Production
 * deployments mount a real certificate instead.
 */
export async function generateSelfSignedCertificate(options: {
  commonName: string;
  dnsNames: string[];
  ipAddresses?: string[];
  validDays?: number;
}): Promise<GeneratedCertificate> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(notBefore.getTime() + (options.validDays ?? 365) * 86_400_000);
  const serial = Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)));
  serial[0] &= 0x7f;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial.toString('hex'),
    name: `CN=${options.commonName}`,
    notBefore,
    notAfter,
    keys: keys as unknown as x509.X509CertificateCreateSelfSignedParams['keys'],
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        ...options.dnsNames.map((value) => ({ type: 'dns' as const, value })),
        ...(options.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value })),
      ]),
      await x509.SubjectKeyIdentifierExtension.create(
        keys.publicKey as unknown as Parameters<typeof x509.SubjectKeyIdentifierExtension.create>[0],
      ),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  const keyPem = x509.PemConverter.encode(pkcs8, 'PRIVATE KEY');
  return { certPem: cert.toString('pem') + '\n', keyPem: keyPem + '\n' };
}
