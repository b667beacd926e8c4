import { createHash, createPrivateKey, KeyObject, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { SecretBox } from '@certlane/platform';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

/** The label of the RA keys' secret box: a key sealed for anything else never opens here. */
export const SCEP_RA_KEY_LABEL = 'protocol-frontends scep ra key v1';

export interface NewRaKey {
  /** PKCS#8 DER; the caller seals it and drops it. */
  privateKeyPkcs8: Buffer;
  csrPem: string;
}

/**
 * A new RA key pair (RSA-2048: SCEP clients encrypt to it by key transport, RFC 8894 3.5.1) and
 * the CSR the profile's issuer signs into the RA certificate, with the key usages of an RA that
 * signs CertReps and receives enveloped requests.
 */
export async function newRaKey(pathId: string): Promise<NewRaKey> {
  const algorithm = {
    name: 'RSASSA-PKCS1-v1_5',
    hash: 'SHA-256',
    publicExponent: new Uint8Array([1, 0, 1]),
    modulusLength: 2048,
  };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: `CN=Certlane SCEP RA ${pathId}`,
    keys,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
        true,
      ),
    ],
  });
  const privateKeyPkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return { privateKeyPkcs8, csrPem: csr.toString('pem') };
}

/** Seals and opens RA keys: AES-256-GCM under SERVICE_CONFIG_ENCRYPTION_KEY, the profile id as AAD. */
export class RaKeyBox {
  private readonly box: SecretBox;

  constructor(configEncryptionKey: string) {
    this.box = new SecretBox(configEncryptionKey, SCEP_RA_KEY_LABEL);
  }

  seal(profileId: string, pkcs8: Buffer): string {
    return this.box.seal(pkcs8, profileId);
  }

  open(profileId: string, sealed: string): KeyObject {
    const der = this.box.openBuffer(sealed, profileId);
    try {
      return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    } finally {
      der.fill(0);
    }
  }
}

/** The RA certificate facts the API shows. */
export function raCertificateFacts(pem: string): {
  subject: string;
  not_before: string;
  not_after: string;
  serial_hex: string;
  fingerprint_sha256: string;
} {
  const certificate = new x509.X509Certificate(pem);
  return {
    subject: certificate.subject,
    not_before: certificate.notBefore.toISOString(),
    not_after: certificate.notAfter.toISOString(),
    serial_hex: certificate.serialNumber,
    fingerprint_sha256: createHash('sha256').update(Buffer.from(certificate.rawData)).digest('hex'),
  };
}
