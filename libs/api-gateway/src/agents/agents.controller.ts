import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  AgentDto,
  AgentRetirement,
  ListAgentsRequest,
  ListRetiredAgentsQuery,
  Page,
  RegisterAgentRequest,
  RetireAgentQuery,
} from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { busContext } from '../auth/actor';
import { RequirePermission } from '../auth/route-access';
import { queryFlag } from '../certificates/request-flags';

/** POST /api/v1/agents: the agent, plus its API key this once. */
export type AgentRegistrationResponse = AgentDto & { api_key: string };

/**
 * /api/v1/agents (spec 4.7; ADR 0026): registration, list, the retired list, get and retirement,
 * served by deployment-dispatch; the heartbeat is declared (agent.routes.ts). The work protocol routes are another controller's.
 * `retired` is declared before `:id`, so the literal path wins.
 */
@Controller('api/v1/agents')
export class AgentsController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Get()
  @RequirePermission('agent.read')
  list(@Query() query: ListAgentsRequest, @Req() request: Request): Promise<Page<AgentDto>> {
    return this.bus.request('deployment-dispatch.v1.list-agents', query, { context: busContext(request) });
  }

  @Post()
  @HttpCode(201)
  @RequirePermission('agent.create')
  async register(
    @Body() body: RegisterAgentRequest,
    @Req() request: Request,
  ): Promise<AgentRegistrationResponse> {
    const registered = await this.bus.request('deployment-dispatch.v1.register-agent', body, {
      context: busContext(request),
    });
    return { ...registered.agent, api_key: registered.api_key };
  }

  @Get('retired')
  @RequirePermission('agent.read')
  listRetired(@Query() query: ListRetiredAgentsQuery, @Req() request: Request): Promise<Page<AgentDto>> {
    return this.bus.request('deployment-dispatch.v1.list-retired-agents', query, {
      context: busContext(request),
    });
  }

  @Get(':id')
  @RequirePermission('agent.read')
  get(@Param('id') id: string, @Req() request: Request): Promise<AgentDto> {
    return this.bus.request('deployment-dispatch.v1.get-agent', { id }, { context: busContext(request) });
  }

  /** 200 with the result; 204 (no body) when the agent was already retired. */
  @Delete(':id')
  @RequirePermission('agent.retire')
  async retire(
    @Param('id') id: string,
    @Query() query: RetireAgentQuery,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<AgentRetirement | undefined> {
    const result = await this.bus.request(
      'deployment-dispatch.v1.retire-agent',
      { id, force: queryFlag(query.force), ...(query.reason !== undefined ? { reason: query.reason } : {}) },
      { context: busContext(request) },
    );
    if (result.already_retired) {
      response.status(204);
      return undefined;
    }
    response.status(200);
    return result;
  }
}
