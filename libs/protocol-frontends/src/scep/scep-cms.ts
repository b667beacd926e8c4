import {
  constants,
  createCipheriv,
  createDecipheriv,
  createHash,
  KeyObject,
  privateDecrypt,
  publicEncrypt,
  randomBytes,
  sign,
  verify,
} from 'node:crypto';
import { spkiKeyObject } from '@certlane/pki';
import { ScepFailInfo } from '@certlane/protocol-frontends-domain';
import { algorithm, context, integer, octetString, oid, printableString, sequence, setOf, tlv } from './der';
import {
  bytesOf,
  children,
  contentOf,
  issuerAndSerialParts,
  Node,
  octets,
  oidOf,
  readNode,
  subjectPublicKeyBits,
  subjectPublicKeyInfoDer,
} from '../der-reader';

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  envelopedData: '1.2.840.113549.1.7.3',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  messageType: '2.16.840.1.113733.1.9.2',
  pkiStatus: '2.16.840.1.113733.1.9.3',
  failInfo: '2.16.840.1.113733.1.9.4',
  senderNonce: '2.16.840.1.113733.1.9.5',
  recipientNonce: '2.16.840.1.113733.1.9.6',
  transactionId: '2.16.840.1.113733.1.9.7',
  rsaEncryption: '1.2.840.113549.1.1.1',
  rsaOaep: '1.2.840.113549.1.1.7',
  sha256: '2.16.840.1.101.3.4.2.1',
} as const;

/** Digest algorithms by OID: SHA-1 and MD5 are legacy (badAlg unless the profile allows legacy). */
const DIGESTS: Readonly<Record<string, { name: string; legacy: boolean }>> = {
  '1.2.840.113549.2.5': { name: 'md5', legacy: true },
  '1.3.14.3.2.26': { name: 'sha1', legacy: true },
  '2.16.840.1.101.3.4.2.1': { name: 'sha256', legacy: false },
  '2.16.840.1.101.3.4.2.2': { name: 'sha384', legacy: false },
  '2.16.840.1.101.3.4.2.3': { name: 'sha512', legacy: false },
};

/** Signature algorithms a signerInfo may name; rsaEncryption takes the digest algorithm's hash. */
const SIGNATURES: Readonly<Record<string, string | null>> = {
  '1.2.840.113549.1.1.1': null,
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.1': 'sha1',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
};

/** Content-encryption ciphers: DES and 3DES only on a profile that enables legacy algorithms. */
const CIPHERS: Readonly<Record<string, { cipher: string; keyBytes: number; legacy: boolean }>> = {
  '2.16.840.1.101.3.4.1.2': { cipher: 'aes-128-cbc', keyBytes: 16, legacy: false },
  '2.16.840.1.101.3.4.1.22': { cipher: 'aes-192-cbc', keyBytes: 24, legacy: false },
  '2.16.840.1.101.3.4.1.42': { cipher: 'aes-256-cbc', keyBytes: 32, legacy: false },
  // Single DES is EDE with K1 = K2 (OpenSSL 3 keeps des-cbc in the legacy provider only).
  '1.3.14.3.2.7': { cipher: 'des-ede-cbc', keyBytes: 8, legacy: true },
  '1.2.840.113549.3.7': { cipher: 'des-ede3-cbc', keyBytes: 24, legacy: true },
};
const OID_AES256_CBC = '2.16.840.1.101.3.4.1.42';

/** A refusal the CertRep reports (RFC 8894 3.2.1.4), with why (for audit, never to the client). */
export class ScepFailure extends Error {
  constructor(
    readonly failInfo: ScepFailInfo,
    reason: string,
  ) {
    super(reason);
  }
}

/** What the signed layer of a pkiMessage says (RFC 8894 3.2). */
export interface PkiMessage {
  messageType: string;
  transactionId: string;
  /** Its string type: 0x13 PrintableString or 0x0c UTF8String (RFC 8894 3.2.1.1 allows either). */
  transactionIdTag: number;
  senderNonce: Buffer;
  /** The signer's certificate (the requester's self-signed one, or the one being renewed), DER. */
  signerDer: Buffer;
  signerKey: KeyObject;
  /** `refused`: what makes it legacy when the digest algorithm itself is not. */
  digest: { name: string; legacy: boolean; refused?: string } | undefined;
  /** Whether the signature and messageDigest verify. */
  signatureValid: boolean;
  /** The encapsulated content: DER of the pkcsPKIEnvelope (EnvelopedData ContentInfo). */
  content: Buffer;
}

