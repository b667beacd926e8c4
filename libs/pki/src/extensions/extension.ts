import { DerCursor, Tlv, readBoolean, readOid, valueOf } from '../der/reader';
import { Tag } from '../der/tags';
import { TRUE, octetString, oid, sequence } from '../der/writer';
import { PkiError } from '../errors';

/** One extension as it appears in a certificate, CSR, CRL or OCSP message. */
export interface Extension {
  oid: string;
  critical: boolean;
  /** The content of extnValue: the DER of the extension's own value. */
  value: Buffer;
}

export function encodeExtension(extensionOid: string, critical: boolean, valueDer: Uint8Array): Buffer {
  return critical
    ? sequence(oid(extensionOid), TRUE, octetString(valueDer))
    : sequence(oid(extensionOid), octetString(valueDer));
}

/** Extensions ::= SEQUENCE SIZE (1..MAX) OF Extension; a repeated OID is refused (RFC 5280 4.2). */
export function readExtensions(buf: Buffer, tlv: Tlv, what: string): Extension[] {
  const cursor = DerCursor.of(buf, tlv, what);
  const out: Extension[] = [];
  const seen = new Set<string>();
  while (!cursor.done) {
    const ext = DerCursor.of(buf, cursor.next(Tag.Sequence, 'Extension'), what);
    const extensionOid = readOid(buf, ext.next(Tag.Oid, 'extnID'), what);
    const criticalTlv = ext.optional(Tag.Boolean);
    const critical = criticalTlv ? readBoolean(buf, criticalTlv, what) : false;
    const value = valueOf(buf, ext.next(Tag.OctetString, 'extnValue'));
    ext.end();
    if (seen.has(extensionOid)) {
      throw new PkiError('extension_invalid', `${what}: extension ${extensionOid} appears more than once`, {
        object: what,
        extension: extensionOid,
      });
    }
    seen.add(extensionOid);
    out.push({ oid: extensionOid, critical, value });
  }
  return out;
}

/** Runs a decoder over an extension value, turning DER errors into `extension_invalid`. */
export function decodeExtensionValue<T>(name: string, what: string, decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    if (error instanceof PkiError && (error.code === 'der_invalid' || error.code === 'der_truncated')) {
      throw new PkiError(
        'extension_invalid',
        `${what}: ${name} extension does not decode: ${error.message}`,
        {
          object: what,
          extension: name,
        },
      );
    }
    throw error;
  }
}
