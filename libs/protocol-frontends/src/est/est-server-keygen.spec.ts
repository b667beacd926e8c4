import { createDecipheriv, generateKeyPairSync } from 'node:crypto';
import * as asn1js from 'asn1js';
import forge from 'node-forge';
import * as pkijs from 'pkijs';
import {
  envelopeToRsaKey,
  multipartBoundary,
  OID_AES256_CBC,
  serverKeygenMultipart,
} from './est-server-keygen';

const OID_DES_EDE3_CBC = '1.2.840.113549.3.7';

/** Opens the EnvelopedData with the recipient's private key (forge for PKCS#1 v1.5, which Node refuses). */
function open(der: Uint8Array, privateKeyPem: string): { plaintext: Buffer; enveloped: pkijs.EnvelopedData } {
  const info = pkijs.ContentInfo.fromBER(der);
  const enveloped = new pkijs.EnvelopedData({ schema: info.content });
  const recipient = enveloped.recipientInfos[0].value as pkijs.KeyTransRecipientInfo;
  const cek = forge.pki
    .privateKeyFromPem(privateKeyPem)
    .decrypt(
      Buffer.from(recipient.encryptedKey.valueBlock.valueHexView).toString('binary'),
      'RSAES-PKCS1-V1_5',
    );
  const algorithm = enveloped.encryptedContentInfo.contentEncryptionAlgorithm;
  const iv = Buffer.from((algorithm.algorithmParams as asn1js.OctetString).valueBlock.valueHexView);
  const decipher = createDecipheriv('aes-256-cbc', Buffer.from(cek, 'binary'), iv);
  const ciphertext = Buffer.from(enveloped.encryptedContentInfo.getEncryptedContent());
  return { plaintext: Buffer.concat([decipher.update(ciphertext), decipher.final()]), enveloped };
}

describe('serverkeygen CMS and multipart (RFC 7030 4.4.2)', () => {
  const client = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const spki = new Uint8Array(client.publicKey.export({ format: 'der', type: 'spki' }));
  const clientPem = client.privateKey.export({ format: 'pem', type: 'pkcs1' }).toString();
  const secret = new Uint8Array(Buffer.from('a PKCS#8 private key stands here, longer than one AES block'));

  it('envelopes the key to the RSA key of the CSR with AES-256-CBC, never 3DES', () => {
    const { plaintext, enveloped } = open(envelopeToRsaKey(secret, spki), clientPem);
    expect(plaintext).toEqual(Buffer.from(secret));
    const contentAlgorithm = enveloped.encryptedContentInfo.contentEncryptionAlgorithm.algorithmId;
    expect(contentAlgorithm).toBe(OID_AES256_CBC);
    expect(contentAlgorithm).not.toBe(OID_DES_EDE3_CBC);
    const recipient = enveloped.recipientInfos[0].value as pkijs.KeyTransRecipientInfo;
    expect(recipient.keyEncryptionAlgorithm.algorithmId).toBe('1.2.840.113549.1.1.1');
  });

  it('uses a fresh content key and IV for every envelope', () => {
    const a = Buffer.from(envelopeToRsaKey(secret, spki));
    const b = Buffer.from(envelopeToRsaKey(secret, spki));
    expect(a.equals(b)).toBe(false);
  });

  it('refuses a recipient key that cannot do key transport', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(() =>
      envelopeToRsaKey(secret, new Uint8Array(ec.publicKey.export({ format: 'der', type: 'spki' }))),
    ).toThrow(/RSA/);
  });

  it('RFC 7030 4.4.2: the key part comes first, then the certificate part, both base64, closed by the boundary', () => {
    const { contentType, body } = serverKeygenMultipart(
      new Uint8Array([1, 2, 3]),
      new Uint8Array([4, 5, 6]),
      'est-b',
    );
    expect(contentType).toBe('multipart/mixed; boundary=est-b');
    expect(body).toBe(
      '--est-b\r\nContent-Type: application/pkcs7-mime; smime-type=server-generated-key\r\n' +
        'Content-Transfer-Encoding: base64\r\n\r\nAQID\r\n' +
        '--est-b\r\nContent-Type: application/pkcs7-mime; smime-type=certs-only\r\n' +
        'Content-Transfer-Encoding: base64\r\n\r\nBAUG\r\n' +
        '--est-b--\r\n',
    );
  });

  it('RFC 2046 5.1.1: the boundary is unique per response and at most 70 characters', () => {
    const boundaries = new Set(Array.from({ length: 50 }, () => multipartBoundary()));
    expect(boundaries.size).toBe(50);
    for (const boundary of boundaries) expect(boundary.length).toBeLessThanOrEqual(70);
    expect(serverKeygenMultipart(new Uint8Array([1]), new Uint8Array([2])).contentType).not.toBe(
      serverKeygenMultipart(new Uint8Array([1]), new Uint8Array([2])).contentType,
    );
  });
});
