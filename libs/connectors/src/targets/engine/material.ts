import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { pemCertificateBlocks } from '@certlane/pki';
import type { DeploymentMaterial } from '../target-connector';

/** SHA-256 of a certificate's DER, lower-case hex: the fingerprint verification compares. */
export function certificateFingerprint(pem: string | Buffer): string {
  return createHash('sha256').update(new X509Certificate(pem).raw).digest('hex');
}

/** The leaf followed by its chain: what `ssl_certificate` and friends read as a "full chain". */
export function fullChainPem(material: DeploymentMaterial): string {
  return [...pemCertificateBlocks(material.certificatePem), ...pemCertificateBlocks(material.chainPem)].join(
    '',
  );
}

export function leafPem(material: DeploymentMaterial): string {
  return pemCertificateBlocks(material.certificatePem).join('');
}

export function chainPem(material: DeploymentMaterial): string {
  return pemCertificateBlocks(material.chainPem).join('');
}

export function privateKeyPem(material: DeploymentMaterial): string {
  const key = material.privateKeyPem.trim();
  return `${key}\n`;
}

/**
 * Why the material must not be deployed, or null: the leaf must parse, be the one whose
 * fingerprint verification will expect, and match the private key. Never echoes key material.
 */
export function materialProblem(material: DeploymentMaterial): string | null {
  const leaves = pemCertificateBlocks(material.certificatePem);
  if (leaves.length !== 1) return 'the certificate PEM must hold exactly one certificate';
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(leaves[0]);
  } catch {
    return 'the certificate PEM does not parse';
  }
  for (const block of pemCertificateBlocks(material.chainPem)) {
    try {
      new X509Certificate(block);
    } catch {
      return 'a chain certificate does not parse';
    }
  }
  if (certificateFingerprint(leaves[0]) !== material.fingerprintSha256.toLowerCase()) {
    return 'the certificate does not have the expected fingerprint';
  }
  try {
    if (!leaf.checkPrivateKey(createPrivateKey(material.privateKeyPem))) {
      return 'the private key does not match the certificate';
    }
  } catch {
    return 'the private key does not parse';
  }
  return null;
}
