import { execFileSync } from 'node:child_process';
import {
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  webcrypto,
} from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import forge from 'node-forge';
import * as pkijs from 'pkijs';
import {
  envelopeToKek,
  envelopeToRsaKey,
  keyIdentifierOf,
  multipartBoundary,
  OID_AES256_CBC,
  OID_AES256_WRAP,
  OID_ASYMMETRIC_DECRYPT_KEY_ID,
  OID_DECRYPT_KEY_ID,
  OID_SIGNED_DATA,
  PKCS8_PART,
  requestedKeyProtection,
  SERVER_GENERATED_KEY_PART,
  serverKeygenMultipart,
  signKeyPackage,
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

  describe('RFC 7030 4.4.1.1: enveloped to a symmetric key-encryption key (RFC 5652 6.2.3)', () => {
    const kek = Buffer.from('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex');
    const keyId = Buffer.from('00112233445566778899aabbccddeeff', 'hex');

    it('has one KEKRecipientInfo naming the key id, id-aes256-wrap and AES-256-CBC content encryption', () => {
      const info = pkijs.ContentInfo.fromBER(
        envelopeToKek(secret, kek, keyId, { contentType: OID_SIGNED_DATA }),
      );
      const enveloped = new pkijs.EnvelopedData({ schema: info.content });
      expect(enveloped.version).toBe(2);
      expect(enveloped.recipientInfos).toHaveLength(1);
      expect(enveloped.recipientInfos[0].variant).toBe(3);
      const recipient = enveloped.recipientInfos[0].value as pkijs.KEKRecipientInfo;
      expect(recipient.version).toBe(4);
      expect(Buffer.from(recipient.kekid.keyIdentifier.valueBlock.valueHexView)).toEqual(keyId);
      expect(recipient.keyEncryptionAlgorithm.algorithmId).toBe(OID_AES256_WRAP);
      expect(recipient.keyEncryptionAlgorithm.algorithmParams).toBeUndefined();
      expect(recipient.encryptedKey.valueBlock.valueHexView).toHaveLength(40);
      expect(enveloped.encryptedContentInfo.contentType).toBe(OID_SIGNED_DATA);
      expect(enveloped.encryptedContentInfo.contentEncryptionAlgorithm.algorithmId).toBe(OID_AES256_CBC);
    });

    it('openssl cms -decrypt -secretkey -secretkeyid opens it, and only with the right key', () => {
      const dir = mkdtempSync(join(tmpdir(), 'est-kek-'));
      writeFileSync(join(dir, 'kek.p7m'), envelopeToKek(secret, kek, keyId));
      const decrypt = (key: Buffer) =>
        execFileSync(
          'openssl',
          ['cms', '-decrypt', '-inform', 'DER', '-in', join(dir, 'kek.p7m'), '-binary'].concat([
            '-secretkey',
            key.toString('hex'),
            '-secretkeyid',
            keyId.toString('hex'),
          ]),
          { stdio: ['ignore', 'pipe', 'ignore'] },
        );
      expect(decrypt(kek)).toEqual(Buffer.from(secret));
      const wrong = Buffer.from(kek);
      wrong[0] ^= 1;
      expect(() => decrypt(wrong)).toThrow();
    });

    it('refuses a key-encryption key that is not 256 bits', () => {
      expect(() => envelopeToKek(secret, kek.subarray(0, 16), keyId)).toThrow(/256-bit/);
    });
  });

  it('RFC 7030 4.4.2: the key part comes first, then the certificate part, both base64, closed by the boundary', () => {
    const { contentType, body } = serverKeygenMultipart(
      { contentType: SERVER_GENERATED_KEY_PART, der: new Uint8Array([1, 2, 3]) },
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
    const part = { contentType: PKCS8_PART, der: new Uint8Array([1]) };
    expect(serverKeygenMultipart(part, new Uint8Array([2])).contentType).not.toBe(
      serverKeygenMultipart(part, new Uint8Array([2])).contentType,
    );
  });

  describe('RFC 7030 4.4.2: the encrypted key is a SignedData (RFC 5958 key package) inside an EnvelopedData', () => {
    const dir = mkdtempSync(join(tmpdir(), 'est-keygen-'));
    const path = (name: string) => join(dir, name);
    beforeAll(() => {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-days',
          '1',
        ].concat([
          '-subj',
          '/CN=est.example.test',
          '-keyout',
          path('signer.key'),
          '-out',
          path('signer.pem'),
        ]),
        { stdio: 'ignore' },
      );
      writeFileSync(path('client.key'), clientPem);
    });

    it('openssl cms -decrypt opens it with the named key and openssl cms -verify checks the server signature', () => {
      const generated = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const pkcs8 = new Uint8Array(generated.privateKey.export({ format: 'der', type: 'pkcs8' }));
      const signer = {
        certificateDer: new Uint8Array(
          new x509.X509Certificate(readFileSync(path('signer.pem'), 'utf8')).rawData,
        ),
        key: createPrivateKey(readFileSync(path('signer.key'))),
      };
      const signed = signKeyPackage(pkcs8, signer);
      const enveloped = envelopeToRsaKey(signed, spki, { contentType: OID_SIGNED_DATA });
      writeFileSync(path('key.p7m'), enveloped);
      const printed = execFileSync(
        'openssl',
        ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', path('key.p7m')],
        {
          encoding: 'utf8',
        },
      );
      expect(printed).toMatch(/contentType: pkcs7-signedData/);
      expect(printed).toMatch(/aes-256-cbc/);
      execFileSync(
        'openssl',
        ['cms', '-decrypt', '-inform', 'DER', '-in', path('key.p7m')].concat([
          '-inkey',
          path('client.key'),
          '-binary',
          '-out',
          path('signed.der'),
        ]),
      );
      // The enveloped content is the SignedData itself; openssl verifies a ContentInfo around it.
      const contentInfo = new pkijs.ContentInfo({
        contentType: OID_SIGNED_DATA,
        content: asn1js.fromBER(readFileSync(path('signed.der'))).result,
      });
      writeFileSync(path('signed.p7'), Buffer.from(contentInfo.toSchema().toBER(false)));
      execFileSync(
        'openssl',
        ['cms', '-verify', '-inform', 'DER', '-in', path('signed.p7')].concat([
          '-CAfile',
          path('signer.pem'),
          '-purpose',
          'any',
          '-binary',
          '-out',
          path('package.der'),
        ]),
        { stdio: ['ignore', 'ignore', 'ignore'] },
      );
      const keyPackage = asn1js.fromBER(readFileSync(path('package.der'))).result as asn1js.Sequence;
      const oneAsymmetricKey = Buffer.from(keyPackage.valueBlock.value[0].toBER(false));
      const opened = createPrivateKey({ key: oneAsymmetricKey, format: 'der', type: 'pkcs8' });
      expect(createPublicKey(opened).export({ format: 'der', type: 'spki' })).toEqual(
        generated.publicKey.export({ format: 'der', type: 'spki' }),
      );
    });

    it('refuses a tampered signature (openssl cms -verify fails)', () => {
      const signer = {
        certificateDer: new Uint8Array(
          new x509.X509Certificate(readFileSync(path('signer.pem'), 'utf8')).rawData,
        ),
        key: createPrivateKey(readFileSync(path('signer.key'))),
      };
      const signed = signKeyPackage(new Uint8Array(Buffer.from(secret)), signer);
      signed[signed.length - 5] ^= 0xff;
      const contentInfo = new pkijs.ContentInfo({
        contentType: OID_SIGNED_DATA,
        content: asn1js.fromBER(signed).result,
      });
      writeFileSync(path('bad.p7'), Buffer.from(contentInfo.toSchema().toBER(false)));
      expect(() =>
        execFileSync(
          'openssl',
          ['cms', '-verify', '-inform', 'DER', '-in', path('bad.p7'), '-CAfile', path('signer.pem')],
          {
            stdio: 'ignore',
          },
        ),
      ).toThrow();
    });
  });

  describe('RFC 7030 4.4.1: what the CSR asks for', () => {
    const csrWith = async (attributes: x509.Attribute[]) => {
      const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
      const keys = (await webcrypto.subtle.generateKey(algorithm, true, [
        'sign',
        'verify',
      ])) as webcrypto.CryptoKeyPair;
      return x509.Pkcs10CertificateRequestGenerator.create({
        name: 'CN=a',
        keys,
        signingAlgorithm: algorithm,
        attributes,
      });
    };
    const octets = (bytes: number[]) =>
      new asn1js.OctetString({ valueHex: new Uint8Array(bytes) }).toBER(false);

    it('no encryption attribute asks for none', async () => {
      expect(requestedKeyProtection(await csrWith([]))).toEqual({ kind: 'none' });
    });

    it('4.4.1.2: AsymmetricDecryptKeyIdentifier names the key by its OCTET STRING', async () => {
      const csr = await csrWith([new x509.Attribute(OID_ASYMMETRIC_DECRYPT_KEY_ID, [octets([1, 2, 3])])]);
      expect(requestedKeyProtection(csr)).toEqual({ kind: 'asymmetric', keyId: Buffer.from([1, 2, 3]) });
      expect(keyIdentifierOf(spki)).toHaveLength(20);
    });

    it('4.4.1.1: DecryptKeyIdentifier names the key-encryption key by its OCTET STRING', async () => {
      const csr = await csrWith([new x509.Attribute(OID_DECRYPT_KEY_ID, [octets([9, 8])])]);
      expect(requestedKeyProtection(csr)).toEqual({ kind: 'symmetric', keyId: Buffer.from([9, 8]) });
    });

    it('4.4.1.1: a DecryptKeyIdentifier that is no non-empty OCTET STRING is malformed', async () => {
      const empty = await csrWith([new x509.Attribute(OID_DECRYPT_KEY_ID, [octets([])])]);
      expect(requestedKeyProtection(empty)).toEqual({
        kind: 'malformed',
        reason: 'DecryptKeyIdentifier must be one non-empty OCTET STRING',
      });
    });

    it('4.4.1: a CSR asking for both symmetric and asymmetric protection is malformed', async () => {
      const csr = await csrWith([
        new x509.Attribute(OID_DECRYPT_KEY_ID, [octets([9])]),
        new x509.Attribute(OID_ASYMMETRIC_DECRYPT_KEY_ID, [octets([1])]),
      ]);
      expect(requestedKeyProtection(csr).kind).toBe('malformed');
    });

    it('4.4.1.2: an AsymmetricDecryptKeyIdentifier that is no OCTET STRING is malformed', async () => {
      const csr = await csrWith([
        new x509.Attribute(OID_ASYMMETRIC_DECRYPT_KEY_ID, [new asn1js.Integer({ value: 5 }).toBER(false)]),
      ]);
      expect(requestedKeyProtection(csr).kind).toBe('malformed');
    });
  });
});
