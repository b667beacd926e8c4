import { Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ExportPkcs12Body, PemExportDto, PemExportQuery } from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { busContext } from '../auth/actor';
import { RequirePermission } from '../auth/route-access';
import { Documented } from '../operation-facts/operation-facts';
import { attachmentName, optionalBody, queryFlag } from '../routes/request-flags';

/**
 * The certificate exports (spec 4.2), served by the issuance service: files, so Nest routes; the
 * rest of /api/v1/certificates is declared (certificate.routes.ts).
 */
@Controller('api/v1/certificates')
export class CertificateExportsController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  /** JSON `{cert_pem, chain_pem, full_pem}`, or with `download=true` the full PEM as a file. */
  @Get(':id/export/pem')
  @RequirePermission('certificate.export')
  @Documented({
    operationId: 'exportCertificatePem',
    summary: 'The PEM chain as JSON, or as a file with `download=true`',
    status: 200,
    errors: [403, 404, 409, 422],
    response: 'PemExportDto',
    alsoProduces: ['application/x-pem-file'],
  })
  async exportPem(
    @Param('id') id: string,
    @Query() query: PemExportQuery,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const pem: PemExportDto = await this.bus.request(
      'issuance.v1.export-certificate-pem',
      { id },
      { context: busContext(request) },
    );
    if (!queryFlag(query.download)) {
      response.status(200).json(pem);
      return;
    }
    response
      .set({
        'content-type': 'application/x-pem-file',
        'content-disposition': `attachment; filename="${attachmentName(id, 'pem')}"`,
        'cache-control': 'no-store',
      })
      .status(200)
      .end(pem.full_pem);
  }

  /** PKCS#12 with the certificate and its chain, never a private key. */
  @Post(':id/export/pkcs12')
  @HttpCode(200)
  @RequirePermission('certificate.export')
  @Documented({
    operationId: 'exportCertificatePkcs12',
    summary: 'A PKCS#12 file with the certificate and its chain, never a private key',
    status: 200,
    errors: [403, 404, 409, 422],
    body: ExportPkcs12Body,
    optionalBody: true,
    response: null,
    produces: 'application/x-pkcs12',
  })
  async exportPkcs12(
    @Param('id') id: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const body = await optionalBody(ExportPkcs12Body, request);
    const exported = await this.bus.request(
      'issuance.v1.export-certificate-pkcs12',
      { id, ...(body.password !== undefined ? { password: body.password } : {}) },
      { context: busContext(request) },
    );
    response
      .set({
        'content-type': 'application/x-pkcs12',
        'content-disposition': `attachment; filename="${attachmentName(id, 'p12')}"`,
        'cache-control': 'no-store',
      })
      .status(200)
      .end(Buffer.from(exported.pkcs12_base64, 'base64'));
  }
}
