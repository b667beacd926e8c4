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
  CertlaneError,
  CreateRoleRequest,
  ErrorCode,
  GrantDto,
  GrantRequest,
  GrantScopeQuery,
  ListGrantsRequest,
  PermissionDto,
  PERMISSIONS,
  DEFAULT_ROLES,
  Page,
  PageQuery,
  RoleChanges,
  RoleDto,
} from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { actorOf, busContext } from '../auth/actor';
import { RequirePermission } from '../auth/route-access';

/** Roles (spec 5.3; design: docs/decisions/0014-rbac-catalogue-and-route-table.md). */
@Controller('api/v1/auth/roles')
export class RolesController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Get()
  @RequirePermission('auth.role.list')
  list(@Query() query: PageQuery, @Req() request: Request): Promise<Page<RoleDto>> {
    return this.bus.request('auth.v1.list-roles', query, { context: busContext(request) });
  }

  @Post()
  @HttpCode(201)
  @RequirePermission('auth.role.create')
  create(@Body() body: CreateRoleRequest, @Req() request: Request): Promise<RoleDto> {
    return this.bus.request('auth.v1.create-role', body, { context: busContext(request) });
  }

  @Get(':id')
  @RequirePermission('auth.role.list')
  get(@Param('id') id: string, @Req() request: Request): Promise<RoleDto> {
    return this.bus.request('auth.v1.get-role', { id }, { context: busContext(request) });
  }

  @Put(':id')
  @RequirePermission('auth.role.edit')
  update(@Param('id') id: string, @Body() body: RoleChanges, @Req() request: Request): Promise<RoleDto> {
    return this.bus.request('auth.v1.update-role', { ...body, id }, { context: busContext(request) });
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('auth.role.delete')
  async delete(@Param('id') id: string, @Req() request: Request): Promise<void> {
    await this.bus.request('auth.v1.delete-role', { id }, { context: busContext(request) });
  }
}

/** Grants of roles to actors. Granting r-admin takes an admin caller. */
@Controller('api/v1/auth/grants')
export class GrantsController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Get()
  @RequirePermission('auth.role.list')
  list(@Query() query: ListGrantsRequest, @Req() request: Request): Promise<Page<GrantDto>> {
    return this.bus.request('auth.v1.list-grants', query, { context: busContext(request) });
  }

  @Post()
  @HttpCode(201)
  @RequirePermission('auth.role.assign')
  grant(@Body() body: GrantRequest, @Req() request: Request): Promise<GrantDto> {
    const actor = actorOf(request);
    if (body.role_id === 'r-admin' && !actor?.admin) {
      throw new CertlaneError(ErrorCode.Forbidden, 'only an admin can grant r-admin');
    }
    return this.bus.request(
      'auth.v1.grant-role',
      { ...body, granted_by: actor?.id ?? 'unknown' },
      { context: busContext(request) },
    );
  }

  @Delete(':actorId/:roleId')
  @HttpCode(204)
  @RequirePermission('auth.role.assign')
  async revoke(
    @Param('actorId') actorId: string,
    @Param('roleId') roleId: string,
    @Query() query: GrantScopeQuery,
    @Req() request: Request,
  ): Promise<void> {
    await this.bus.request(
      'auth.v1.revoke-role',
      { actor_id: actorId, role_id: roleId, scope: query.scope },
      { context: busContext(request) },
    );
  }
}

/** The permission catalogue (spec 5.3), with the default roles that hold each permission. */
@Controller('api/v1/auth/permissions')
export class PermissionsController {
  @Get()
  @RequirePermission('auth.role.list')
  list(): { data: PermissionDto[]; total: number } {
    const data = PERMISSIONS.map((name) => ({
      name,
      default_roles: Object.entries(DEFAULT_ROLES)
        .filter(([, role]) => role.permissions.includes(name))
        .map(([id]) => id),
    }));
    return { data, total: data.length };
  }
}
