import { SealedKeyBox } from '../sealed-key-box';

/** The SecretBox label of EAB HMAC keys; the key id is the associated data. */
export const ACME_EAB_KEYS_BOX = 'acme eab keys';

/** 256-bit HMAC keys for external account binding (RFC 8555 7.3.4), sealed at rest. */
export class EabKeyBox extends SealedKeyBox {
  constructor(encryptionKey: string | Buffer) {
    super(encryptionKey, ACME_EAB_KEYS_BOX);
  }
}
