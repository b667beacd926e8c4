import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { PublicRoute } from '@certlane/platform';
import {
  decodeOcspGetPath,
  isOcspRequestContentType,
  MAX_OCSP_REQUEST_BYTES,
  ocspCacheHeaders,
  ocspErrorResponse,
  PkiError,
} from '@certlane/pki';
import { CrlPublisher } from '../crl/crl-publisher';
import { CrlState } from '../crl/crl.repository';
import { OcspAnswer, OcspService } from '../ocsp/ocsp.service';
import { ocspGetKey, ocspHeaders, ocspPostKey } from './ocsp-http';
import { readRawBody } from './raw-body';

const CRL_FILE = /^(.{1,128})\.crl$/;
const CA_CRL_FILE = /^(ca-[a-z0-9-]{1,80})\.crl$/;

/**
 * What relying parties fetch from the URLs issued certificates carry (CRL DP and OCSP AIA), served
 * by the revocation service itself without credentials: the DER CRL of an issuer, and an OCSP
 * responder in the RFC 6960 POST and RFC 5019 GET forms. OCSP errors are OCSP responses (HTTP 200).
 */
@Controller()
@PublicRoute()
export class RelyingPartyController {
  constructor(
    private readonly crls: CrlPublisher,
    private readonly ocsp: OcspService,
  ) {}

  /** The CRL of the issuer's current issuing CA: the CRL DP that local CA certificates carry. */
  @Get('crl/:file')
  async crl(@Param('file') file: string, @Res() response: Response): Promise<void> {
    const match = CRL_FILE.exec(file);
    if (!match) throw new CertlaneError(ErrorCode.NotFound, 'CRLs are served as /crl/<issuer_id>.crl');
    sendCrl(response, await this.crls.current(match[1]));
  }

  /** The CRL of one CA of the issuer, a retired one too (ADR 0023). */
  @Get('crl/:issuerId/:file')
  async caCrl(
    @Param('issuerId') issuerId: string,
    @Param('file') file: string,
    @Res() response: Response,
  ): Promise<void> {
    const match = CA_CRL_FILE.exec(file);
    if (!match) {
      throw new CertlaneError(ErrorCode.NotFound, 'CA CRLs are served as /crl/<issuer_id>/<ca_id>.crl');
    }
    sendCrl(response, await this.crls.current(issuerId, match[1]));
  }

  @Post('ocsp/:issuerId')
  async ocspPost(
    @Param('issuerId') issuerId: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    if (!isOcspRequestContentType(request.headers['content-type'])) {
      throw new CertlaneError(ErrorCode.UnsupportedMediaType, 'OCSP requests are application/ocsp-request');
    }
    const body = await readRawBody(request, MAX_OCSP_REQUEST_BYTES);
    const key = ocspPostKey(body);
    send(response, this.ocsp.cached(issuerId, key) ?? (await this.ocsp.answer(issuerId, body, key)), false);
  }

  @Get('ocsp/:issuerId/*request')
  async ocspGet(
    @Param('issuerId') issuerId: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    // The raw path after /ocsp/<issuer>/: base64 may hold '/' and is percent-encoded (RFC 5019 5).
    const path = request.originalUrl.split('?')[0];
    const prefix = `/ocsp/${encodeURIComponent(issuerId)}/`;
    const encoded = path.startsWith(prefix)
      ? path.slice(prefix.length)
      : path.slice(path.indexOf('/', 6) + 1);
    const key = ocspGetKey(encoded);
    const hit = this.ocsp.cached(issuerId, key);
    if (hit) return send(response, hit, true);
    let der: Buffer;
    try {
      der = decodeOcspGetPath(encoded);
    } catch (error) {
      if (!(error instanceof PkiError)) throw error;
      send(response, { der: ocspErrorResponse('malformedRequest') }, true);
      return;
    }
    send(response, await this.ocsp.answer(issuerId, der, key), true);
  }
}

function sendCrl(response: Response, state: CrlState): void {
  const headers = ocspCacheHeaders(state.der, {
    producedAt: state.this_update,
    thisUpdate: state.this_update,
    nextUpdate: state.next_update,
  });
  response
    .set({ ...headers, 'content-type': 'application/pkix-crl' })
    .status(200)
    .end(state.der);
}

function send(response: Response, answer: OcspAnswer, cacheable: boolean): void {
  response.set(ocspHeaders(answer, cacheable)).status(200).end(answer.der);
}
