import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import type { DeploymentMaterial } from '../target-connector';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The certificates of a PEM bundle, each normalised to end with one newline. `@certlane/pki` has
 * the same split, but this library runs in the agent and imports no Certlane library but the
 * contracts (ADR 0029).
 */
export function pemCertificates(pem: string): string[] {
  return (pem.match(PEM_CERTIFICATE) ?? []).map((block) => `${block.trim()}\n`);
}

/** SHA-256 of a certificate's DER, lower-case hex: the fingerprint verification compares. */
export function certificateFingerprint(pem: string | Buffer): string {
  return createHash('sha256').update(new X509Certificate(pem).raw).digest('hex');
}

/** The leaf followed by its chain: what `ssl_certificate` and friends read as a "full chain". */
export function fullChainPem(material: DeploymentMaterial): string {
  return [...pemCertificates(material.certificatePem), ...pemCertificates(material.chainPem)].join('');
}

export function leafPem(material: DeploymentMaterial): string {
  return pemCertificates(material.certificatePem).join('');
}

export function chainPem(material: DeploymentMaterial): string {
  return pemCertificates(material.chainPem).join('');
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
  const leaves = pemCertificates(material.certificatePem);
  if (leaves.length !== 1) return 'the certificate PEM must hold exactly one certificate';
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(leaves[0]);
  } catch {
    return 'the certificate PEM does not parse';
  }
  for (const block of pemCertificates(material.chainPem)) {
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
