import { DerCursor, Tlv, bytesOf, readOid } from './der/reader';
import { Tag } from './der/tags';

/** AlgorithmIdentifier: the OID and the raw parameters element, if present. */
export interface AlgorithmIdentifier {
  oid: string;
  /** The complete DER of the parameters element (e.g. `05 00` for NULL), absent when omitted. */
  parameters?: Buffer;
  /** The complete DER of the AlgorithmIdentifier. */
  der: Buffer;
}

export function readAlgorithmIdentifier(buf: Buffer, tlv: Tlv, what: string): AlgorithmIdentifier {
  const cursor = DerCursor.of(buf, tlv, what);
  const oid = readOid(buf, cursor.next(Tag.Oid, 'algorithm'), what);
  const parameters = cursor.done ? undefined : bytesOf(buf, cursor.next());
  cursor.end();
  return { oid, parameters, der: bytesOf(buf, tlv) };
}