const sha1 = (bytes: Uint8Array) => createHash('sha1').update(bytes).digest();

/** The first value of each signed attribute, by OID. */
function attributesOf(buf: Buffer, signedAttrs: Node): Map<string, Node> {
  const values = new Map<string, Node>();
  for (const attribute of children(buf, signedAttrs)) {
    const [type, set] = children(buf, attribute);
    const [value] = children(buf, set);
    if (value) values.set(oidOf(buf, type), value);
  }
  return values;
}

/**
 * Parses the outer SignedData of a pkiMessage and checks its signature with the certificate it
 * carries (RFC 8894 3.2.1: the signed attributes transactionID, messageType, senderNonce). Throws
 * when it is not a pkiMessage at all (no CertRep can be made without a transactionID and nonce).
 */
export function parsePkiMessage(der: Uint8Array): PkiMessage {
  const buf = Buffer.from(der.buffer, der.byteOffset, der.byteLength);
  const [contentType, explicit] = children(buf, readNode(buf, 0));
  if (!explicit || oidOf(buf, contentType) !== OID.signedData) throw new Error('not a CMS SignedData');
  const fields = children(buf, children(buf, explicit)[0]);
  const encap = children(buf, fields[2]);
  // RFC 8894 3.2: "The eContentType in encapsulatedContentInfo MUST be data".
  if (oidOf(buf, encap[0]) !== OID.data) throw new Error('the encapsulated content is not data');
  const eContent = encap[1] ? children(buf, encap[1])[0] : undefined;
  const content = eContent ? Buffer.from(octets(buf, eContent)) : Buffer.alloc(0);
  const certificates = fields.filter((f) => f.tag === 0xa0).flatMap((set) => children(buf, set));
  const signerInfo = children(buf, fields[fields.length - 1])[0];
  if (!signerInfo) throw new Error('no signer');
  const [, sid, digestAlgorithm, signedAttrs, signatureAlgorithm, signature] = children(buf, signerInfo);
  if (signedAttrs?.tag !== 0xa0) throw new Error('no signed attributes');
  const attributes = attributesOf(buf, signedAttrs);
  const text = (oid: string) => {
    const node = attributes.get(oid);
    return node && (node.tag === 0x13 || node.tag === 0x0c)
      ? contentOf(buf, node).toString('latin1')
      : undefined;
  };
  const messageType = text(OID.messageType);
  const transactionId = text(OID.transactionId);
  const transactionIdTag = attributes.get(OID.transactionId)?.tag ?? 0x13;
  const nonce = attributes.get(OID.senderNonce);
  if (!messageType || !transactionId || nonce?.tag !== 0x04)
    throw new Error('transactionID, messageType or senderNonce missing');
  // The signer: by issuer and serial, or ([0]) by subject key identifier.
  const sidBytes = sid.tag === 0x30 ? bytesOf(buf, sid) : contentOf(buf, sid);
  const signer = certificates
    .map((node) => Buffer.from(bytesOf(buf, node)))
    .find((certificate) => {
      if (sid.tag !== 0x30) return sha1(subjectPublicKeyBits(certificate)).equals(sidBytes);
      const { issuer, serial } = issuerAndSerialParts(certificate);
      return Buffer.concat([issuer, serial]).equals(contentOf(buf, sid));
    });
  if (!signer) throw new Error('the signer certificate is not in the message');
  const digestNamed = DIGESTS[oidOf(buf, children(buf, digestAlgorithm)[0])];
  const signatureOid = oidOf(buf, children(buf, signatureAlgorithm)[0]);
  // A signature algorithm with its own hash (sha1WithRSAEncryption over a SHA-256 digest) is as
  // legacy as that hash: what GetCACaps does not advertise is refused whichever field names it.
  const signatureHash = SIGNATURES[signatureOid];
  const digest =
    digestNamed && !digestNamed.legacy && signatureHash === 'sha1'
      ? { ...digestNamed, legacy: true, refused: 'the signature algorithm with sha1' }
      : digestNamed;
  const signerKey = publicKeyOf(signer);
  // RFC 5652 5.4: the signature is over the DER of the attributes as a SET OF (tag 0x31).
  const signed = Buffer.concat([Buffer.from([0x31]), bytesOf(buf, signedAttrs).subarray(1)]);
  const messageDigest = attributes.get(OID.messageDigest);
  return {
    messageType,
    transactionId,
    transactionIdTag,
    senderNonce: Buffer.from(contentOf(buf, nonce)),
    signerDer: signer,
    signerKey,
    digest,
    signatureValid:
      digest !== undefined &&
      messageDigest?.tag === 0x04 &&
      createHash(digest.name).update(content).digest().equals(contentOf(buf, messageDigest)) &&
      signatureValid(
        oidOf(buf, children(buf, signatureAlgorithm)[0]),
        digest.name,
        signerKey,
        signed,
        contentOf(buf, signature),
      ),
    content,
  };
}

