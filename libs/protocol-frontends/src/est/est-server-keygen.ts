import {
  constants,
  createCipheriv,
  createHash,
  createPrivateKey,
  createPublicKey,
  KeyObject,
  publicEncrypt,
  randomBytes,
  sign,
  webcrypto,
  X509Certificate,
} from 'node:crypto';
import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { base64Body } from '@certlane/protocol-frontends-domain';

const OID_DATA = '1.2.840.113549.1.7.1';
const OID_ENVELOPED_DATA = '1.2.840.113549.1.7.3';
const OID_RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
const OID_SHA256 = '2.16.840.1.101.3.4.2.1';
const OID_CONTENT_TYPE = '1.2.840.113549.1.9.3';
const OID_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const OID_SUBJECT_KEY_IDENTIFIER = '2.5.29.14';
export const OID_SIGNED_DATA = '1.2.840.113549.1.7.2';
/** RFC 5958 1: id-ct-KP-aKeyPackage, the asymmetric key package. */
export const OID_ASYMMETRIC_KEY_PACKAGE = '2.16.840.1.101.2.1.2.78.5';
/** RFC 7030 4.4.1.2: id-aa-asymmDecryptKeyID. */
export const OID_ASYMMETRIC_DECRYPT_KEY_ID = '1.2.840.113549.1.9.16.2.54';
/** RFC 4108 2.2.5 (RFC 7030 4.4.1.1): id-aa-decryptKeyID. */
export const OID_DECRYPT_KEY_ID = '1.2.840.113549.1.9.16.2.37';
/** id-aes256-CBC (NIST); 3DES is never used. */
export const OID_AES256_CBC = '2.16.840.1.101.3.4.1.42';
/** id-aes256-wrap (RFC 3565 4.3). */
export const OID_AES256_WRAP = '2.16.840.1.101.3.4.1.45';

export interface GeneratedKey {
  /** PKCS#8 DER of the generated private key: held in memory for one response only. */
  privateKeyPkcs8: Uint8Array;
  /** A CSR for the generated key with the client CSR's subject and extensions. */
  csrPem: string;
}

/** The kind of key the client's CSR carries, which the generated key follows. */
export type GeneratedKeyShape = { kind: 'RSA'; bits: number } | { kind: 'EC'; curve: string };

/**
 * RFC 7030 4.4: the server generates the key pair. The client's CSR names the subject and
 * extensions (its subject key identifier, which describes the client's key, is left out); its
 * key only says what kind of key to make: RSA of the same size (2048 to 4096 bits) or EC on the
 * same curve (P-256, P-384, P-521).
 */
export async function generateServerKey(
  clientCsr: x509.Pkcs10CertificateRequest,
  shape: GeneratedKeyShape,
): Promise<GeneratedKey> {
  const algorithm =
    shape.kind === 'EC'
      ? { name: 'ECDSA', namedCurve: shape.curve, hash: 'SHA-256' }
      : {
          name: 'RSASSA-PKCS1-v1_5',
          hash: 'SHA-256',
          publicExponent: new Uint8Array([1, 0, 1]),
          modulusLength: Math.min(Math.max(shape.bits, 2048), 4096),
        };
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: clientCsr.subjectName,
    keys,
    signingAlgorithm: algorithm,
    extensions: clientCsr.extensions.filter((extension) => extension.type !== OID_SUBJECT_KEY_IDENTIFIER),
  });
  const privateKeyPkcs8 = new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return { privateKeyPkcs8, csrPem: csr.toString('pem') };
}

/** SHA-1 of a public key's subjectPublicKey bits (RFC 5280 4.2.1.2 method 1): how EST names keys. */
export function keyIdentifierOf(spkiDer: Uint8Array): Buffer {
  const spki = pkijs.PublicKeyInfo.fromBER(spkiDer);
  return createHash('sha1').update(spki.subjectPublicKey.valueBlock.valueHexView).digest();
}

/**
 * CMS EnvelopedData (RFC 5652, version 2) of `content` to one recipient, the content encrypted
 * with AES-256-CBC under a fresh key and IV; `recipient` wraps that key. `contentType` names what
 * was enveloped (id-signedData for a serverkeygen key, RFC 7030 4.4.2).
 */
