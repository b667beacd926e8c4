import { webcrypto, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import { CsrFacts } from '@certlane/protocol-frontends-domain';
import { keyDelivery } from './est-key-delivery';
import { keyIdentifierOf, OID_ASYMMETRIC_DECRYPT_KEY_ID, OID_DECRYPT_KEY_ID } from './est-server-keygen';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const RSA = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
};
const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const RSA_FACTS: CsrFacts = { keyAlgorithm: 'RSA', rsaBits: 2048, sanCount: 0 };
const EC_FACTS: CsrFacts = { keyAlgorithm: 'EC', curve: 'P-256', sanCount: 0 };
const octets = (bytes: Uint8Array) => new asn1js.OctetString({ valueHex: bytes }).toBER(false);
const ENCRYPTED_ONLY = { serverkeygen_unencrypted_allowed: false };
const UNENCRYPTED_ALLOWED = { serverkeygen_unencrypted_allowed: true };

async function keyPair(algorithm: typeof RSA | typeof EC) {
  return (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

async function csrWith(
  keys: webcrypto.CryptoKeyPair,
  algorithm: typeof RSA | typeof EC,
  attributes: (spki: Uint8Array) => x509.Attribute[] = () => [],
) {
  const spki = new Uint8Array(await webcrypto.subtle.exportKey('spki', keys.publicKey));
  return x509.Pkcs10CertificateRequestGenerator.create({
    name: 'CN=device',
    keys,
    signingAlgorithm: algorithm,
    attributes: attributes(spki),
  });
}

/** A client certificate for `keys`, with or without keyEncipherment. */
async function clientCertificate(keys: webcrypto.CryptoKeyPair, usages: x509.KeyUsageFlags) {
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=client',
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 86_400_000),
    signingAlgorithm: RSA,
    keys,
    extensions: [
      new x509.KeyUsagesExtension(usages),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return new X509Certificate(Buffer.from(certificate.rawData));
}

describe(keyDelivery.name, () => {
  let rsaKeys: webcrypto.CryptoKeyPair;
  let ecKeys: webcrypto.CryptoKeyPair;
  beforeAll(async () => {
    [rsaKeys, ecKeys] = await Promise.all([keyPair(RSA), keyPair(EC)]);
  });

  it('RFC 7030 4.4: makes only RSA or EC keys, as the CSR key says', async () => {
    const csr = await csrWith(ecKeys, EC);
    expect(
      keyDelivery(UNENCRYPTED_ALLOWED, csr, { keyAlgorithm: 'Ed25519', sanCount: 0 }, undefined, true),
    ).toEqual({
      problem: expect.stringMatching(/RSA or EC/),
    });
  });

  describe('RFC 7030 4.4.1: no encryption attribute', () => {
    it('answers the key unencrypted where the profile allows it, of the CSR key shape', async () => {
      const csr = await csrWith(ecKeys, EC);
      expect(keyDelivery(UNENCRYPTED_ALLOWED, csr, EC_FACTS, undefined, true)).toEqual({
        kind: 'unencrypted',
        shape: { kind: 'EC', curve: 'P-256' },
      });
    });

    it('is refused where the profile sends keys only encrypted', async () => {
      const csr = await csrWith(ecKeys, EC);
      expect(keyDelivery(ENCRYPTED_ONLY, csr, EC_FACTS, undefined, true)).toEqual({
        problem: expect.stringMatching(/only encrypted/),
      });
    });
  });

  describe('RFC 7030 4.4.1.1: DecryptKeyIdentifier', () => {
    const keyId = Buffer.from('00112233445566778899aabbccddeeff', 'hex');

    it('asks for the symmetric key of that id, whether or not the profile allows unencrypted keys', async () => {
      const csr = await csrWith(ecKeys, EC, () => [new x509.Attribute(OID_DECRYPT_KEY_ID, [octets(keyId)])]);
      for (const profile of [ENCRYPTED_ONLY, UNENCRYPTED_ALLOWED])
        expect(keyDelivery(profile, csr, EC_FACTS, undefined, true)).toEqual({
          kind: 'symmetric',
          shape: { kind: 'EC', curve: 'P-256' },
          keyId,
        });
    });

    it('is refused by a server without key-encryption keys', async () => {
      const csr = await csrWith(ecKeys, EC, () => [new x509.Attribute(OID_DECRYPT_KEY_ID, [octets(keyId)])]);
      expect(keyDelivery(ENCRYPTED_ONLY, csr, EC_FACTS, undefined, false)).toEqual({
        problem: expect.stringMatching(/DecryptKeyIdentifier, RFC 7030 4.4.1.1\) is not offered/),
      });
    });

    it('a DecryptKeyIdentifier that is no non-empty OCTET STRING is refused', async () => {
      const csr = await csrWith(ecKeys, EC, () => [
        new x509.Attribute(OID_DECRYPT_KEY_ID, [new asn1js.Integer({ value: 1 }).toBER(false)]),
      ]);
      expect(keyDelivery(ENCRYPTED_ONLY, csr, EC_FACTS, undefined, true)).toEqual({
        problem: 'DecryptKeyIdentifier must be one non-empty OCTET STRING',
      });
    });
  });

  describe('RFC 7030 4.4.1.2: AsymmetricDecryptKeyIdentifier', () => {
    it("encrypts to the CSR's RSA key it names", async () => {
      const csr = await csrWith(rsaKeys, RSA, (spki) => [
        new x509.Attribute(OID_ASYMMETRIC_DECRYPT_KEY_ID, [octets(keyIdentifierOf(spki))]),
      ]);
      const chosen = keyDelivery(ENCRYPTED_ONLY, csr, RSA_FACTS, undefined, true);
      expect(chosen).toMatchObject({ kind: 'encrypted', shape: { kind: 'RSA', bits: 2048 } });
    });

    it('MUST end in an error when the server does not hold the named key', async () => {
      const csr = await csrWith(rsaKeys, RSA, () => [
        new x509.Attribute(OID_ASYMMETRIC_DECRYPT_KEY_ID, [octets(new Uint8Array([1, 2, 3]))]),
      ]);
      expect(keyDelivery(ENCRYPTED_ONLY, csr, RSA_FACTS, undefined, true)).toEqual({
        problem: expect.stringMatching(/no key this server holds/),
      });
    });

    it('refuses an EC key (no key transport)', async () => {
      const csr = await csrWith(ecKeys, EC, (spki) => [
        new x509.Attribute(OID_ASYMMETRIC_DECRYPT_KEY_ID, [octets(keyIdentifierOf(spki))]),
      ]);
      expect(keyDelivery(ENCRYPTED_ONLY, csr, EC_FACTS, undefined, true)).toEqual({
        problem: expect.stringMatching(/must be RSA/),
      });
    });

    it("encrypts to the client certificate's key over mutual TLS, named by its subject key identifier", async () => {
      const certificate = await clientCertificate(rsaKeys, x509.KeyUsageFlags.keyEncipherment);
      const ski = new x509.X509Certificate(certificate.raw).getExtension(x509.SubjectKeyIdentifierExtension)!;
      const csr = await csrWith(ecKeys, EC, () => [
        new x509.Attribute(OID_ASYMMETRIC_DECRYPT_KEY_ID, [octets(Buffer.from(ski.keyId, 'hex'))]),
      ]);
      expect(keyDelivery(ENCRYPTED_ONLY, csr, EC_FACTS, certificate, true)).toMatchObject({
        kind: 'encrypted',
        keyId: Buffer.from(ski.keyId, 'hex'),
      });
    });

    it('refuses a client certificate key without keyEncipherment', async () => {
      const certificate = await clientCertificate(rsaKeys, x509.KeyUsageFlags.digitalSignature);
      const ski = new x509.X509Certificate(certificate.raw).getExtension(x509.SubjectKeyIdentifierExtension)!;
      const csr = await csrWith(ecKeys, EC, () => [
        new x509.Attribute(OID_ASYMMETRIC_DECRYPT_KEY_ID, [octets(Buffer.from(ski.keyId, 'hex'))]),
      ]);
      expect(keyDelivery(ENCRYPTED_ONLY, csr, EC_FACTS, certificate, true)).toEqual({
        problem: 'the named certificate key does not allow keyEncipherment',
      });
    });
  });
});
