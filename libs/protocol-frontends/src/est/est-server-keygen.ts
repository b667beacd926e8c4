import {
  constants,
  createCipheriv,
  createHash,
  createPublicKey,
  KeyObject,
  publicEncrypt,
  randomBytes,
  webcrypto,
} from 'node:crypto';
import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { base64Body } from '@certlane/protocol-frontends-domain';

const OID_DATA = '1.2.840.113549.1.7.1';
const OID_ENVELOPED_DATA = '1.2.840.113549.1.7.3';
const OID_RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
/** id-aes256-CBC (NIST); 3DES is never used. */
export const OID_AES256_CBC = '2.16.840.1.101.3.4.1.42';

export interface GeneratedKey {
  /** PKCS#8 DER of the generated private key: held in memory for one response only. */
  privateKeyPkcs8: Uint8Array;
  /** A CSR for the generated key with the client CSR's subject and extensions. */
  csrPem: string;
}

/**
 * RFC 7030 4.4: the server generates the key pair. The client's CSR names the subject and
 * extensions and carries the RSA key the private key is sent encrypted to; the generated key is
 * RSA of the same size as the client's key (at least 2048 bits).
 */
export async function generateServerKey(
  clientCsr: x509.Pkcs10CertificateRequest,
  rsaBits: number,
): Promise<GeneratedKey> {
  const algorithm = {
    name: 'RSASSA-PKCS1-v1_5',
    hash: 'SHA-256',
    publicExponent: new Uint8Array([1, 0, 1]),
    modulusLength: Math.min(Math.max(rsaBits, 2048), 4096),
  };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: clientCsr.subjectName,
    keys,
    signingAlgorithm: algorithm,
    extensions: clientCsr.extensions,
  });
  const privateKeyPkcs8 = new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return { privateKeyPkcs8, csrPem: csr.toString('pem') };
}

/**
 * CMS EnvelopedData (RFC 5652) of `content` to one RSA public key by key transport
 * (rsaEncryption, the recipient named by the key's subject key identifier), content encrypted
 * with AES-256-CBC under a fresh key and IV.
 */
export function envelopeToRsaKey(content: Uint8Array, recipientSpkiDer: Uint8Array): Uint8Array {
  const recipient: KeyObject = createPublicKey({
    key: Buffer.from(recipientSpkiDer),
    format: 'der',
    type: 'spki',
  });
  if (recipient.asymmetricKeyType !== 'rsa') throw new Error('key transport needs an RSA key');
  const cek = randomBytes(32);
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', cek, iv);
  const encrypted = Buffer.concat([cipher.update(content), cipher.final()]);
  const encryptedKey = publicEncrypt({ key: recipient, padding: constants.RSA_PKCS1_PADDING }, cek);
  cek.fill(0);

  const spki = pkijs.PublicKeyInfo.fromBER(recipientSpkiDer);
  const subjectKeyIdentifier = createHash('sha1')
    .update(spki.subjectPublicKey.valueBlock.valueHexView)
    .digest();
  const enveloped = new pkijs.EnvelopedData({
    version: 2,
    recipientInfos: [
      new pkijs.RecipientInfo({
        variant: 1,
        value: new pkijs.KeyTransRecipientInfo({
          version: 2,
          rid: new asn1js.OctetString({ valueHex: subjectKeyIdentifier }),
          keyEncryptionAlgorithm: new pkijs.AlgorithmIdentifier({
            algorithmId: OID_RSA_ENCRYPTION,
            algorithmParams: new asn1js.Null(),
          }),
          encryptedKey: new asn1js.OctetString({ valueHex: encryptedKey }),
        }),
      }),
    ],
    encryptedContentInfo: new pkijs.EncryptedContentInfo({
      contentType: OID_DATA,
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

/** A boundary no two responses share (RFC 2046 allows up to 70 characters). */
export const multipartBoundary = (): string => `est-${randomBytes(18).toString('hex')}`;

/**
 * RFC 7030 4.4.2: the serverkeygen answer, `multipart/mixed` with the (encrypted) private key
 * part first and the certificate part second, each base64 in CRLF lines.
 */
export function serverKeygenMultipart(
  envelopedKey: Uint8Array,
  certsOnly: Uint8Array,
  boundary: string = multipartBoundary(),
): { contentType: string; body: string } {
  const part = (contentType: string, der: Uint8Array) =>
    `--${boundary}\r\nContent-Type: ${contentType}\r\nContent-Transfer-Encoding: base64\r\n\r\n${base64Body(der)}`;
  const body = [
    part('application/pkcs7-mime; smime-type=server-generated-key', envelopedKey),
    part('application/pkcs7-mime; smime-type=certs-only', certsOnly),
    `--${boundary}--\r\n`,
  ]
    .map((text) => (text.endsWith('\r\n') ? text : `${text}\r\n`))
    .join('');
  return { contentType: `multipart/mixed; boundary=${boundary}`, body };
}
