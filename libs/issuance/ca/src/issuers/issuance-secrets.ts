import { Inject, Injectable } from '@nestjs/common';
import { CERTLANE_CONFIG, CertlaneConfig, SecretBox } from '@certlane/platform';

/**
 * The two secret boxes of the issuance service (ADR 0021): issuer configs sealed with the issuer id
 * as associated data, CA private keys (PKCS#8 DER) with the CA id. Distinct HKDF labels, so one
 * can never be opened as the other.
 */
@Injectable()
export class IssuanceSecrets {
  readonly issuerConfig: SecretBox;
  readonly caKeys: SecretBox;

  constructor(@Inject(CERTLANE_CONFIG) config: CertlaneConfig) {
    this.issuerConfig = new SecretBox(config.configEncryptionKey, 'issuance issuer config v1');
    this.caKeys = new SecretBox(config.configEncryptionKey, 'issuance ca private key v1');
  }

  sealConfig(issuerId: string, config: Record<string, unknown>): string {
    return this.issuerConfig.seal(JSON.stringify(config), issuerId);
  }

  openConfig(issuerId: string, sealed: string): Record<string, unknown> {
    return JSON.parse(this.issuerConfig.open(sealed, issuerId)) as Record<string, unknown>;
  }

  sealKey(caId: string, pkcs8: Buffer): string {
    return this.caKeys.seal(pkcs8, caId);
  }

  openKey(caId: string, sealed: string): Buffer {
    return this.caKeys.openBuffer(sealed, caId);
  }
}
