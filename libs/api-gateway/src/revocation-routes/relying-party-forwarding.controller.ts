import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CertlaneError, ErrorCode, OcspResponseDocument, readCrlInParts } from '@certlane/contracts';
import {
  httpStatusFor,
  MESSAGE_BUS,
  MessageBus,
  ocspGetRequestPath,
  PublicRoute,
  readOcspPostBody,
} from '@certlane/platform';
import {
  CA_CRL_FILE,
  crlResponseHeaders,
  ISSUER_CRL_FILE,
  ocspErrorResponse,
  ocspResponseHeaders,
} from '@certlane/pki';
import { busContext } from '../auth/actor';

/**
 * The relying-party paths issued certificates point to (CRL DP `/crl/...`, OCSP AIA `/ocsp/...`),
 * answered by the gateway when the revocation service runs as its own process (ADR 0038), so the
 * one public origin of SERVICE_REVOCATION_BASE_URL answers them as the revocation service's own
 * listener does: forwarded over the bus, no credentials, the same bodies, content types and cache
 * headers. Not mounted in the single-process quick start, where the revocation service's own
 * routes share the listener.
 */
@Controller()
@PublicRoute()
export class RelyingPartyForwardingController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Get('crl/:file')
  async crl(@Param('file') file: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    const match = ISSUER_CRL_FILE.exec(file);
    if (!match) throw new CertlaneError(ErrorCode.NotFound, 'CRLs are served as /crl/<issuer_id>.crl');
    await this.sendCrl(request, response, match[1]);
  }

  @Get('crl/:issuerId/:file')
  async caCrl(
    @Param('issuerId') issuerId: string,
    @Param('file') file: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const match = CA_CRL_FILE.exec(file);
    if (!match) {
      throw new CertlaneError(ErrorCode.NotFound, 'CA CRLs are served as /crl/<issuer_id>/<ca_id>.crl');
    }
    await this.sendCrl(request, response, issuerId, match[1]);
  }

  @Post('ocsp/:issuerId')
  async ocspPost(
    @Param('issuerId') issuerId: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const body = await readOcspPostBody(request);
    const answer = await this.answerOcsp(request, {
      issuer_id: issuerId,
      form: 'post',
      request: body.toString('base64'),
    });
    sendOcsp(response, answer, false);
  }

  @Get('ocsp/:issuerId/*request')
  async ocspGet(
    @Param('issuerId') issuerId: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const encoded = ocspGetRequestPath(request, issuerId);
    const answer = await this.answerOcsp(request, { issuer_id: issuerId, form: 'get', request: encoded });
    sendOcsp(response, answer, true);
  }

  /**
   * The revocation service's answer; when it cannot be reached (no responder, a timeout), an
   * unsigned tryLater (RFC 6960 2.3), which OCSP clients retry, instead of a JSON error they
   * cannot read.
   */
  private async answerOcsp(
    request: Request,
    question: { issuer_id: string; form: 'get' | 'post'; request: string },
  ): Promise<OcspResponseDocument> {
    try {
      return await this.bus.request('revocation.v1.answer-ocsp', question, { context: busContext(request) });
    } catch (error) {
      if (error instanceof CertlaneError && httpStatusFor(error.code) < 500) throw error;
      return { response_base64: ocspErrorResponse('tryLater').toString('base64') };
    }
  }

  private async sendCrl(request: Request, response: Response, issuerId: string, caId?: string) {
    // In parts: a CRL may be larger than one bus message (review H2).
    const { document: crl, der } = await readCrlInParts(
      (payload) => this.bus.request('revocation.v1.get-crl', payload, { context: busContext(request) }),
      { issuer_id: issuerId, ...(caId === undefined ? {} : { ca_id: caId }) },
    );
    const times = { thisUpdate: new Date(crl.this_update), nextUpdate: new Date(crl.next_update) };
    response.set(crlResponseHeaders(der, times)).status(200).end(der);
  }
}

function sendOcsp(response: Response, answer: OcspResponseDocument, cacheable: boolean): void {
  const der = Buffer.from(answer.response_base64, 'base64');
  const times =
    answer.produced_at && answer.this_update && answer.next_update
      ? {
          producedAt: new Date(answer.produced_at),
          thisUpdate: new Date(answer.this_update),
          nextUpdate: new Date(answer.next_update),
        }
      : undefined;
  response
    .set(ocspResponseHeaders(der, times, cacheable))
    .status(200)
    .end(der);
}
