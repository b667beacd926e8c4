import { randomBytes } from 'node:crypto';
import { SecretBox } from '@certlane/platform';

/**
 * Random 256-bit keys an admin creates and a client receives once (ACME EAB HMAC keys, EST
 * key-encryption keys), sealed at rest with the config encryption key under a label naming
 * their use; the key id is the associated data, so a sealed key copied to another row does not open.
 */
export class SealedKeyBox {
  private readonly box: SecretBox;

  constructor(encryptionKey: string | Buffer, label: string) {
    this.box = new SecretBox(encryptionKey, label);
  }

  /** A fresh key and its sealed form for the row of `keyId`. */
  generate(keyId: string): { key: Buffer; sealed: string } {
    const key = randomBytes(32);
    return { key, sealed: this.box.seal(key, keyId) };
  }

  open(keyId: string, sealed: string): Buffer {
    return this.box.openBuffer(sealed, keyId);
  }
}
