import { createCipheriv, createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { Certificate, CertificateInput, toCertificate } from './certificate';
import { Tag } from './der/tags';
import {
  NULL,
  explicit,
  implicit,
  octetString,
  oid,
  sequence,
  set,
  smallInteger,
  tlv,
  tlvList,
} from './der/writer';
import { PkiError } from './errors';
import { Oid } from './oids';

export interface Pkcs12Options {
  /**
   * With a password (the empty string included), the certificates are encrypted (PBES2:
   * PBKDF2-HMAC-SHA256 and AES-256-CBC) and the file carries an HMAC-SHA256 MAC, as OpenSSL 3
   * writes by default. Without one, the certificates are in the clear and there is no MAC (the
   * "passwordless" PKCS#12 that Java and OpenSSL read).
   */
  password?: string;
  /**
   * friendlyName (the keystore alias) of the leaf certificate's bag; by default, as for the chain,
   * the subject's common name.
   */
  friendlyName?: string;
  /** PBKDF2 iterations (default 10,000) and MAC iterations (default 2,048). */
  iterations?: number;
  macIterations?: number;
}

const DEFAULT_ITERATIONS = 10_000;
const DEFAULT_MAC_ITERATIONS = 2_048;
const MAX_PASSWORD_CHARS = 1024;

/**
 * A PKCS#12 (RFC 7292) file holding a certificate and its chain and never a private key: there
 * is no parameter through which one could be passed. The leaf comes first, then the chain in the
 * order given; each is a trusted-certificate entry under its own alias for Java (ADR 0043).
 */
export function buildPkcs12(
  certificate: CertificateInput,
  chain: readonly CertificateInput[] = [],
  options: Pkcs12Options = {},
): Buffer {
  const certificates = [certificate, ...chain].map((c) => toCertificate(c));
  const { password } = options;
  if (password !== undefined && (typeof password !== 'string' || password.length > MAX_PASSWORD_CHARS)) {
    throw new PkiError(
      'profile_invalid',
      `the PKCS#12 password must be a string of at most ${MAX_PASSWORD_CHARS} characters`,
    );
  }
  for (const count of [options.iterations, options.macIterations]) {
    if (count !== undefined && (!Number.isInteger(count) || count < 1 || count > 10_000_000)) {
      throw new PkiError('profile_invalid', 'PKCS#12 iteration counts must be integers from 1 to 10,000,000');
    }
  }
  const aliases = pkcs12Aliases(certificates, options.friendlyName);
  const bags = certificates.map((c, index) => certBag(c.der, aliases[index]));
  const safeContents = tlvList(Tag.Sequence, bags);
  const contentInfo =
    password === undefined
      ? dataContentInfo(safeContents)
      : encryptedContentInfo(safeContents, password, options.iterations ?? DEFAULT_ITERATIONS);
  const authenticatedSafe = sequence(contentInfo);
  const parts = [smallInteger(3), dataContentInfo(authenticatedSafe)];
  if (password !== undefined)
    parts.push(macData(authenticatedSafe, password, options.macIterations ?? DEFAULT_MAC_ITERATIONS));
  return sequence(...parts);
}

/**
 * Every bag is a trusted-certificate entry for Java: keytool shows a key-less certificate bag only
 * when it carries Oracle's trusted-key-usage attribute (and takes the entry's alias from its
 * friendlyName); OpenSSL ignores the attribute.
 */
function certBag(der: Buffer, alias: string): Buffer {
  const value = explicit(0, sequence(oid(Oid.x509Certificate), explicit(0, octetString(der))));
  const bmp = Buffer.from(alias, 'utf16le').swap16();
  const attributes = [
    sequence(oid(Oid.friendlyName), set(tlv(Tag.BmpString, bmp))),
    sequence(oid(Oid.oracleTrustedKeyUsage), set(oid(Oid.anyExtendedKeyUsage))),
  ].sort(Buffer.compare); // DER orders a SET OF by its encodings
  return sequence(oid(Oid.certBag), value, set(...attributes));
}

/**
 * One alias per certificate: the leaf's is `friendlyName` when given, every other one the subject's
 * common name (or its whole DN). Java compares aliases case-insensitively and keeps one entry per
 * alias, so repeats get a ` (2)`, ` (3)`... suffix.
 */
export function pkcs12Aliases(certificates: readonly Certificate[], friendlyName?: string): string[] {
  const taken = new Set<string>();
  return certificates.map((certificate, index) => {
    const wanted =
      (index === 0 && friendlyName ? friendlyName : undefined) ??
      (certificate.subject.commonName || certificate.subject.text || `certificate ${index + 1}`);
    let alias = wanted;
    for (let n = 2; taken.has(alias.toLowerCase()); n++) alias = `${wanted} (${n})`;
    taken.add(alias.toLowerCase());
    return alias;
  });
}

function dataContentInfo(content: Buffer): Buffer {
  return sequence(oid(Oid.pkcs7Data), explicit(0, octetString(content)));
}

function encryptedContentInfo(plaintext: Buffer, password: string, iterations: number): Buffer {
  const salt = randomBytes(16);
  const iv = randomBytes(16);
  const key = pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, 32, 'sha256');
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  const encrypted = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  const pbes2 = sequence(
    oid(Oid.pbes2),
    sequence(
      sequence(
        oid(Oid.pbkdf2),
        sequence(octetString(salt), smallInteger(iterations), sequence(oid(Oid.hmacWithSha256), NULL)),
      ),
      sequence(oid(Oid.aes256Cbc), octetString(iv)),
    ),
  );
  const encryptedData = sequence(
    smallInteger(0),
    sequence(oid(Oid.pkcs7Data), pbes2, implicit(0, encrypted)),
  );
  return sequence(oid(Oid.pkcs7EncryptedData), explicit(0, encryptedData));
}

