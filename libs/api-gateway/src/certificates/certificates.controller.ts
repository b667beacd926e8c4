import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Put,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  CertificateChanges,
  CertificateDto,
  CertificateVersionDto,
  CertlaneError,
  ErrorCode,
  CreateCertificateRequest,
  DeployCertificateBody,
  ExportPkcs12Body,
  Page,
  PageQuery,
  PemExportDto,
  PemExportQuery,
  RenewCertificateBody,
  RenewCertificateQuery,
  RevokeCertificateBody,
  StatusResponse,
} from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { busContext } from '../auth/actor';
import { idempotentResourceId } from '../idempotency/idempotency-key';
import { Idempotent, idempotencyKeyOf } from '../idempotency/idempotency.interceptor';
import { RequirePermission } from '../auth/route-access';
import { attachmentName, optionalBody, queryFlag, renewForce } from './request-flags';
import { Documented } from '../openapi/operation-facts';

/** /api/v1/certificates (spec 4.2, ADR 0024): validated here, served by the issuance service. */
@Controller('api/v1/certificates')
export class CertificatesController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Post()
  @HttpCode(201)
  @Idempotent()
  @RequirePermission('certificate.create')
  async create(@Body() body: CreateCertificateRequest, @Req() request: Request): Promise<CertificateDto> {
    const context = busContext(request);
    // With an Idempotency-Key and no id of the client's, the id derives from the key (ADR 0045):
    // an attempt run again after the first was lost without an answer finds what the first made.
    const key = body.id === undefined ? idempotencyKeyOf(request) : undefined;
    const derived = key === undefined ? undefined : idempotentResourceId('mc', context.actor_id ?? '', key);
    try {
      return await this.bus.request(
        'issuance.v1.create-certificate',
        derived ? { ...body, id: derived } : body,
        {
          context,
        },
      );
    } catch (error) {
      if (!derived || !(error instanceof CertlaneError) || error.code !== ErrorCode.CertificateExists)
        throw error;
      return this.bus.request('issuance.v1.get-certificate', { id: derived }, { context });
    }
  }

  @Get(':id')
  @RequirePermission('certificate.read')
  get(@Param('id') id: string, @Req() request: Request): Promise<CertificateDto> {
    return this.bus.request('issuance.v1.get-certificate', { id }, { context: busContext(request) });
  }

  @Put(':id')
  @RequirePermission('certificate.edit')
  update(
    @Param('id') id: string,
    @Body() body: CertificateChanges,
    @Req() request: Request,
  ): Promise<CertificateDto> {
    return this.bus.request(
      'issuance.v1.update-certificate',
      { ...body, id },
      { context: busContext(request) },
    );
  }

  /** Archives: the certificate stays in the inventory with status Archived. */
  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('certificate.delete')
  async archive(@Param('id') id: string, @Req() request: Request): Promise<void> {
    await this.bus.request('issuance.v1.archive-certificate', { id }, { context: busContext(request) });
  }

  @Get(':id/versions')
  @RequirePermission('certificate.read')
  versions(
    @Param('id') id: string,
    @Query() query: PageQuery,
    @Req() request: Request,
  ): Promise<Page<CertificateVersionDto>> {
    return this.bus.request(
      'issuance.v1.list-certificate-versions',
      { ...query, id },
      { context: busContext(request) },
    );
  }

  @Post(':id/renew')
  @Idempotent()
  @HttpCode(202)
  @RequirePermission('certificate.renew')
  async renew(
    @Param('id') id: string,
    @Query() query: RenewCertificateQuery,
    @Req() request: Request,
  ): Promise<StatusResponse> {
    const body = await optionalBody(RenewCertificateBody, request);
    return this.bus.request(
      'issuance.v1.renew-certificate',
      { id, force: renewForce(query.force, body.force) },
      { context: busContext(request) },
    );
  }

  @Post(':id/deploy')
  @Idempotent()
  @HttpCode(202)
  @RequirePermission('certificate.deploy')
  async deploy(@Param('id') id: string, @Req() request: Request): Promise<StatusResponse> {
    const body = await optionalBody(DeployCertificateBody, request);
    return this.bus.request(
      'issuance.v1.deploy-certificate',
      { id, ...(body.target_id !== undefined ? { target_id: body.target_id } : {}) },
      { context: busContext(request) },
    );
  }

  @Post(':id/revoke')
  @Idempotent()
  @HttpCode(200)
  @RequirePermission('certificate.revoke')
  async revoke(@Param('id') id: string, @Req() request: Request): Promise<StatusResponse> {
    const body = await optionalBody(RevokeCertificateBody, request);
    return this.bus.request(
      'issuance.v1.revoke-managed-certificate',
      { id, ...(body.reason !== undefined ? { reason: body.reason } : {}) },
      { context: busContext(request) },
    );
  }

  /** JSON `{cert_pem, chain_pem, full_pem}`, or with `download=true` the full PEM as a file. */
  @Get(':id/export/pem')
  @RequirePermission('certificate.export')
  @Documented({
    operationId: 'exportCertificatePem',
    summary: 'The PEM chain as JSON, or as a file with `download=true`',
    status: 200,
    errors: [403, 404, 409],
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
    errors: [403, 404, 409],
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
