import { DerCursor, readRoot, readSmallInteger, valueOf } from '../der/reader';
import { Tag, contextConstructed } from '../der/tags';
import { explicit, octetString, sequence, tlv, tlvList } from '../der/writer';
import { PkiError } from '../errors';
import { Extension, encodeExtension, readExtensions } from '../extensions/extension';
import { GeneralName, readGeneralName } from '../extensions/general-name';
import { Oid } from '../oids';
import { checkSize, decodeBase64Strict } from '../pem';
import { CertId, readCertId } from './cert-id';

/** 16 KiB: a request for one certificate is about 80 bytes; this bounds what a client can send. */
export const MAX_OCSP_REQUEST_BYTES = 16 * 1024;
/** Certificates asked about in one request. */
export const MAX_OCSP_REQUESTS = 32;
/** RFC 8954 2.1: a nonce is 1 to 32 octets. */
export const MAX_NONCE_BYTES = 32;

export interface OcspRequest {
  der: Buffer;
  certIds: CertId[];
  /** The nonce extension's extnValue exactly as sent, to echo in the response. */
  nonceExtension?: Buffer;
  /** The nonce octets themselves. */
  nonce?: Buffer;
  requestorName?: GeneralName;
  /** The request carries an optionalSignature (it is not checked: Certlane's responder does not require signed requests). */
  signed: boolean;
  extensions: Extension[];
}

const WHAT = 'OCSP request';

/** Parses the DER body of an RFC 6960 POST (or a decoded GET). */
export function parseOcspRequest(
  der: Uint8Array,
  options: { maxBytes?: number; maxRequests?: number } = {},
): OcspRequest {
  checkSize(der.byteLength, options.maxBytes ?? MAX_OCSP_REQUEST_BYTES, WHAT);
  const buf = Buffer.from(der.buffer, der.byteOffset, der.byteLength);
  const outer = DerCursor.of(buf, readRoot(buf, Tag.Sequence, WHAT), WHAT);
  const tbs = DerCursor.of(buf, outer.next(Tag.Sequence, 'TBSRequest'), WHAT);
  const signature = outer.optional(contextConstructed(0));
  outer.end();

  const versionTlv = tbs.optional(contextConstructed(0));
  if (versionTlv) {
    const inner = DerCursor.of(buf, versionTlv, WHAT);
    const version = readSmallInteger(buf, inner.next(Tag.Integer, 'version'), WHAT);
    inner.end();
    if (version !== 0)
      throw new PkiError('ocsp_request_invalid', `${WHAT}: unsupported version ${version + 1}`);
  }
  let requestorName: GeneralName | undefined;
  const requestorTlv = tbs.optional(contextConstructed(1));
  if (requestorTlv) {
    const inner = DerCursor.of(buf, requestorTlv, WHAT);
    requestorName = readGeneralName(buf, inner.next(), WHAT);
    inner.end();
  }
  const list = DerCursor.of(buf, tbs.next(Tag.Sequence, 'requestList'), WHAT);
  const certIds: CertId[] = [];
  const maxRequests = options.maxRequests ?? MAX_OCSP_REQUESTS;
  while (!list.done) {
    if (certIds.length >= maxRequests) {
      throw new PkiError(
        'ocsp_request_invalid',
        `${WHAT}: more than ${maxRequests} certificates in one request`,
      );
    }
    const request = DerCursor.of(buf, list.next(Tag.Sequence, 'Request'), WHAT);
    certIds.push(readCertId(buf, request.next(Tag.Sequence, 'CertID'), WHAT));
    // singleRequestExtensions [0] are read for well-formedness and otherwise ignored.
    const single = request.optional(contextConstructed(0));
    if (single) readExtensions(buf, DerCursor.of(buf, single, WHAT).next(Tag.Sequence), WHAT);
    request.end();
  }
  if (certIds.length === 0) throw new PkiError('ocsp_request_invalid', `${WHAT}: empty requestList`);
  let extensions: Extension[] = [];
  const extensionsTlv = tbs.optional(contextConstructed(2));
  if (extensionsTlv) {
    const inner = DerCursor.of(buf, extensionsTlv, WHAT);
    extensions = readExtensions(buf, inner.next(Tag.Sequence, 'requestExtensions'), WHAT);
    inner.end();
  }
  tbs.end();

  const nonceExt = extensions.find((e) => e.oid === Oid.ocspNonce);
  let nonce: Buffer | undefined;
  if (nonceExt) {
    nonce = nonceOctets(nonceExt.value);
    if (nonce.length === 0 || nonce.length > MAX_NONCE_BYTES) {
      throw new PkiError(
        'ocsp_request_invalid',
        `${WHAT}: nonce of ${nonce.length} octets (RFC 8954: 1 to ${MAX_NONCE_BYTES})`,
      );
    }
  }
  return {
    der: buf,
    certIds,
    nonceExtension: nonceExt?.value,
    nonce,
    requestorName,
    signed: !!signature,
    extensions,
  };
}

/** The nonce is an OCTET STRING inside extnValue; some old clients put the raw octets there. */
function nonceOctets(value: Buffer): Buffer {
  if (value.length >= 2 && value[0] === Tag.OctetString) {
    try {
      return valueOf(value, readRoot(value, Tag.OctetString, WHAT));
    } catch {
      return value;
    }
  }
  return value;
}

/**
 * The DER of a GET request (RFC 6960 A.1, RFC 5019 5): the path part after the responder URL is
 * the base64 of the DER, URL-encoded. Accepted: percent-encoded or raw `/`, `+`, `=`; the URL-safe
 * alphabet; missing padding. Anything else is `pem_invalid` (not base64) or `input_too_large`.
 */
export function decodeOcspGetPath(path: string, options: { maxBytes?: number } = {}): Buffer {
  const maxBytes = options.maxBytes ?? MAX_OCSP_REQUEST_BYTES;
  checkSize(path.length, Math.ceil(maxBytes * 1.4) * 3 + 16, WHAT);
  let text: string;
  try {
    text = decodeURIComponent(path.replace(/^\/+/, ''));
  } catch {
    throw new PkiError('pem_invalid', `${WHAT}: malformed percent-encoding in the GET path`);
  }
  let base64 = text.replace(/-/g, '+').replace(/_/g, '/').replace(/\s/g, '');
  while (base64.length % 4) base64 += '=';
  const der = decodeBase64Strict(base64, WHAT);
  checkSize(der.length, maxBytes, WHAT);
  return der;
}

/** The GET path component for a request (standard base64, percent-encoded), as RFC 5019 clients send it. */
export function encodeOcspGetPath(der: Uint8Array): string {
  return encodeURIComponent(Buffer.from(der.buffer, der.byteOffset, der.byteLength).toString('base64'));
}

/** True for the media type of an RFC 6960 POST body (parameters ignored). */
export function isOcspRequestContentType(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0].trim().toLowerCase() === 'application/ocsp-request';
}

/** Builds an OCSP request (tests, health checks of external responders). */
export function createOcspRequest(certIds: readonly CertId[], options: { nonce?: Buffer } = {}): Buffer {
  const requestList = tlvList(
    Tag.Sequence,
    certIds.map((id) => sequence(id.der)),
  );
  const parts = [requestList];
  if (options.nonce)
    parts.push(explicit(2, sequence(encodeExtension(Oid.ocspNonce, false, octetString(options.nonce)))));
  return sequence(tlv(Tag.Sequence, ...parts));
}
