import { Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { readCrlInParts } from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { busContext } from '../auth/actor';
import { RequirePermission } from '../auth/route-access';
import { Documented } from '../operation-facts/operation-facts';

/**
 * /api/v1/crl/{issuer} and /api/v1/ocsp (spec 4.4), served by the revocation service: DER CRL and
 * DER OCSP response per issuer, files (binary bodies cross the bus as base64, a CRL in parts of at
 * most 512 KiB, readCrlInParts; the JSON revocation list is declared, revocation.routes.ts).
 * Reading revocation status needs `certificate.read`; relying parties use the revocation service's
 * own unauthenticated /crl and /ocsp endpoints instead.
 */
@Controller('api/v1')
export class RevocationController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Get('crl/:issuerId')
  @RequirePermission('certificate.read')
  @Documented({
    operationId: 'getIssuerCrl',
    summary: "The DER CRL of an issuer's issuing CA (or of `ca_id`)",
    status: 200,
    errors: [403, 404, 501],
    response: null,
    produces: 'application/pkix-crl',
  })
  async crl(
    @Param('issuerId') issuerId: string,
    @Query('ca_id') caId: unknown,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    // Without ca_id: the CRL of the issuer's issuing CA (spec 4.4); with it, of that CA of the
    // issuer, a retired one too (ADR 0023). The revocation service validates the id.
    // In parts: a CRL may be larger than one bus message (review H2).
    const { document: crl, der } = await readCrlInParts(
      (payload) => this.bus.request('revocation.v1.get-crl', payload, { context: busContext(request) }),
      { issuer_id: issuerId, ...(caId === undefined ? {} : { ca_id: caId as string }) },
    );
    response
      .set({
        'content-type': 'application/pkix-crl',
        'last-modified': new Date(crl.this_update).toUTCString(),
        expires: new Date(crl.next_update).toUTCString(),
        'cache-control': 'no-store',
      })
      .status(200)
      .end(der);
  }

  @Get('ocsp/:issuerId/:serial')
  @RequirePermission('certificate.read')
  @Documented({
    operationId: 'getOcspResponse',
    summary: 'A DER OCSP response for one serial of an issuer',
    status: 200,
    errors: [403, 404, 501],
    response: null,
    produces: 'application/ocsp-response',
  })
  async ocsp(
    @Param('issuerId') issuerId: string,
    @Param('serial') serial: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const ocsp = await this.bus.request(
      'revocation.v1.get-ocsp-response',
      { issuer_id: issuerId, serial_hex: serial },
      { context: busContext(request) },
    );
    response
      .set({ 'content-type': 'application/ocsp-response', 'cache-control': 'no-store' })
      .status(200)
      .end(Buffer.from(ocsp.response_base64, 'base64'));
  }
}