function envelope(
  content: Uint8Array,
  recipient: (cek: Buffer) => pkijs.RecipientInfo,
  contentType: string,
): Uint8Array {
  const cek = randomBytes(32);
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', cek, iv);
  const encrypted = Buffer.concat([cipher.update(content), cipher.final()]);
  const recipientInfo = recipient(cek);
  cek.fill(0);
  const enveloped = new pkijs.EnvelopedData({
    version: 2,
    recipientInfos: [recipientInfo],
    encryptedContentInfo: new pkijs.EncryptedContentInfo({
      contentType,
      contentEncryptionAlgorithm: new pkijs.AlgorithmIdentifier({
        algorithmId: OID_AES256_CBC,
        algorithmParams: new asn1js.OctetString({ valueHex: iv }),
      }),
      encryptedContent: new asn1js.OctetString({ valueHex: encrypted }),
    }),
  });
  const contentInfo = new pkijs.ContentInfo({
    contentType: OID_ENVELOPED_DATA,
    content: enveloped.toSchema(),
  });
  return new Uint8Array(contentInfo.toSchema().toBER(false));
}

/**
 * CMS EnvelopedData of `content` to one RSA public key by key transport (rsaEncryption, the
 * recipient named by `recipientKeyId`, by default the key's subject key identifier).
 */
export function envelopeToRsaKey(
  content: Uint8Array,
  recipientSpkiDer: Uint8Array,
  options: { contentType?: string; recipientKeyId?: Uint8Array } = {},
): Uint8Array {
  const recipient: KeyObject = createPublicKey({
    key: Buffer.from(recipientSpkiDer),
    format: 'der',
    type: 'spki',
  });
  if (recipient.asymmetricKeyType !== 'rsa') throw new Error('key transport needs an RSA key');
  return envelope(
    content,
    (cek) =>
      new pkijs.RecipientInfo({
        variant: 1,
        value: new pkijs.KeyTransRecipientInfo({
          version: 2,
          rid: new asn1js.OctetString({
            valueHex: options.recipientKeyId ?? keyIdentifierOf(recipientSpkiDer),
          }),
          keyEncryptionAlgorithm: new pkijs.AlgorithmIdentifier({
            algorithmId: OID_RSA_ENCRYPTION,
            algorithmParams: new asn1js.Null(),
          }),
          encryptedKey: new asn1js.OctetString({
            valueHex: publicEncrypt({ key: recipient, padding: constants.RSA_PKCS1_PADDING }, cek),
          }),
        }),
      }),
    options.contentType ?? OID_DATA,
  );
}

/** RFC 3394 2.2.3.1: the default initial value of AES key wrap. */
const AES_KEY_WRAP_IV = Buffer.from('a6a6a6a6a6a6a6a6', 'hex');

/**
 * CMS EnvelopedData of `content` to a symmetric key-encryption key (RFC 7030 4.4.1.1, RFC 5652
 * 6.2.3): one KEKRecipientInfo (version 4) whose kekid is `keyId`, the content key wrapped with
 * id-aes256-wrap (RFC 3394, RFC 3565: no parameters) under the 256-bit `kek`.
 */
export function envelopeToKek(
  content: Uint8Array,
  kek: Buffer,
  keyId: Uint8Array,
  options: { contentType?: string } = {},
): Uint8Array {
  if (kek.length !== 32) throw new Error('id-aes256-wrap needs a 256-bit key-encryption key');
  return envelope(
    content,
    (cek) => {
      const wrap = createCipheriv('id-aes256-wrap', kek, AES_KEY_WRAP_IV);
      const wrapped = Buffer.concat([wrap.update(cek), wrap.final()]);
      return new pkijs.RecipientInfo({
        variant: 3,
        value: new pkijs.KEKRecipientInfo({
          version: 4,
          kekid: new pkijs.KEKIdentifier({ keyIdentifier: new asn1js.OctetString({ valueHex: keyId }) }),
          keyEncryptionAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID_AES256_WRAP }),
          encryptedKey: new asn1js.OctetString({ valueHex: wrapped }),
        }),
      });
    },
    options.contentType ?? OID_DATA,
  );
}

/** The key and certificate that sign server-generated keys (RFC 7030 4.4.2): the EST server's. */
export interface KeygenSigner {
  certificateDer: Uint8Array;
  key: KeyObject;
}

