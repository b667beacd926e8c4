import { createPublicKey, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { EstProfileRow } from '@certlane/protocol-frontends-data-access';
import { CsrFacts } from '@certlane/protocol-frontends-domain';
import { GeneratedKeyShape, keyIdentifierOf, requestedKeyProtection } from './est-server-keygen';

/** How a serverkeygen answer carries the private key (RFC 7030 4.4.1, 4.4.2), and what key to make. */
export type KeyDelivery =
  | { kind: 'unencrypted'; shape: GeneratedKeyShape }
  | { kind: 'encrypted'; shape: GeneratedKeyShape; recipientSpki: Uint8Array; keyId: Buffer }
  | { kind: 'symmetric'; shape: GeneratedKeyShape; keyId: Buffer };

/**
 * RFC 7030 4.4.1: the CSR says what the client wants. No encryption attribute: the key in an
 * `application/pkcs8` part, protected by TLS alone, where the profile allows it. An
 * AsymmetricDecryptKeyIdentifier (4.4.1.2): encrypted to the key it names, which the server must
 * hold (otherwise the request ends in an error): the CSR's own key, or on the mutual-TLS path the
 * client certificate's key (its subject key identifier or the SHA-1 of the key); RSA key
 * transport only, and a certificate's key must allow keyEncipherment. A DecryptKeyIdentifier
 * (symmetric, 4.4.1.1): encrypted with the profile's key-encryption key of that id, which the
 * server looks up (`keyEncryptionKeyRefusal`), offered only where `symmetricOffered` (the server has
 * the box that opens those keys). The CSR's key otherwise only says what kind of key to make.
 */
export function keyDelivery(
  profile: Pick<EstProfileRow, 'serverkeygen_unencrypted_allowed'>,
  csr: x509.Pkcs10CertificateRequest,
  facts: CsrFacts,
  presented: X509Certificate | undefined,
  symmetricOffered: boolean,
): KeyDelivery | { problem: string } {
  const shape: GeneratedKeyShape | undefined =
    facts.keyAlgorithm === 'RSA'
      ? { kind: 'RSA', bits: facts.rsaBits ?? 2048 }
      : facts.keyAlgorithm === 'EC' && facts.curve
        ? { kind: 'EC', curve: facts.curve }
        : undefined;
  if (!shape) return { problem: "serverkeygen makes RSA or EC keys: the CSR's key (RSA or EC) says which" };
  const protection = requestedKeyProtection(csr);
  switch (protection.kind) {
    case 'malformed':
      return { problem: protection.reason };
    case 'symmetric':
      return symmetricOffered
        ? { kind: 'symmetric', shape, keyId: protection.keyId }
        : {
            problem:
              'symmetric protection of the generated key (DecryptKeyIdentifier, RFC 7030 4.4.1.1) is not offered: name an RSA key with AsymmetricDecryptKeyIdentifier (RFC 7030 4.4.1.2)',
          };
    case 'none':
      return profile.serverkeygen_unencrypted_allowed
        ? { kind: 'unencrypted', shape }
        : {
            problem:
              'this profile sends generated keys only encrypted: name an RSA key with the AsymmetricDecryptKeyIdentifier attribute (RFC 7030 4.4.1.2)',
          };
    case 'asymmetric': {
      const csrSpki = new Uint8Array(csr.publicKey.rawData);
      const candidates: { spki: Uint8Array; ids: Buffer[]; usable: boolean }[] = [
        { spki: csrSpki, ids: [keyIdentifierOf(csrSpki)], usable: true },
      ];
      if (presented) {
        const certificate = new x509.X509Certificate(presented.raw);
        const spki = new Uint8Array(certificate.publicKey.rawData);
        const ski = certificate.getExtension(x509.SubjectKeyIdentifierExtension);
        const usage = certificate.getExtension(x509.KeyUsagesExtension);
        candidates.push({
          spki,
          ids: [keyIdentifierOf(spki), ...(ski ? [Buffer.from(ski.keyId, 'hex')] : [])],
          usable: !usage || (usage.usages & x509.KeyUsageFlags.keyEncipherment) !== 0,
        });
      }
      const named = candidates.find((candidate) => candidate.ids.some((id) => id.equals(protection.keyId)));
      if (!named)
        return {
          problem:
            'no key this server holds matches the AsymmetricDecryptKeyIdentifier (RFC 7030 4.4.1.2): name the CSR key or the client certificate key',
        };
      if (!named.usable) return { problem: 'the named certificate key does not allow keyEncipherment' };
      if (
        createPublicKey({ key: Buffer.from(named.spki), format: 'der', type: 'spki' }).asymmetricKeyType !==
        'rsa'
      )
        return { problem: 'the key named by AsymmetricDecryptKeyIdentifier must be RSA (key transport)' };
      return { kind: 'encrypted', shape, recipientSpki: named.spki, keyId: protection.keyId };
    }
  }
}
