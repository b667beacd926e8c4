import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { ocspGetRequestPath, PublicRoute, readOcspPostBody } from '@certlane/platform';
import { CA_CRL_FILE, crlResponseHeaders, ISSUER_CRL_FILE } from '@certlane/pki';
import { CrlPublisher } from '../crl/crl-publisher';
import { CrlState } from '../crl/crl.repository';
import { OcspAnswer } from '../ocsp/ocsp.service';
import { ocspHeaders } from '../ocsp/ocsp-http';
import { RelyingPartyOcsp } from './relying-party-ocsp';

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
    private readonly ocsp: RelyingPartyOcsp,
  ) {}

  /** The CRL of the issuer's current issuing CA: the CRL DP that local CA certificates carry. */
  @Get('crl/:file')
  async crl(@Param('file') file: string, @Res() response: Response): Promise<void> {
    const match = ISSUER_CRL_FILE.exec(file);
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
    send(response, await this.ocsp.post(issuerId, await readOcspPostBody(request)), false);
  }

  @Get('ocsp/:issuerId/*request')
  async ocspGet(
    @Param('issuerId') issuerId: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    send(response, await this.ocsp.get(issuerId, ocspGetRequestPath(request, issuerId)), true);
  }
}

function sendCrl(response: Response, state: CrlState): void {
  response
    .set(crlResponseHeaders(state.der, { thisUpdate: state.this_update, nextUpdate: state.next_update }))
    .status(200)
    .end(state.der);
}

function send(response: Response, answer: OcspAnswer, cacheable: boolean): void {
  response.set(ocspHeaders(answer, cacheable)).status(200).end(answer.der);
}
