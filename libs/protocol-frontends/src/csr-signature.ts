import { KeyObject } from 'node:crypto';

/**
 * Whether a request's signature algorithm is one its key can make (RFC 2986 4.2: the signature is
 * made with the algorithm named): node's `verify` takes the key's own algorithm whatever the OID
 * says, so an RSA key under `ecdsa-with-SHA256` or the Ed25519 OID would otherwise verify.
 */
export function signatureFitsKey(algorithmOid: string, key: KeyObject): boolean {
  const type = key.asymmetricKeyType;
  if (algorithmOid.startsWith('1.2.840.113549.1.1.')) return type === 'rsa' || type === 'rsa-pss';
  if (algorithmOid.startsWith('1.2.840.10045.4.')) return type === 'ec';
  if (algorithmOid === '1.3.101.112') return type === 'ed25519';
  if (algorithmOid === '1.3.101.113') return type === 'ed448';
  return false;
}
