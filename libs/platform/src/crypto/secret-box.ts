import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** Thrown when a sealed value cannot be opened: wrong key, wrong purpose, tampered or malformed. */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

const VERSION = 'v1';
const HKDF_SALT = Buffer.from('certlane secret-box v1', 'utf8');
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Secrets at rest (issuer configs, CA private keys): AES-256-GCM under a key derived with
 * HKDF-SHA256 from `SERVICE_CONFIG_ENCRYPTION_KEY` and an `info` label naming the use, so a value
 * sealed for one purpose never opens under another. The sealed form is text,
 * `v1.<iv>.<ciphertext>.<tag>` (base64url), so a later version can change algorithm or key
 * derivation and still read v1. `aad` binds the ciphertext to its row (e.g. the issuer id):
 * a sealed value copied onto another row does not open.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(secret: string | Buffer, info: string) {
    if (!info) throw new SecretBoxError('a secret box needs an info label naming its use');
    const ikm = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
    if (ikm.length < 16) throw new SecretBoxError('the secret-box key material is too short');
    this.key = Buffer.from(hkdfSync('sha256', ikm, HKDF_SALT, `certlane ${info}`, 32));
  }

  seal(plaintext: string | Buffer, aad: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const data = typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext;
    const ciphertext = Buffer.concat([cipher.update(data), cipher.final()]);
    return [VERSION, iv, ciphertext, cipher.getAuthTag()]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** The plaintext bytes; throws SecretBoxError (never the plaintext or key) when it does not open. */
  openBuffer(sealed: string, aad: string): Buffer {
    const parts = typeof sealed === 'string' ? sealed.split('.') : [];
    if (parts.length !== 4 || parts[0] !== VERSION) {
      throw new SecretBoxError('sealed value is malformed or of an unknown version');
    }
    const [iv, ciphertext, tag] = parts.slice(1).map((part) => Buffer.from(part, 'base64url'));
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
      throw new SecretBoxError('sealed value is malformed');
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
    } catch {
      throw new SecretBoxError('sealed value does not open (wrong key, purpose or binding, or tampered)');
    }
  }

  open(sealed: string, aad: string): string {
    return this.openBuffer(sealed, aad).toString('utf8');
  }
}