function signatureValid(
  algorithm: string,
  digestName: string,
  key: KeyObject,
  data: Buffer,
  signature: Buffer,
): boolean {
  if (!(algorithm in SIGNATURES)) return false;
  try {
    return verify(SIGNATURES[algorithm] ?? digestName, data, key, signature);
  } catch {
    return false;
  }
}

/** An RA's DER and what names it as a recipient: issuer and serial, and its key identifier. */
export interface RaIdentity {
  der: Buffer;
  issuerAndSerial: Buffer;
  keyId: Buffer;
}

export function raIdentity(der: Buffer): RaIdentity {
  const { issuer, serial } = issuerAndSerialParts(der);
  return { der, issuerAndSerial: Buffer.concat([issuer, serial]), keyId: sha1(subjectPublicKeyBits(der)) };
}

/**
 * Opens the pkcsPKIEnvelope with the RA key (RFC 8894 3.2.2): the recipient named by the RA
 * certificate's issuer and serial (or its key identifier), RSA key transport, the content cipher
 * AES (or DES/3DES on a legacy profile). A wrong recipient or a key or content that does not
 * decrypt is badMessageCheck; a refused algorithm badAlg.
 */
export function openEnvelope(der: Buffer, ra: RaIdentity, raKey: KeyObject, legacy: boolean): Buffer {
  let recipients: Node[];
  let encryptedContentInfo: Node[];
  try {
    const [contentType, explicit] = children(der, readNode(der, 0));
    if (!explicit || oidOf(der, contentType) !== OID.envelopedData) throw new Error('not EnvelopedData');
    const fields = children(der, children(der, explicit)[0]).filter((f) => f.tag !== 0xa0 && f.tag !== 0xa1);
    recipients = children(der, fields[1]);
    encryptedContentInfo = children(der, fields[2]);
  } catch {
    throw new ScepFailure('badMessageCheck', 'the pkcsPKIEnvelope is not a CMS EnvelopedData');
  }
  // KeyTransRecipientInfo (a SEQUENCE; the other kinds are tagged): version, rid, algorithm, key.
  const recipient = recipients
    .filter((r) => r.tag === 0x30)
    .map((r) => children(der, r))
    .find(([, rid]) =>
      rid.tag === 0x30
        ? contentOf(der, rid).equals(ra.issuerAndSerial)
        : contentOf(der, rid).equals(ra.keyId),
    );
  if (!recipient)
    throw new ScepFailure('badMessageCheck', 'the envelope is not addressed to the RA certificate');
  const [algorithmId, ivParam] = children(der, encryptedContentInfo[1]);
  const algorithm = oidOf(der, algorithmId);
  const cipher = CIPHERS[algorithm];
  if (!cipher) throw new ScepFailure('badAlg', `content cipher ${algorithm} is not supported`);
  if (cipher.legacy && !legacy)
    throw new ScepFailure('badAlg', `content cipher ${algorithm} (DES) is refused on this profile`);
  const [keyAlgorithmId, keyParams] = children(der, recipient[2]);
  const keyAlgorithm = oidOf(der, keyAlgorithmId);
  const encryptedKey = contentOf(der, recipient[3]);
  let cek: Buffer;
  if (keyAlgorithm === OID.rsaEncryption) {
    cek = pkcs1v15Unwrap(
      privateDecrypt({ key: raKey, padding: constants.RSA_NO_PADDING }, encryptedKey),
      cipher.keyBytes,
    );
  } else if (keyAlgorithm === OID.rsaOaep && (!keyParams || contentOf(der, keyParams).length === 0)) {
    try {
      cek = privateDecrypt(
        { key: raKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' },
        encryptedKey,
      );
    } catch {
      throw new ScepFailure('badMessageCheck', 'the content key does not decrypt');
    }
  } else throw new ScepFailure('badAlg', `key transport ${keyAlgorithm} is not supported`);
  if (ivParam?.tag !== 0x04) throw new ScepFailure('badMessageCheck', 'the content cipher has no IV');
  const iv = contentOf(der, ivParam);
  const encrypted = encryptedContentInfo[2] ? octets(der, encryptedContentInfo[2]) : Buffer.alloc(0);
  const key = cipher.cipher === 'des-ede-cbc' ? Buffer.concat([cek, cek]) : cek;
  try {
    const decipher = createDecipheriv(cipher.cipher, key, iv);
    return Buffer.concat([decipher.update(encrypted), decipher.final()]);
  } catch {
    throw new ScepFailure('badMessageCheck', 'the content does not decrypt');
  } finally {
    cek.fill(0);
    key.fill(0);
  }
}

/**
 * RSAES-PKCS1-v1_5 unpadding of a raw RSA block (RFC 8017 7.2.2) without a padding oracle: a
 * malformed block or a key of the wrong length yields a random key instead (the Bleichenbacher
 * countermeasure of RFC 5652 / RFC 3218), so the failure shows only as content that does not
 * decrypt. Node refuses PKCS#1 v1.5 private decryption itself (CVE-2023-46809).
 */
export function pkcs1v15Unwrap(block: Buffer, keyBytes: number): Buffer {
  const fallback = randomBytes(keyBytes);
  let separator = 0;
  for (let i = 2; i < block.length; i++) if (separator === 0 && block[i] === 0) separator = i;
  const well =
    block[0] === 0x00 && block[1] === 0x02 && separator >= 10 && block.length - separator - 1 === keyBytes;
  const key = Buffer.alloc(keyBytes);
  const start = block.length - keyBytes;
  for (let i = 0; i < keyBytes; i++) key[i] = well ? block[start + i] : fallback[i];
  block.fill(0);
  return key;
}

/** The DER of a certificate's IssuerAndSerialNumber, its issuer and serial as encoded in it. */
export function issuerAndSerialOf(certificateDer: Buffer): Buffer {
  const { issuer, serial } = issuerAndSerialParts(certificateDer);
  return sequence(issuer, serial);
}

/** A degenerate certificates-only SignedData (RFC 8894 3.3.2, 3.5.1): the certificates in order. */
export function degenerateCertificates(certificates: readonly Buffer[]): Buffer {
  return sequence(
    oid(OID.signedData),
    context(
      0,
      sequence(
        integer(1),
        setOf(),
        sequence(oid(OID.data)),
        context(0, Buffer.concat(certificates)),
        setOf(),
      ),
    ),
  );
}

/** A degenerate SignedData carrying one CRL (RFC 8894 3.3.5: the GetCRL answer). */
export function degenerateCrl(crl: Buffer): Buffer {
  return sequence(
    oid(OID.signedData),
    context(0, sequence(integer(1), setOf(), sequence(oid(OID.data)), tlv(0xa1, crl), setOf())),
  );
}

/**
 * The content cipher of a pkcsPKIEnvelope the RA opened: the one to answer with, since the
 * requester showed it has it (GetCACaps' "AES" promises only AES-128, and a legacy device may
 * have 3DES or DES only). AES-256-CBC when it cannot be read.
 */
export function contentCipherOf(envelopeDer: Buffer): string {
  try {
    const explicit = children(envelopeDer, readNode(envelopeDer, 0))[1];
    const fields = children(envelopeDer, children(envelopeDer, explicit)[0]).filter(
      (f) => f.tag !== 0xa0 && f.tag !== 0xa1,
    );
    const algorithmOid = oidOf(envelopeDer, children(envelopeDer, children(envelopeDer, fields[2])[1])[0]);
    return algorithmOid in CIPHERS ? algorithmOid : OID_AES256_CBC;
  } catch {
    return OID_AES256_CBC;
  }
}

/**
 * EnvelopedData to the requester's certificate (RFC 8894 3.3.2: the CertRep's content is
 * encrypted to the signer of the request, named by issuer and serial): RSA key transport
 * (PKCS#1 v1.5) to its key, the content under a fresh key and IV with `cipherOid` (one of
 * CIPHERS: the request's, see contentCipherOf), AES-256-CBC by default.
 */
export function envelopeTo(
  recipientDer: Buffer,
  content: Buffer,
  publicKey: KeyObject = publicKeyOf(recipientDer),
  cipherOid: string = OID_AES256_CBC,
): Buffer {
  if (publicKey.asymmetricKeyType !== 'rsa')
    throw new ScepFailure('badRequest', 'the requester certificate has no RSA key to encrypt the answer to');
  const chosenOid = cipherOid in CIPHERS ? cipherOid : OID_AES256_CBC;
  const chosen = CIPHERS[chosenOid];
  const cek = randomBytes(chosen.keyBytes);
  const iv = randomBytes(chosen.cipher.startsWith('aes') ? 16 : 8);
  const key = chosen.cipher === 'des-ede-cbc' ? Buffer.concat([cek, cek]) : cek;
  const cipher = createCipheriv(chosen.cipher, key, iv);
  const encrypted = Buffer.concat([cipher.update(content), cipher.final()]);
  const encryptedKey = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, cek);
  cek.fill(0);
  key.fill(0);
  const recipientInfo = sequence(
    integer(0),
    issuerAndSerialOf(recipientDer),
    algorithm(OID.rsaEncryption),
    octetString(encryptedKey),
  );
  const encryptedContentInfo = sequence(
    oid(OID.data),
    algorithm(chosenOid, octetString(iv)),
    tlv(0x80, encrypted), // [0] IMPLICIT OCTET STRING, primitive
  );
  return sequence(
    oid(OID.envelopedData),
    context(0, sequence(integer(0), setOf(recipientInfo), encryptedContentInfo)),
  );
}

