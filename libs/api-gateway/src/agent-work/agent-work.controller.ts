import { Controller, Get, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import {
  AgentCertificateDto,
  AgentCertificateQuery,
  AgentCsrAccepted,
  AgentKeyBody,
  AgentKeyDto,
  agentActorId,
  CertlaneError,
  ErrorCode,
  JobDto,
  ReportAgentJobStatusBody,
  SubmitAgentCsrBody,
} from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus, validateDto } from '@certlane/platform';
import { Actor, actorOf, busContext } from '../auth/actor';
import { RequirePermission } from '../auth/route-access';

/**
 * An agent sees and touches only its own work: the caller's actor id must be `agent.<id>` (the
 * actor of the agent's API key), or the caller an admin (support). Checked before the body is
 * read, so another agent learns nothing from validation errors either.
 */
export function assertOwnWork(request: Request, agentId: string): void {
  assertOwnWorkOf(actorOf(request), agentId);
}

/** assertOwnWork for an actor already at hand. */
export function assertOwnWorkOf(actor: Actor | undefined, agentId: string): void {
  if (actor && (actor.admin || actor.id === agentActorId(agentId))) return;
  throw new CertlaneError(
    ErrorCode.Forbidden,
    `only agent ${JSON.stringify(agentId)} (API key actor ${agentActorId(agentId)}) or an admin may use its work routes`,
    { agent_id: agentId },
  );
}

/**
 * The agent work protocol (spec 4.7, ADR 0027) under /api/v1/agents/{id}: served by the issuance
 * service, which owns jobs (ADR 0024). Registration, heartbeat and retirement are
 * deployment-dispatch's (another controller); these paths have more segments, so they never
 * collide with `/agents/{id}` or `/agents/retired`.
 */
@Controller('api/v1/agents')
export class AgentWorkController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  /** 202: the CSR was checked and issued; the job is Completed and the version stored. */
  @Post(':id/csr')
  @HttpCode(202)
  @RequirePermission('agent.csr.submit')
  async csr(@Param('id') id: string, @Req() request: Request): Promise<AgentCsrAccepted> {
    assertOwnWork(request, id);
    const body = await validateDto(SubmitAgentCsrBody, request.body);
    return this.bus.request(
      'issuance.v1.submit-agent-csr',
      { ...body, agent_id: id },
      { context: busContext(request) },
    );
  }

  /** The issued certificate (current version, or `?version_id=`) with its chain; never a key. */
  @Get(':id/certificates/:certId')
  @RequirePermission('agent.work.poll')
  async certificate(
    @Param('id') id: string,
    @Param('certId') certId: string,
    @Req() request: Request,
  ): Promise<AgentCertificateDto> {
    assertOwnWork(request, id);
    const query = await validateDto(AgentCertificateQuery, { ...(request.query as object) });
    return this.bus.request(
      'issuance.v1.get-agent-certificate',
      { ...query, agent_id: id, certificate_id: certId },
      { context: busContext(request) },
    );
  }

  /**
   * A server-generated private key (SERVICE_KEYGEN_MODE=server), wrapped as a JWE to the ephemeral
   * P-256 key in the body (ADR 0033); never the plaintext. Audited by issuance.
   */
  @Post(':id/certificates/:certId/key')
  @HttpCode(200)
  @RequirePermission('agent.key.fetch')
  async key(
    @Param('id') id: string,
    @Param('certId') certId: string,
    @Req() request: Request,
  ): Promise<AgentKeyDto> {
    assertOwnWork(request, id);
    const body = await validateDto(AgentKeyBody, request.body);
    return this.bus.request(
      'issuance.v1.release-agent-certificate-key',
      { ...body, agent_id: id, certificate_id: certId },
      { context: busContext(request) },
    );
  }

  /** The job machine's `report` event: Running, Completed or Failed (with `error`). */
  @Post(':id/jobs/:jobId/status')
  @HttpCode(200)
  @RequirePermission('agent.job.report')
  async status(
    @Param('id') id: string,
    @Param('jobId') jobId: string,
    @Req() request: Request,
  ): Promise<JobDto> {
    assertOwnWork(request, id);
    const body = await validateDto(ReportAgentJobStatusBody, request.body);
    return this.bus.request(
      'issuance.v1.report-agent-job-status',
      { ...body, agent_id: id, job_id: jobId },
      { context: busContext(request) },
    );
  }
}
