import { KeyObject, verify } from 'node:crypto';
import { spkiKeyObject } from '@certlane/pki';
import { signatureFitsKey } from '../csr-signature';
import { bytesOf, children, contentOf, Node, oidOf, readNode } from '../der-reader';

const OID_CN = '2.5.4.3';
const OID_CHALLENGE_PASSWORD = '1.2.840.113549.1.9.7';
const OID_EXTENSION_REQUEST = '1.2.840.113549.1.9.14';
const OID_SAN = '2.5.29.17';
/** CSR signature algorithms: the hash to verify with (null: the key's own, Ed25519). */
const SIGNATURES: Readonly<Record<string, string | null>> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': null,
};

/** What the SCEP server reads from a PKCS#10 request (RFC 2986), parsed with the DER reader. */
export interface ScepCsr {
  pem: string;
  publicKey: KeyObject;
  /** Whether the request is signed by the key it carries. */
  signatureValid: boolean;
  /** Every CN of the subject, in order (an MDM `cn` claim must be the only one). */
  commonNames: string[];
  dnsNames: string[];
  sanCount: number;
  /** The challengePassword attribute (RFC 2985 5.4.1), if any. */
  challenge?: string;
}

const text = (buf: Buffer, node: Node | undefined): string | undefined =>
  node && [0x0c, 0x13, 0x14, 0x16, 0x1e].includes(node.tag)
    ? node.tag === 0x1e
      ? Buffer.from(contentOf(buf, node)).swap16().toString('utf16le')
      : contentOf(buf, node).toString(node.tag === 0x0c ? 'utf8' : 'latin1')
    : undefined;

/**
 * Parses a CSR (throws when it is not one): subject CNs, the challengePassword and the SAN of the
 * extensionRequest, and checks its signature with node's crypto. @peculiar/x509 did the same at
 * several times the cost of the enrollment's own signatures.
 */
export function parseCsr(der: Buffer): ScepCsr {
  const [info, signatureAlgorithm, signature] = children(der, readNode(der, 0));
  const [, subject, spki, attributes] = children(der, info);
  const publicKey = spkiKeyObject(Buffer.from(bytesOf(der, spki)));
  const commonNames: string[] = [];
  for (const rdn of children(der, subject))
    for (const pair of children(der, rdn)) {
      const [type, value] = children(der, pair);
      // A CN in a string type this reader does not decode still counts, as an unreadable name.
      if (oidOf(der, type) === OID_CN) commonNames.push(text(der, value) ?? '');
    }
  let challenge: string | undefined;
  let dnsNames: string[] = [];
  let sanCount = 0;
  if (attributes?.tag === 0xa0)
    for (const attribute of children(der, attributes)) {
      const [type, values] = children(der, attribute);
      const [value] = children(der, values);
      const oid = oidOf(der, type);
      if (oid === OID_CHALLENGE_PASSWORD) challenge = text(der, value);
      if (oid === OID_EXTENSION_REQUEST && value)
        for (const extension of children(der, value)) {
          const parts = children(der, extension);
          if (oidOf(der, parts[0]) !== OID_SAN) continue;
          const octets = Buffer.from(contentOf(der, parts[parts.length - 1]));
          const generalNames = children(octets, readNode(octets, 0));
          sanCount = generalNames.length;
          dnsNames = generalNames
            .filter((n) => n.tag === 0x82)
            .map((n) => contentOf(octets, n).toString('latin1'));
        }
    }
  const algorithm = oidOf(der, children(der, signatureAlgorithm)[0]);
  let signatureValid = false;
  if (algorithm in SIGNATURES && signatureFitsKey(algorithm, publicKey)) {
    try {
      // BIT STRING: the first content byte counts unused bits (0 for signatures).
      signatureValid = verify(
        SIGNATURES[algorithm],
        bytesOf(der, info),
        publicKey,
        contentOf(der, signature).subarray(1),
      );
    } catch {
      signatureValid = false;
    }
  }
  const base64 = der.toString('base64').replace(/.{64}/g, '$&\n');
  return {
    pem: `-----BEGIN CERTIFICATE REQUEST-----\n${base64}${base64.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE REQUEST-----\n`,
    publicKey,
    signatureValid,
    commonNames,
    dnsNames,
    sanCount,
    ...(challenge !== undefined ? { challenge } : {}),
  };
}
