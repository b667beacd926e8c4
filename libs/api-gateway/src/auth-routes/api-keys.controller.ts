import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import {
  ApiKeyDto,
  ApiKeyWithSecret,
  CertlaneError,
  CreateApiKeyRequest,
  ErrorCode,
  Page,
  PageQuery,
} from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { actorOf, busContext } from '../auth/actor';
import { PrincipalCache } from '../auth/principal-cache';
import { RequirePermission } from '../auth/route-access';

/**
 * Stored API keys (docs/decisions/0013-api-keys-and-bootstrap.md). Creating an admin key takes
 * an admin; granting roles with a key takes auth.role.assign, and r-admin only an admin.
 */
@Controller('api/v1/auth/api-keys')
export class ApiKeysController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly principals: PrincipalCache,
  ) {}

  @Get()
  @RequirePermission('auth.key.list')
  list(@Query() query: PageQuery, @Req() request: Request): Promise<Page<ApiKeyDto>> {
    return this.bus.request('auth.v1.list-api-keys', query, { context: busContext(request) });
  }

  @Post()
  @HttpCode(201)
  @RequirePermission('auth.key.create')
  create(@Body() body: CreateApiKeyRequest, @Req() request: Request): Promise<ApiKeyWithSecret> {
    const actor = actorOf(request);
    const roleIds = body.role_ids ?? [];
    if ((body.admin || roleIds.includes('r-admin')) && !actor?.admin) {
      throw new CertlaneError(ErrorCode.Forbidden, 'only an admin can create an admin key or grant r-admin');
    }
    if (roleIds.length > 0 && !actor?.permissions.has('auth.role.assign')) {
      throw new CertlaneError(ErrorCode.Forbidden, 'granting roles needs the permission auth.role.assign', {
        permission: 'auth.role.assign',
      });
    }
    const createdBy = actor?.id ?? 'unknown';
    return this.bus.request(
      'auth.v1.create-api-key',
      { ...body, created_by: createdBy },
      { context: busContext(request) },
    );
  }

  @Post(':id/rotate')
  @HttpCode(200)
  @RequirePermission('auth.key.rotate')
  async rotate(@Param('id') id: string, @Req() request: Request): Promise<ApiKeyWithSecret> {
    const rotated = await this.bus.request(
      'auth.v1.rotate-api-key',
      { id },
      { context: busContext(request) },
    );
    this.principals.dropKey(id);
    return rotated;
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('auth.key.delete')
  async delete(@Param('id') id: string, @Req() request: Request): Promise<void> {
    await this.bus.request('auth.v1.delete-api-key', { id }, { context: busContext(request) });
    this.principals.dropKey(id);
  }
}
