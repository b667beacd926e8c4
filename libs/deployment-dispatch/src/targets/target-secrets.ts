import { Inject, Injectable } from '@nestjs/common';
import { CERTLANE_CONFIG, CertlaneConfig, SecretBox } from '@certlane/platform';

/**
 * Target configs at rest: AES-256-GCM (SecretBox) under a key derived from
 * SERVICE_CONFIG_ENCRYPTION_KEY with this service's own label, the target id as associated data
 * (a sealed config copied onto another target does not open).
 */
@Injectable()
export class TargetSecrets {
  private readonly box: SecretBox;

  constructor(@Inject(CERTLANE_CONFIG) config: CertlaneConfig) {
    this.box = new SecretBox(config.configEncryptionKey, 'deployment-dispatch target config v1');
  }

  seal(targetId: string, config: Record<string, unknown>): string {
    return this.box.seal(JSON.stringify(config), targetId);
  }

  open(targetId: string, sealed: string): Record<string, unknown> {
    return JSON.parse(this.box.open(sealed, targetId)) as Record<string, unknown>;
  }
}
