import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  AGENT_ACTOR_PREFIX,
  agentActorId,
  AgentDependencyCounts,
  AgentDto,
  AgentSummary,
  AgentHeartbeatRequest,
  AgentRegistered,
  AgentRetirement,
  AuditAction,
  auditOrigin,
  AuditRecord,
  CertlaneError,
  ErrorCode,
  ListAgentsRequest,
  Page,
  RegisterAgentRequest,
  RequestContext,
  resolvePage,
  RetireAgentRequest,
  RetiredAgentKeyAnswer,
  RetiredAgentKeyRequest,
  SYSTEM_ACTOR,
} from '@certlane/contracts';
import { agentStatusCutoffs, decideRetirement, isSentinelAgent } from '@certlane/deployment-dispatch-domain';
import {
  CertlaneLogger,
  isUniqueViolation,
  LOGGER,
  MESSAGE_BUS,
  MessageBus,
  outboxToken,
  ServiceOutbox,
} from '@certlane/platform';
import { agentDto, AgentRepository, AgentRow } from './agent.repository';

/** The role every agent key gets (libs/contracts DEFAULT_ROLES). */
export const AGENT_ROLE_ID = 'r-agent';

export const agentNotFound = (id: string) =>
  new CertlaneError(ErrorCode.AgentNotFound, `agent ${JSON.stringify(id)} not found`);

const agentAudit = (
  action: string,
  id: string,
  context: RequestContext | undefined,
  details: Record<string, unknown>,
): AuditRecord => ({
  action,
  event_category: 'config',
  ...auditOrigin(context),
  resource_type: 'agent',
  resource_id: id,
  outcome: 'success',
  details,
});

/** A request id for a side request of `context`'s request (so that request keeps its one audit record). */
export function sideRequestId(context: RequestContext | undefined, suffix: string): string {
  const base = context?.request_id ?? randomBytes(8).toString('hex');
  return `${base.slice(0, 127 - suffix.length)}:${suffix}`;
}

export const sha256Hex = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