/** The signer of a TLS certificate file (leaf first) and its key, PEM. */
export function keygenSignerOf(material: { cert: Buffer; key: Buffer }): KeygenSigner {
  const leaf = new X509Certificate(material.cert);
  return { certificateDer: new Uint8Array(leaf.raw), key: createPrivateKey(material.key) };
}

/** A DER TLV (definite length). */
function tlv(tag: number, ...contents: Uint8Array[]): Buffer {
  const body = Buffer.concat(contents);
  const n = body.length;
  const length =
    n < 0x80
      ? Buffer.from([n])
      : n < 0x100
        ? Buffer.from([0x81, n])
        : n < 0x10000
          ? Buffer.from([0x82, n >> 8, n & 0xff])
          : Buffer.from([0x83, n >> 16, (n >> 8) & 0xff, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, body]);
}
const oid = (dotted: string): Buffer =>
  Buffer.from(new asn1js.ObjectIdentifier({ value: dotted }).toBER(false));
const SEQUENCE = 0x30;
const SET = 0x31;
const OCTET_STRING = 0x04;

const SIGNATURE_ALGORITHMS: Readonly<Record<string, Buffer>> = {
  // sha256WithRSAEncryption, NULL parameters; ecdsa-with-SHA256, none (RFC 5754).
  rsa: tlv(SEQUENCE, oid('1.2.840.113549.1.1.11'), Buffer.from([0x05, 0x00])),
  ec: tlv(SEQUENCE, oid('1.2.840.10045.4.3.2')),
};

/**
 * Why `signer` cannot sign a key package (`signKeyPackage`), or null: its key must be RSA or EC.
 * Asked before issuance, so a signer that cannot sign refuses the request rather than leaving an
 * issued certificate whose key no one receives.
 */
export function keygenSignerProblem(signer: KeygenSigner): string | null {
  const type = signer.key.asymmetricKeyType ?? 'unknown';
  if (signer.key.type !== 'private') return 'the keygen signing key is not a private key';
  return SIGNATURE_ALGORITHMS[type] ? null : `the keygen signing key must be RSA or EC, not ${type}`;
}

/**
 * RFC 7030 4.4.2 with RFC 5958 4: the private key as an asymmetric key package (`SEQUENCE OF
 * OneAsymmetricKey`, the PKCS#8 PrivateKeyInfo being version 1 of it) in a CMS SignedData
 * (version 3, eContentType id-ct-KP-aKeyPackage) signed by the party that generated it, with
 * its certificate, SHA-256 and signed attributes contentType and messageDigest in DER order.
 * Answers the SignedData itself (the content of the EnvelopedData around it), not a ContentInfo.
 */
export function signKeyPackage(privateKeyPkcs8: Uint8Array, signer: KeygenSigner): Buffer {
  const signatureAlgorithm = SIGNATURE_ALGORITHMS[signer.key.asymmetricKeyType ?? ''];
  if (!signatureAlgorithm) throw new Error('the keygen signing key must be RSA or EC');
  const keyPackage = tlv(SEQUENCE, privateKeyPkcs8);
  const sha256 = tlv(SEQUENCE, oid(OID_SHA256));
  const attributes = [
    tlv(SEQUENCE, oid(OID_CONTENT_TYPE), tlv(SET, oid(OID_ASYMMETRIC_KEY_PACKAGE))),
    tlv(
      SEQUENCE,
      oid(OID_MESSAGE_DIGEST),
      tlv(SET, tlv(OCTET_STRING, createHash('sha256').update(keyPackage).digest())),
    ),
  ].sort(Buffer.compare); // DER: a SET OF in the order of its encodings
  const signedAttributes = tlv(SET, ...attributes);
  const signature = sign('sha256', signedAttributes, signer.key);
  const certificate = pkijs.Certificate.fromBER(signer.certificateDer);
  const signerInfo = tlv(
    SEQUENCE,
    Buffer.from([0x02, 0x01, 0x01]), // version 1: issuerAndSerialNumber
    tlv(
      SEQUENCE,
      Buffer.from(certificate.issuer.toSchema().toBER(false)),
      Buffer.from(certificate.serialNumber.toBER(false)),
    ),
    sha256,
    Buffer.concat([Buffer.from([0xa0]), signedAttributes.subarray(1)]), // [0] IMPLICIT
    signatureAlgorithm,
    tlv(OCTET_STRING, signature),
  );
  const signedData = tlv(
    SEQUENCE,
    Buffer.from([0x02, 0x01, 0x03]),
    tlv(SET, sha256),
    tlv(SEQUENCE, oid(OID_ASYMMETRIC_KEY_PACKAGE), tlv(0xa0, tlv(OCTET_STRING, keyPackage))),
    tlv(0xa0, signer.certificateDer),
    tlv(SET, signerInfo),
  );
  keyPackage.fill(0);
  return signedData;
}

