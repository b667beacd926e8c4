import { SealedKeyBox } from '../sealed-key-box';

/** The SecretBox label of EST key-encryption keys; the key id is the associated data. */
export const EST_KEK_BOX = 'est key-encryption keys';

/** AES-256 key-encryption keys of EST profiles (RFC 7030 4.4.1.1), sealed at rest. */
export class EstKekBox extends SealedKeyBox {
  constructor(encryptionKey: string | Buffer) {
    super(encryptionKey, EST_KEK_BOX);
  }
}
