import { X509Certificate } from 'node:crypto';
import forge from 'node-forge';

/** The formats read (ADR 0063); anything else in a file is ignored. */
export type CertificateFileFormat = 'pem' | 'der' | 'pkcs12' | 'jks';

export interface CertificateFile {
  format: CertificateFileFormat;
  /** DER of every certificate found in the file, in file order. */
  certificates: Buffer[];
  /** Why some certificates could not be read (a PKCS#12 whose certificates no listed password opens). */
  locked?: string;
}

const { asn1 } = forge;
const OID = {
  data: '1.2.840.113549.1.7.1',
  encryptedData: '1.2.840.113549.1.7.6',
  certBag: '1.2.840.113549.1.12.10.1.3',
  safeContentsBag: '1.2.840.113549.1.12.10.1.6',
  x509Certificate: '1.2.840.113549.1.9.22.1',
};

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----\r?\n([A-Za-z0-9+/=\r\n]+?)-----END CERTIFICATE-----/g;

const isCertificate = (der: Buffer): boolean => {
  try {
    new X509Certificate(der);
    return true;
  } catch {
    return false;
  }
};

/**
 * Only `CERTIFICATE` blocks are decoded; any other block (a private key beside the certificate)
 * is never parsed.
 */
function pemCertificates(text: string): Buffer[] {
  const found: Buffer[] = [];
  for (const match of text.matchAll(PEM_CERTIFICATE)) {
    const der = Buffer.from(match[1].replace(/\s+/g, ''), 'base64');
    if (isCertificate(der)) found.push(der);
  }
  return found;
}

// ---- JKS and JCEKS: certificates are stored in clear; key entries are skipped by length ----

const JKS_MAGIC = 0xfeedfeed;
const JCEKS_MAGIC = 0xcececece;

/**
 * A Java keystore (JKS, or JCEKS with the same layout): trusted-certificate entries and the
 * certificate chain of private-key entries are plain DER; the protected key bytes of a key entry
 * are stepped over by their length, never decoded. The keystore's integrity digest needs the
 * store password and is not checked: only public certificates are read. A JCEKS secret-key entry
 * (a serialized Java object) ends the walk, keeping what was read.
 */
function jksCertificates(bytes: Buffer): Buffer[] {
  let offset = 0;
  const u16 = () => ((offset += 2), bytes.readUInt16BE(offset - 2));
  const u32 = () => ((offset += 4), bytes.readUInt32BE(offset - 4));
  const skip = (length: number) => {
    if (offset + length > bytes.length) throw new Error('truncated keystore');
    offset += length;
  };
  const utf = () => skip(u16());
  const certificate = (into: Buffer[]) => {
    utf(); // the certificate type, "X.509" (version 2 keystores name it)
    const length = u32();
    if (offset + length > bytes.length) throw new Error('truncated keystore');
    const der = Buffer.from(bytes.subarray(offset, offset + length));
    offset += length;
    if (isCertificate(der)) into.push(der);
  };
  const magic = u32();
  if (magic !== JKS_MAGIC && magic !== JCEKS_MAGIC) return [];
  if (u32() !== 2) throw new Error('unsupported keystore version');
  const count = u32();
  const found: Buffer[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const tag = u32();
      utf(); // alias
      skip(8); // creation date
      if (tag === 1) {
        skip(u32()); // the protected private key: stepped over, never decoded
        const chain = u32();
        for (let c = 0; c < chain; c++) certificate(found);
      } else if (tag === 2) {
        certificate(found);
      } else {
        break; // a JCEKS secret key (serialized object): nothing public follows that we can size
      }
    }
  } catch {
    // A truncated or odd keystore: keep the certificates read so far.
  }
  return found;
}

// ---- PKCS#12: certificate bags only ----

type Asn1 = forge.asn1.Asn1;

/** The parts of node-forge used here that its type definitions leave out. */
const forgeInternals = forge as unknown as {
  asn1: {
    validate(node: Asn1, validator: unknown, capture: Record<string, unknown>, errors: unknown[]): boolean;
  };
  pkcs7: { asn1: { encryptedDataValidator: unknown } };
  pki: {
    pbe: {
      getCipher(oid: string, params: unknown, password: string): forge.cipher.BlockCipher;
    };
  };
};

const bytesOf = (node: Asn1): string =>
  Array.isArray(node.value) ? node.value.map((part) => bytesOf(part)).join('') : (node.value as string);

const oidOf = (node: Asn1 | undefined): string | null =>
  node && node.type === asn1.Type.OID ? asn1.derToOid(node.value as string) : null;

/**
 * SafeContents ::= SEQUENCE OF SafeBag, each a SEQUENCE opening with its bag OID. A wrong password
 * can decrypt to bytes with valid padding that still parse as DER; this shape check tells them apart.
 */
function isSafeContents(node: Asn1): boolean {
  if (node.type !== asn1.Type.SEQUENCE || !Array.isArray(node.value)) return false;
  return node.value.every(
    (bag) => bag.type === asn1.Type.SEQUENCE && Array.isArray(bag.value) && oidOf(bag.value[0]) !== null,
  );
}