function macData(authenticatedSafe: Buffer, password: string, iterations: number): Buffer {
  const salt = randomBytes(16);
  const key = pkcs12Kdf(password, salt, 3, iterations, 32);
  const mac = createHmac('sha256', key).update(authenticatedSafe).digest();
  return sequence(
    sequence(sequence(oid(Oid.sha256), NULL), octetString(mac)),
    octetString(salt),
    smallInteger(iterations),
  );
}

/** RFC 7292 Appendix B.2 key derivation (v = 64); the password as a NUL-terminated BMPString. */
export function pkcs12Kdf(
  password: string,
  salt: Buffer,
  id: number,
  iterations: number,
  length: number,
  hash: 'sha1' | 'sha256' = 'sha256',
): Buffer {
  const u = hash === 'sha1' ? 20 : 32;
  const v = 64;
  const pass = Buffer.concat([Buffer.from(password, 'utf16le').swap16(), Buffer.alloc(2)]);
  const fill = (data: Buffer) => {
    if (data.length === 0) return Buffer.alloc(0);
    const out = Buffer.alloc(v * Math.ceil(data.length / v));
    for (let i = 0; i < out.length; i++) out[i] = data[i % data.length];
    return out;
  };
  const D = Buffer.alloc(v, id);
  const I = Buffer.concat([fill(salt), fill(pass)]);
  const result: Buffer[] = [];
  for (let produced = 0; produced < length; produced += u) {
    let A = createHash(hash).update(D).update(I).digest();
    for (let r = 1; r < iterations; r++) A = createHash(hash).update(A).digest();
    result.push(A);
    const B = fill(A);
    for (let j = 0; j < I.length; j += v) {
      // I_j = (I_j + B + 1) mod 2^(8v)
      let carry = 1;
      for (let k = v - 1; k >= 0; k--) {
        const sum = I[j + k] + B[k] + carry;
        I[j + k] = sum & 0xff;
        carry = sum >> 8;
      }
    }
  }
  return Buffer.concat(result).subarray(0, length);
}
