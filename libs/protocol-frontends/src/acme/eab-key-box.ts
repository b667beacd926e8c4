import { randomBytes } from 'node:crypto';
import { SecretBox } from '@certlane/platform';

/** The SecretBox label of EAB HMAC keys; the key id is the associated data. */
export const ACME_EAB_KEYS_BOX = 'acme eab keys';

/** 256-bit HMAC keys for external account binding (RFC 8555 7.3.4), sealed at rest. */
export class EabKeyBox {
  private readonly box: SecretBox;

  constructor(encryptionKey: string | Buffer) {
    this.box = new SecretBox(encryptionKey, ACME_EAB_KEYS_BOX);
  }

  /** A fresh HMAC key and its sealed form for the row of `keyId`. */
  generate(keyId: string): { hmacKey: Buffer; sealed: string } {
    const hmacKey = randomBytes(32);
    return { hmacKey, sealed: this.box.seal(hmacKey, keyId) };
  }

  open(keyId: string, sealed: string): Buffer {
    return this.box.openBuffer(sealed, keyId);
  }
}