/**
 * A certificate's public key, read with the DER reader and imported as JWK (`spkiKeyObject`):
 * node decoding the whole certificate for it was about 5 % of an enrollment's CPU.
 */
export function publicKeyOf(certificateDer: Buffer): KeyObject {
  return spkiKeyObject(subjectPublicKeyInfoDer(certificateDer));
}

export interface CertRepInput {
  status: '0' | '2' | '3';
  failInfo?: string;
  transactionId: string;
  /** The string type the request's transactionID came in (UTF8String or PrintableString): echoed. */
  transactionIdTag?: number;
  recipientNonce: Buffer;
  /** The pkcsPKIEnvelope (SUCCESS only). */
  envelope?: Buffer;
  raDer: Buffer;
  raKey: KeyObject;
}

/**
 * A CertRep pkiMessage (RFC 8894 3.3.2) signed by the RA: messageType 3, pkiStatus, failInfo on
 * FAILURE, the request's transactionID, a fresh senderNonce and the request's senderNonce as
 * recipientNonce; SHA-256 with RSA. FAILURE and PENDING carry an empty content rather than none
 * (3.3.2.2 says to omit the pkcsPKIEnvelope): OpenSSL's CMS verification, which OpenSSL-based
 * clients run, refuses a SignedData without content ("no content").
 */