/** What the client asked for its server-generated key (RFC 7030 4.4.1.1, 4.4.1.2). */
export type KeyProtectionRequest =
  | { kind: 'none' }
  | { kind: 'asymmetric'; keyId: Buffer }
  | { kind: 'symmetric'; keyId: Buffer }
  | { kind: 'malformed'; reason: string };

/**
 * Reads the CSR's DecryptKeyIdentifier (symmetric, RFC 4108 id-aa-decryptKeyID) and
 * AsymmetricDecryptKeyIdentifier (id-aa-asymmDecryptKeyID) attributes, each an OCTET STRING.
 */
export function requestedKeyProtection(csr: x509.Pkcs10CertificateRequest): KeyProtectionRequest {
  const symmetric = csr.attributes.find((attribute) => attribute.type === OID_DECRYPT_KEY_ID);
  const asymmetric = csr.attributes.find((attribute) => attribute.type === OID_ASYMMETRIC_DECRYPT_KEY_ID);
  if (symmetric && asymmetric)
    return { kind: 'malformed', reason: 'the CSR asks for both symmetric and asymmetric key protection' };
  if (symmetric) {
    const keyId = octetStringValue(symmetric);
    return keyId
      ? { kind: 'symmetric', keyId }
      : { kind: 'malformed', reason: 'DecryptKeyIdentifier must be one non-empty OCTET STRING' };
  }
  if (!asymmetric) return { kind: 'none' };
  const keyId = octetStringValue(asymmetric);
  return keyId
    ? { kind: 'asymmetric', keyId }
    : { kind: 'malformed', reason: 'AsymmetricDecryptKeyIdentifier must be one non-empty OCTET STRING' };
}

/** The bytes of an attribute that holds one non-empty OCTET STRING, or undefined. */
function octetStringValue(attribute: x509.Attribute): Buffer | undefined {
  const parsed = attribute.values.length === 1 ? asn1js.fromBER(attribute.values[0]) : undefined;
  const value = parsed && parsed.offset !== -1 ? parsed.result : undefined;
  return value instanceof asn1js.OctetString && value.valueBlock.valueHexView.length > 0
    ? Buffer.from(value.valueBlock.valueHexView)
    : undefined;
}

/** A boundary no two responses share (RFC 2046 allows up to 70 characters). */
export const multipartBoundary = (): string => `est-${randomBytes(18).toString('hex')}`;

/** The private key part of a serverkeygen answer (RFC 7030 4.4.2). */
export interface KeyPart {
  /** `application/pkcs8`, or `application/pkcs7-mime; smime-type=server-generated-key`. */
  contentType: string;
  der: Uint8Array;
}
export const PKCS8_PART = 'application/pkcs8';
export const SERVER_GENERATED_KEY_PART = 'application/pkcs7-mime; smime-type=server-generated-key';

/**
 * RFC 7030 4.4.2: the serverkeygen answer, `multipart/mixed` with the private key part first
 * and the certificate part second, each base64 in CRLF lines.
 */
export function serverKeygenMultipart(
  keyPart: KeyPart,
  certsOnly: Uint8Array,
  boundary: string = multipartBoundary(),
): { contentType: string; body: string } {
  const part = (contentType: string, der: Uint8Array) =>
    `--${boundary}\r\nContent-Type: ${contentType}\r\nContent-Transfer-Encoding: base64\r\n\r\n${base64Body(der)}`;
  const body = [
    part(keyPart.contentType, keyPart.der),
    part('application/pkcs7-mime; smime-type=certs-only', certsOnly),
    `--${boundary}--\r\n`,
  ]
    .map((text) => (text.endsWith('\r\n') ? text : `${text}\r\n`))
    .join('');
  return { contentType: `multipart/mixed; boundary=${boundary}`, body };
}
