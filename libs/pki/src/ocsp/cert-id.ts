import { createHash } from 'node:crypto';
import { readAlgorithmIdentifier } from '../algorithm-identifier';
import { Certificate, CertificateInput, toCertificate } from '../certificate';
import { DerCursor, Tlv, bytesOf, readIntegerBytes, valueOf } from '../der/reader';
import { Tag } from '../der/tags';
import { NULL, octetString, oid, sequence, tlv } from '../der/writer';
import { Oid } from '../oids';
import { parseSerialHex, serialHex } from '../serial';

/** Hash algorithms a CertID may use; SHA-1 is what most clients send (RFC 5019 requires it). */
export type CertIdHash = 'sha1' | 'sha256' | 'sha384' | 'sha512';

export const CERT_ID_HASHES: Record<CertIdHash, string> = {
  sha1: Oid.sha1,
  sha256: Oid.sha256,
  sha384: Oid.sha384,
  sha512: Oid.sha512,
};
const HASH_BY_OID = new Map<string, CertIdHash>(
  Object.entries(CERT_ID_HASHES).map(([name, o]) => [o, name as CertIdHash]),
);

/** CertID (RFC 6960 4.1.1): which certificate of which issuer a request or response is about. */
export interface CertId {
  /** The hash the client used, or undefined when it is not one of the four supported. */
  hash?: CertIdHash;
  hashAlgorithmOid: string;
  issuerNameHash: Buffer;
  issuerKeyHash: Buffer;
  /** Lower-case hex of the serial's content octets. */
  serialNumber: string;
  /** The complete CertID DER, echoed verbatim in the response. */
  der: Buffer;
}

export function readCertId(buf: Buffer, tlvCertId: Tlv, what: string): CertId {
  const cursor = DerCursor.of(buf, tlvCertId, what);
  const algorithm = readAlgorithmIdentifier(buf, cursor.next(Tag.Sequence, 'hashAlgorithm'), what);
  const issuerNameHash = valueOf(buf, cursor.next(Tag.OctetString, 'issuerNameHash'));
  const issuerKeyHash = valueOf(buf, cursor.next(Tag.OctetString, 'issuerKeyHash'));
  const serialNumber = serialHex(readIntegerBytes(buf, cursor.next(Tag.Integer, 'serialNumber'), what));
  cursor.end();
  return {
    hash: HASH_BY_OID.get(algorithm.oid),
    hashAlgorithmOid: algorithm.oid,
    issuerNameHash,
    issuerKeyHash,
    serialNumber,
    der: bytesOf(buf, tlvCertId),
  };
}

/** The issuer's name and key hashes under each supported algorithm, computed once per issuer. */
export class IssuerHashes {
  private readonly byHash = new Map<CertIdHash, { name: Buffer; key: Buffer; prefix: Buffer }>();

  constructor(issuer: CertificateInput) {
    const certificate: Certificate = toCertificate(issuer);
    for (const hash of Object.keys(CERT_ID_HASHES) as CertIdHash[]) {
      const name = createHash(hash).update(certificate.subject.der).digest();
      const key = createHash(hash).update(certificate.publicKey.subjectPublicKey).digest();
      // hashAlgorithm (with NULL parameters, as OpenSSL and most clients write it) and both hashes.
      const prefix = Buffer.concat([
        sequence(oid(CERT_ID_HASHES[hash]), NULL),
        octetString(name),
        octetString(key),
      ]);
      this.byHash.set(hash, { name, key, prefix });
    }
  }

  /** The CertID names this issuer (hash algorithm supported, both hashes equal). */
  matches(certId: CertId): boolean {
    const own = certId.hash && this.byHash.get(certId.hash);
    return !!own && own.name.equals(certId.issuerNameHash) && own.key.equals(certId.issuerKeyHash);
  }

  /** A CertID for one of this issuer's serials (hex), e.g. to pre-sign a response for GET. */
  certId(serial: string | Buffer, hash: CertIdHash = 'sha1'): CertId {
    const own = this.byHash.get(hash);
    if (!own) throw new Error(`unsupported CertID hash ${hash}`);
    const serialOctets = typeof serial === 'string' ? parseSerialHex(serial) : serial;
    const der = tlv(Tag.Sequence, own.prefix, tlv(Tag.Integer, serialOctets));
    return {
      hash,
      hashAlgorithmOid: CERT_ID_HASHES[hash],
      issuerNameHash: own.name,
      issuerKeyHash: own.key,
      serialNumber: serialHex(serialOctets),
      der,
    };
  }
}
