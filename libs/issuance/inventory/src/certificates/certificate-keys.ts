import { Inject, Injectable } from '@nestjs/common';
import { KeyAlgorithmName } from '@certlane/contracts';
import { CERTLANE_CONFIG, CertlaneConfig, SecretBox } from '@certlane/platform';

/** The certificate's `key_algorithm` for a key read from a certificate (imports), if it is one we name. */
export function keyAlgorithmName(key: {
  algorithm: string;
  size?: number;
  curve?: string;
}): KeyAlgorithmName | null {
  if (key.algorithm === 'ECDSA' && (key.curve === 'P-256' || key.curve === 'P-384')) {
    return key.curve === 'P-256' ? 'ECDSA-P256' : 'ECDSA-P384';
  }
  if (key.algorithm === 'RSA' && (key.size === 2048 || key.size === 3072 || key.size === 4096)) {
    return `RSA-${key.size}`;
  }
  return key.algorithm === 'Ed25519' ? 'Ed25519' : null;
}

/**
 * Server-generated private keys (SERVICE_KEYGEN_MODE=server), sealed with AES-256-GCM under a key
 * derived from SERVICE_CONFIG_ENCRYPTION_KEY with its own label, the version id as associated
 * data: a sealed key copied onto another version does not open.
 */
@Injectable()
export class CertificateKeySealer {
  private readonly box: SecretBox;

  constructor(@Inject(CERTLANE_CONFIG) config: CertlaneConfig) {
    this.box = new SecretBox(config.configEncryptionKey, 'issuance certificate private key v1');
  }

  seal(versionId: string, pkcs8: Buffer): string {
    return this.box.seal(pkcs8, versionId);
  }

  open(versionId: string, sealed: string): Buffer {
    return this.box.openBuffer(sealed, versionId);
  }
}
