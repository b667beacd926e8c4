import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { ApiKeyDto, ApiKeyWithSecret, CreateApiKeyRequest, Page, PageQuery } from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { actorOf, busContext } from '../auth/actor';
import { AdminOnly } from '../auth/admin-only';

/** Stored API keys (design: docs/decisions/0013-api-keys-and-bootstrap.md); admin only for now. */
@AdminOnly()
@Controller('api/v1/auth/api-keys')
export class ApiKeysController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Get()
  list(@Query() query: PageQuery, @Req() request: Request): Promise<Page<ApiKeyDto>> {
    return this.bus.request('auth.v1.list-api-keys', query, { context: busContext(request) });
  }

  @Post()
  @HttpCode(201)
  create(@Body() body: CreateApiKeyRequest, @Req() request: Request): Promise<ApiKeyWithSecret> {
    const createdBy = actorOf(request)?.id ?? 'unknown';
    return this.bus.request(
      'auth.v1.create-api-key',
      { ...body, created_by: createdBy },
      { context: busContext(request) },
    );
  }

  @Post(':id/rotate')
  @HttpCode(200)
  rotate(@Param('id') id: string, @Req() request: Request): Promise<ApiKeyWithSecret> {
    return this.bus.request('auth.v1.rotate-api-key', { id }, { context: busContext(request) });
  }

  @Delete(':id')
  @HttpCode(204)
  async delete(@Param('id') id: string, @Req() request: Request): Promise<void> {
    await this.bus.request('auth.v1.delete-api-key', { id }, { context: busContext(request) });
  }
}
