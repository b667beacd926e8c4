import { Injectable } from '@nestjs/common';
import { decodeOcspGetPath, ocspErrorResponse, PkiError } from '@certlane/pki';
import { OcspAnswer, OcspService } from '../ocsp/ocsp.service';
import { ocspGetKey, ocspPostKey } from '../ocsp/ocsp-http';

/**
 * A relying party's OCSP request in either HTTP form, answered from the cache by the exact request
 * when it was answered before, else parsed and signed. Shared by the service's own listener and
 * the bus subject the gateway forwards /ocsp/* to, so both answer alike. Always an OCSP response.
 */
@Injectable()
export class RelyingPartyOcsp {
  constructor(private readonly ocsp: OcspService) {}

  /** RFC 5019 GET: `encodedPath` is the raw path after /ocsp/<issuer_id>/ (still percent-encoded). */
  async get(issuerId: string, encodedPath: string): Promise<OcspAnswer> {
    const key = ocspGetKey(encodedPath);
    const hit = this.ocsp.cached(issuerId, key);
    if (hit) return hit;
    let der: Buffer;
    try {
      der = decodeOcspGetPath(encodedPath);
    } catch (error) {
      if (!(error instanceof PkiError)) throw error;
      return { der: ocspErrorResponse('malformedRequest') };
    }
    return this.ocsp.answer(issuerId, der, key);
  }

  /** RFC 6960 POST: the DER body. */
  async post(issuerId: string, body: Buffer): Promise<OcspAnswer> {
    const key = ocspPostKey(body);
    return this.ocsp.cached(issuerId, key) ?? (await this.ocsp.answer(issuerId, body, key));
  }
}
