import type { Request } from 'express';
import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { isOcspRequestContentType, MAX_OCSP_REQUEST_BYTES } from '@certlane/pki';
import { readRawBody } from './raw-body';

/**
 * The DER body of an OCSP POST (RFC 6960 A.1.1), read the same way wherever `/ocsp/<issuer>` is
 * served: 415 unless `application/ocsp-request`, 413 past MAX_OCSP_REQUEST_BYTES.
 */
export function readOcspPostBody(request: Request): Promise<Buffer> {
  if (!isOcspRequestContentType(request.headers['content-type'])) {
    return Promise.reject(
      new CertlaneError(ErrorCode.UnsupportedMediaType, 'OCSP requests are application/ocsp-request'),
    );
  }
  return readRawBody(request, MAX_OCSP_REQUEST_BYTES);
}

const ABSOLUTE_FORM_ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?]*/i;

/**
 * The encoded request of an OCSP GET, `/ocsp/<issuer>/<request>`: the raw path after the issuer,
 * because the base64 may hold '/' and is percent-encoded (RFC 5019 5), which route parameters
 * would split or decode. A request target in absolute form (`GET https://host/ocsp/...`, which a
 * server MUST accept, RFC 9112 3.2.2) is read from its path.
 */
export function ocspGetRequestPath(request: Request, issuerId: string): string {
  const path = request.originalUrl.replace(ABSOLUTE_FORM_ORIGIN, '').split('?')[0];
  const prefix = `/ocsp/${encodeURIComponent(issuerId)}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : path.slice(path.indexOf('/', 6) + 1);
}