export function certRep(input: CertRepInput): Buffer {
  const content = input.envelope ?? Buffer.alloc(0);
  const attr = (type: string, value: Buffer) => sequence(oid(type), setOf(value));
  const attributes = [
    attr(OID.contentType, oid(OID.data)),
    attr(OID.messageDigest, octetString(createHash('sha256').update(content).digest())),
    attr(OID.messageType, printableString('3')),
    attr(OID.pkiStatus, printableString(input.status)),
    ...(input.failInfo !== undefined ? [attr(OID.failInfo, printableString(input.failInfo))] : []),
    attr(OID.transactionId, tlv(input.transactionIdTag ?? 0x13, Buffer.from(input.transactionId, 'latin1'))),
    attr(OID.senderNonce, octetString(randomBytes(16))),
    attr(OID.recipientNonce, octetString(input.recipientNonce)),
  ];
  const signedAttrs = setOf(...attributes);
  const signature = sign('sha256', signedAttrs, input.raKey);
  const signerInfo = sequence(
    integer(1),
    issuerAndSerialOf(input.raDer),
    algorithm(OID.sha256),
    Buffer.concat([Buffer.from([0xa0]), signedAttrs.subarray(1)]), // [0] IMPLICIT SET OF Attribute
    algorithm(OID.rsaEncryption),
    octetString(signature),
  );
  return sequence(
    oid(OID.signedData),
    context(
      0,
      sequence(
        integer(1),
        setOf(algorithm(OID.sha256)),
        sequence(oid(OID.data), context(0, octetString(content))),
        context(0, input.raDer),
        setOf(signerInfo),
      ),
    ),
  );
}
