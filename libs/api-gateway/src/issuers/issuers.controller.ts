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
} from '@nestjs/common';
import type { Request } from 'express';
import {
  CaCertificateDto,
  CaCertificateUpload,
  CreateCaRequest,
  CreateIssuerRequest,
  IssuerChanges,
  IssuerDto,
  IssuerTestResult,
  ListCaCertificatesRequest,
  Page,
  PageQuery,
} from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { AdminOnly } from '../auth/admin-only';
import { busContext } from '../auth/actor';
import { RequirePermission } from '../auth/route-access';

/** /api/v1/issuers (spec 4.5, ADR 0022): validated here, served by the issuance service. */
@Controller('api/v1/issuers')
export class IssuersController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Get()
  @RequirePermission('issuer.read')
  list(@Query() query: PageQuery, @Req() request: Request): Promise<Page<IssuerDto>> {
    return this.bus.request('issuance.v1.list-issuers', query, { context: busContext(request) });
  }

  @Post()
  @HttpCode(201)
  @RequirePermission('issuer.create')
  create(@Body() body: CreateIssuerRequest, @Req() request: Request): Promise<IssuerDto> {
    return this.bus.request('issuance.v1.create-issuer', body, { context: busContext(request) });
  }

  @Get(':id')
  @RequirePermission('issuer.read')
  get(@Param('id') id: string, @Req() request: Request): Promise<IssuerDto> {
    return this.bus.request('issuance.v1.get-issuer', { id }, { context: busContext(request) });
  }

  @Put(':id')
  @RequirePermission('issuer.edit')
  update(@Param('id') id: string, @Body() body: IssuerChanges, @Req() request: Request): Promise<IssuerDto> {
    return this.bus.request('issuance.v1.update-issuer', { ...body, id }, { context: busContext(request) });
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('issuer.delete')
  async delete(@Param('id') id: string, @Req() request: Request): Promise<void> {
    await this.bus.request('issuance.v1.delete-issuer', { id }, { context: busContext(request) });
  }

  /** A connection test may use the issuer's credentials, so it needs `issuer.edit`. */
  @Post(':id/test')
  @HttpCode(200)
  @RequirePermission('issuer.edit')
  test(@Param('id') id: string, @Req() request: Request): Promise<IssuerTestResult> {
    return this.bus.request('issuance.v1.test-issuer', { id }, { context: busContext(request) });
  }
}

/** /api/v1/intermediate-cas (spec 4.12, admin-gated; ADR 0022): the local CA's CA certificates. */
@Controller('api/v1/intermediate-cas')
export class IntermediateCasController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Get()
  @AdminOnly()
  list(@Query() query: ListCaCertificatesRequest, @Req() request: Request): Promise<Page<CaCertificateDto>> {
    return this.bus.request('issuance.v1.list-cas', query, { context: busContext(request) });
  }

  @Post()
  @HttpCode(201)
  @AdminOnly()
  create(@Body() body: CreateCaRequest, @Req() request: Request): Promise<CaCertificateDto> {
    return this.bus.request('issuance.v1.create-ca', body, { context: busContext(request) });
  }

  @Get(':id')
  @AdminOnly()
  get(@Param('id') id: string, @Req() request: Request): Promise<CaCertificateDto> {
    return this.bus.request('issuance.v1.get-ca', { id }, { context: busContext(request) });
  }

  @Post(':id/retire')
  @HttpCode(200)
  @AdminOnly()
  retire(@Param('id') id: string, @Req() request: Request): Promise<CaCertificateDto> {
    return this.bus.request('issuance.v1.retire-ca', { id }, { context: busContext(request) });
  }

  @Post(':id/certificate')
  @HttpCode(200)
  @AdminOnly()
  install(
    @Param('id') id: string,
    @Body() body: CaCertificateUpload,
    @Req() request: Request,
  ): Promise<CaCertificateDto> {
    return this.bus.request(
      'issuance.v1.install-ca-certificate',
      { ...body, id },
      { context: busContext(request) },
    );
  }
}