/** Agents (spec 2.4, 4.7; ADR 0026): registration with a per-agent key, heartbeat, retirement. */
@Injectable()
export class AgentService {
  constructor(
    private readonly repository: AgentRepository,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(outboxToken('deployment-dispatch')) private readonly outbox: ServiceOutbox,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {}

  async list(request: ListAgentsRequest, retired: boolean): Promise<Page<AgentDto>> {
    const page = resolvePage(request);
    const { rows, total } = await this.repository.list(page, retired);
    const now = new Date();
    return { data: rows.map((row) => agentDto(row, now)), total, page: page.page, per_page: page.per_page };
  }

  /** GET /agents/summary: the fleet by status, counted in SQL with the list's status rules. */
  async summary(): Promise<AgentSummary> {
    const now = new Date();
    const counts = await this.repository.summary(agentStatusCutoffs(now));
    return {
      ...counts,
      offline: counts.total - counts.online - counts.degraded,
      generated_at: now.toISOString(),
    };
  }

  async get(id: string): Promise<AgentDto> {
    const row = await this.repository.find(id);
    if (!row) throw agentNotFound(id);
    return agentDto(row);
  }

  /**
   * Registers an agent and mints its API key through the auth service (actor `agent.<id>`, role
   * r-agent). The key is returned this once; only its SHA-256 is stored here. The auth service
   * audits the key's creation under a side request id, so the registration keeps one record.
   */
  async register(request: RegisterAgentRequest, context?: RequestContext): Promise<AgentRegistered> {
    const id = request.id ?? `agent-${randomBytes(8).toString('hex')}`;
    const alreadyRegistered = (what: string) =>
      new CertlaneError(ErrorCode.AgentExists, `an agent with this ${what} is already registered`, {
        field: what === 'id' ? 'id' : 'name',
      });
    const taken = isSentinelAgent(id) ? 'id' : await this.repository.taken(id, request.name);
    if (taken) throw alreadyRegistered(taken);

    const actor = context?.actor_id ?? SYSTEM_ACTOR;
    let key: { id: string; key: string };
    try {
      key = await this.bus.request(
        'auth.v1.create-api-key',
        { name: agentActorId(id), actor_id: agentActorId(id), role_ids: [AGENT_ROLE_ID], created_by: actor },
        { context: { actor_id: actor, request_id: sideRequestId(context, 'agent-key') } },
      );
    } catch (error) {
      if (error instanceof CertlaneError && error.code === ErrorCode.ApiKeyNameTaken)
        throw alreadyRegistered('id');
      throw error;
    }

    try {
      const row = await this.repository.transaction(async (manager) => {
        const inserted = await this.repository.insert(manager, {
          id,
          name: request.name,
          hostname: request.hostname,
          apiKeyHash: sha256Hex(key.key),
          apiKeyId: key.id,
        });
        const dto = agentDto(inserted);
        await this.outbox.add(
          manager,
          'deployment-dispatch.v1.agent.registered',
          { agent: dto },
          context?.actor_id,
        );
        await this.outbox.audit(
          manager,
          agentAudit(AuditAction.AgentRegistered, id, context, {
            name: dto.name,
            hostname: dto.hostname,
            key_id: key.id,
            key_actor_id: agentActorId(id),
          }),
        );
        return inserted;
      });
      this.outbox.committed();
      return { agent: agentDto(row), api_key: key.key };
    } catch (error) {
      // The key must not outlive a registration that did not happen.
      await this.bus
        .request(
          'auth.v1.delete-api-key',
          { id: key.id },
          { context: { actor_id: actor, request_id: sideRequestId(context, 'agent-key-undo') } },
        )
        .catch((undo: unknown) =>
          this.logger.error(
            { err: undo, key_id: key.id },
            'could not delete the key of a failed agent registration',
          ),
        );
      if (isUniqueViolation(error)) throw alreadyRegistered('name');
      throw error;
    }
  }

  /**
   * Records a heartbeat and the host facts sent with it. An agent's own key may only heartbeat for
   * its own id (403); unknown agents are 404, retired ones 410 (the agent process exits).
   */
  async heartbeat(request: AgentHeartbeatRequest, context?: RequestContext): Promise<AgentDto> {
    const { id, ...facts } = request;
    const actor = context?.actor_id ?? '';
    if (actor.startsWith(AGENT_ACTOR_PREFIX) && actor !== agentActorId(id)) {
      throw new CertlaneError(ErrorCode.Forbidden, 'an agent may only send heartbeats for itself');
    }
    const row = await this.repository.heartbeat(id, facts);
    if (row) return agentDto(row);
    const existing = await this.repository.find(id);
    if (!existing) throw agentNotFound(id);
    throw new CertlaneError(ErrorCode.AgentRetired, `agent ${JSON.stringify(id)} is retired`);
  }

  /**
   * Whether the key (by its SHA-256) is retired agent `id`'s own. Its key is revoked at retirement,
   * so the gateway asks this when such a key is refused on the agent's heartbeat: yes makes the
   * answer 410 instead of 401 (spec 3, 4.7; ADR 0042).
   */
  async identifyRetiredKey(request: RetiredAgentKeyRequest): Promise<RetiredAgentKeyAnswer> {
    return { retired: await this.repository.isRetiredAgentKey(request.id, request.key_hash) };
  }

  /** What issuance holds for the agent, plus its active targets. */
  private async dependencies(id: string): Promise<AgentDependencyCounts> {
    const [issuance, activeTargets] = await Promise.all([
      this.bus.request('issuance.v1.count-agent-dependencies', { agent_id: id }),
      this.repository.activeTargetCount(id),
    ]);
    return { active_targets: activeTargets, ...issuance };
  }

  /**
   * DELETE /api/v1/agents/{id} (spec 3, 4.7): sentinels 403; force without reason 400; retired
   * 204 (no change, no audit); dependencies without force 409 with the counts; otherwise retired,
   * with force also its targets, in one transaction. The key is revoked after the commit by the
   * consumer of `deployment-dispatch.v1.agent.retired` (retried until the auth service confirms).
   */
  async retire(request: RetireAgentRequest, context?: RequestContext): Promise<AgentRetirement> {
    const zero: AgentDependencyCounts = { active_targets: 0, active_certificates: 0, pending_jobs: 0 };
    const force = request.force === true;
    const early = decideRetirement({
      id: request.id,
      retired: false,
      force,
      reason: request.reason,
      counts: zero,
    });
    if (early.outcome === 'sentinel') {
      throw new CertlaneError(
        ErrorCode.AgentSentinel,
        `agent ${JSON.stringify(request.id)} is a reserved sentinel agent and cannot be retired`,
      );
    }
    if (early.outcome === 'reason_required') {
      throw CertlaneError.validation([{ field: 'reason', message: 'reason is required when force is true' }]);
    }
    const found = await this.repository.find(request.id);
    if (!found) throw agentNotFound(request.id);
    const unchanged = (row: AgentRow): AgentRetirement => ({
      already_retired: true,
      agent: agentDto(row),
      forced: false,
      counts: zero,
      retired_target_ids: [],
    });
    if (found.retired_at) return unchanged(found);

    const outside = await this.dependencies(request.id);
    const result = await this.repository.transaction(async (manager) => {
      const agent = await this.repository.find(request.id, manager, true);
      if (!agent) throw agentNotFound(request.id);
      // Targets are counted again under the agent's row lock: target writes lock it too.
      const counts = {
        ...outside,
        active_targets: await this.repository.activeTargetCount(request.id, manager),
      };
      const decision = decideRetirement({
        id: agent.id,
        retired: agent.retired_at !== null,
        force,
        reason: request.reason,
        counts,
      });
      if (decision.outcome === 'already_retired') return unchanged(agent);
      if (decision.outcome === 'blocked') {
        throw new CertlaneError(
          ErrorCode.AgentHasDependencies,
          `agent ${JSON.stringify(agent.id)} has active dependencies; retire with force=true and a reason`,
          { counts },
        );
      }
      if (decision.outcome !== 'retire')
        throw new Error(`unexpected retirement decision ${decision.outcome}`);
      const retiredTargets = decision.cascade ? await this.repository.retireTargetsOf(manager, agent.id) : [];
      const retired = await this.repository.retire(manager, agent.id, decision.reason);
      await this.outbox.add(
        manager,
        'deployment-dispatch.v1.agent.retired',
        {
          agent_id: agent.id,
          api_key_id: agent.api_key_id,
          forced: force,
          retired_target_ids: retiredTargets,
          reason: decision.reason,
        },
        context?.actor_id,
      );
      await this.outbox.audit(
        manager,
        agentAudit(AuditAction.AgentRetired, agent.id, context, {
          forced: force,
          reason: decision.reason,
          counts,
        }),
      );
      if (decision.cascade) {
        await this.outbox.audit(
          manager,
          agentAudit(AuditAction.AgentRetirementCascaded, agent.id, context, {
            reason: decision.reason,
            counts,
            retired_target_ids: retiredTargets,
          }),
        );
      }
      return {
        already_retired: false,
        agent: agentDto(retired),
        forced: force,
        counts,
        retired_target_ids: retiredTargets,
      };
    });
    this.outbox.committed();
    return result;
  }

  /** Revokes a retired agent's key at the auth service; a key already gone counts as revoked. */
  async revokeKey(agentId: string, apiKeyId: string | null): Promise<void> {
    if (apiKeyId) {
      try {
        await this.bus.request(
          'auth.v1.delete-api-key',
          { id: apiKeyId },
          { context: { actor_id: SYSTEM_ACTOR, request_id: `agent-retired:${agentId}`.slice(0, 128) } },
        );
      } catch (error) {
        if (!(error instanceof CertlaneError && error.code === ErrorCode.ApiKeyNotFound)) throw error;
      }
    }
    await this.repository.markKeyRevoked(agentId);
  }
}