/** Certificates of one SafeContents; key bags (plain or shrouded) are skipped undecoded. */
function safeBagCertificates(safeContents: Asn1, into: Buffer[]): void {
  if (!isSafeContents(safeContents)) return;
  for (const bag of safeContents.value as Asn1[]) {
    const parts = bag.value as Asn1[];
    const bagId = oidOf(parts[0]);
    const value = (parts[1]?.value as Asn1[] | undefined)?.[0];
    if (!value) continue;
    if (bagId === OID.certBag) {
      const certParts = value.value as Asn1[];
      if (oidOf(certParts[0]) !== OID.x509Certificate) continue;
      const octets = (certParts[1]?.value as Asn1[] | undefined)?.[0];
      if (!octets) continue;
      const der = Buffer.from(bytesOf(octets), 'binary');
      if (isCertificate(der)) into.push(der);
    } else if (bagId === OID.safeContentsBag) {
      safeBagCertificates(value, into);
    }
  }
}

/** Decrypts one EncryptedData's content with `password`; null when the password does not open it. */
function decryptSafeContents(encryptedData: Asn1, password: string): Asn1 | null {
  const capture: { encAlgorithm?: string; encParameter?: Asn1; encryptedContentAsn1?: Asn1 } = {};
  const { validate } = forgeInternals.asn1;
  if (!validate(encryptedData, forgeInternals.pkcs7.asn1.encryptedDataValidator, capture, [])) return null;
  if (!capture.encAlgorithm || !capture.encryptedContentAsn1) return null;
  try {
    const algorithm = asn1.derToOid(capture.encAlgorithm);
    const cipher = forgeInternals.pki.pbe.getCipher(algorithm, capture.encParameter, password);
    cipher.update(forge.util.createBuffer(bytesOf(capture.encryptedContentAsn1)));
    if (!cipher.finish()) return null;
    const opened = asn1.fromDer(cipher.output.getBytes(), false);
    return isSafeContents(opened) ? opened : null;
  } catch {
    return null;
  }
}

/**
 * A PKCS#12 file's certificates (ADR 0063): the certificate bags of plain SafeContents as they
 * are, and of encrypted SafeContents (OpenSSL encrypts the certificates too by default) with the
 * first password of `passwords` that opens them (the empty password is always tried first).
 * Private-key bags, shrouded or not, are never decrypted or decoded. The MAC is not checked.
 */
function pkcs12Certificates(pfx: Asn1, passwords: readonly string[]): CertificateFile {
  const found: Buffer[] = [];
  let locked: string | undefined;
  const [, authSafe] = pfx.value as Asn1[];
  const authSafeParts = authSafe.value as Asn1[];
  if (oidOf(authSafeParts[0]) !== OID.data) return { format: 'pkcs12', certificates: [] };
  const content = (authSafeParts[1].value as Asn1[])[0];
  const contentInfos = asn1.fromDer(bytesOf(content), false);
  for (const info of contentInfos.value as Asn1[]) {
    const parts = info.value as Asn1[];
    const type = oidOf(parts[0]);
    const body = (parts[1]?.value as Asn1[] | undefined)?.[0];
    if (!body) continue;
    if (type === OID.data) {
      safeBagCertificates(asn1.fromDer(bytesOf(body), false), found);
    } else if (type === OID.encryptedData) {
      let opened: Asn1 | null = null;
      for (const password of ['', ...passwords]) {
        opened = decryptSafeContents(body, password);
        if (opened) break;
      }
      if (opened) safeBagCertificates(opened, found);
      else locked = 'no configured password opens the certificates of this PKCS#12 file';
    }
  }
  return { format: 'pkcs12', certificates: found, ...(locked ? { locked } : {}) };
}

/** A PFX: SEQUENCE { INTEGER 3, ContentInfo, MacData? }. */
function asPfx(bytes: Buffer): Asn1 | null {
  if (bytes[0] !== 0x30) return null;
  try {
    const node = asn1.fromDer(forge.util.createBuffer(bytes.toString('binary')), false);
    const parts = node.value as Asn1[];
    const version = parts[0];
    if (version?.type !== asn1.Type.INTEGER || asn1.derToInteger(version.value as string) !== 3) return null;
    if (parts[1]?.type !== asn1.Type.SEQUENCE) return null;
    return node;
  } catch {
    return null;
  }
}

/**
 * The certificates in one file's bytes, by content (not by name): JKS/JCEKS by magic number, PEM
 * by its CERTIFICATE blocks, DER as one certificate, PKCS#12 as a version-3 PFX. Null when the
 * file holds none of these.
 */
export function readCertificateFile(bytes: Buffer, passwords: readonly string[]): CertificateFile | null {
  if (bytes.length >= 4) {
    const magic = bytes.readUInt32BE(0);
    if (magic === JKS_MAGIC || magic === JCEKS_MAGIC) {
      return { format: 'jks', certificates: jksCertificates(bytes) };
    }
  }
  if (bytes.includes('-----BEGIN CERTIFICATE-----')) {
    return { format: 'pem', certificates: pemCertificates(bytes.toString('latin1')) };
  }
  if (isCertificate(bytes)) return { format: 'der', certificates: [bytes] };
  const pfx = asPfx(bytes);
  if (!pfx) return null;
  try {
    return pkcs12Certificates(pfx, passwords);
  } catch {
    // A PFX whose inner structure is damaged: one unreadable file must not end the scan.
    return { format: 'pkcs12', certificates: [], locked: 'the PKCS#12 structure could not be read' };
  }
}
