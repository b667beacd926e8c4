import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  AuditAction,
  auditOrigin,
  AuditRecord,
  CertlaneError,
  CreateTargetRequest,
  ErrorCode,
  ListTargetsRequest,
  Page,
  RequestContext,
  resolvePage,
  TargetCheck,
  TargetDeleted,
  TargetDto,
  TargetTestResult,
  TargetType,
  UpdateTargetRequest,
} from '@certlane/contracts';
import {
  agentStatus,
  mergeRedactedTargetSecrets,
  redactTargetConfig,
  TARGET_TYPE_SPECS,
  unresolvedRedactions,
  validateTargetConfig,
} from '@certlane/deployment-dispatch-domain';
import { outboxToken, ServiceOutbox } from '@certlane/platform';
import { EntityManager } from 'typeorm';
import { ConnectionProbe } from './connection-probe';
import { TargetSecrets } from './target-secrets';
import { targetDto, TargetRepository } from './target.repository';

export const targetNotFound = (id: string) =>
  new CertlaneError(ErrorCode.TargetNotFound, `target ${JSON.stringify(id)} not found`);

const targetAudit = (
  action: string,
  id: string,
  context: RequestContext | undefined,
  details: Record<string, unknown>,
): AuditRecord => ({
  action,
  event_category: 'config',
  ...auditOrigin(context),
  resource_type: 'target',
  resource_id: id,
  outcome: 'success',
  details,
});

function checkConfig(type: TargetType, config: Record<string, unknown>): void {
  const problems = validateTargetConfig(type, config);
  const unresolved = unresolvedRedactions(config).map((field) => ({
    field,
    message: `config.${field} is redacted but no secret is stored for it`,
  }));
  const all = [...problems, ...unresolved];
  if (all.length > 0) {
    throw new CertlaneError(ErrorCode.TargetConfigInvalid, all.map((p) => p.message).join('; '), {
      fields: all.map(({ field, message }) => ({ field, message })),
    });
  }
}

/** Targets (spec 2.12, 4.5; ADR 0026): config validated per kind, sealed at rest, redacted when shown. */
@Injectable()
export class TargetService {
  constructor(
    private readonly repository: TargetRepository,
    private readonly secrets: TargetSecrets,
    private readonly probe: ConnectionProbe,
    @Inject(outboxToken('deployment-dispatch')) private readonly outbox: ServiceOutbox,
  ) {}

  async list(request: ListTargetsRequest): Promise<Page<TargetDto>> {
    const page = resolvePage(request);
    const { rows, total } = await this.repository.list(page, {
      agent_id: request.agent_id,
      type: request.type,
      include_retired: request.include_retired === 'true',
    });
    return { data: rows.map(targetDto), total, page: page.page, per_page: page.per_page };
  }

  async get(id: string): Promise<TargetDto> {
    const row = await this.repository.find(id);
    if (!row) throw targetNotFound(id);
    return targetDto(row);
  }

  /** An agent-run kind needs an agent; any agent named must exist and not be retired (400). */
  private async checkAgent(manager: EntityManager, type: TargetType, agentId: string | null): Promise<void> {
    if (agentId === null) {
      if (TARGET_TYPE_SPECS[type].agentRun) {
        throw CertlaneError.validation([
          { field: 'agent_id', message: `agent_id is required for ${type} targets` },
        ]);
      }
      return;
    }
    const agent = await this.repository.lockAgent(manager, agentId);
    if (!agent || agent.retired) {
      throw new CertlaneError(
        ErrorCode.ReferenceInvalid,
        `agent_id ${JSON.stringify(agentId)} ${agent ? 'is retired' : 'does not exist'}`,
        { field: 'agent_id' },
      );
    }
  }

  async create(request: CreateTargetRequest, context?: RequestContext): Promise<TargetDto> {
    const config = request.config ?? {};
    checkConfig(request.type, config);
    const id = request.id ?? `tgt-${randomBytes(8).toString('hex')}`;
    const created = await this.repository.transaction(async (manager) => {
      const agentId = request.agent_id ?? null;
      await this.checkAgent(manager, request.type, agentId);
      const row = await this.repository.insert(manager, id, request.type, {
        name: request.name,
        agent_id: agentId,
        config_sealed: this.secrets.seal(id, config),
        config_public: redactTargetConfig(config),
        endpoint: request.endpoint ?? null,
      });
      const dto = targetDto(row);
      await this.outbox.add(manager, 'deployment-dispatch.v1.target.created', dto, context?.actor_id);
      await this.outbox.audit(manager, targetAudit(AuditAction.TargetCreated, id, context, { target: dto }));
      return dto;
    });
    this.outbox.committed();
    return created;
  }

  async update(request: UpdateTargetRequest, context?: RequestContext): Promise<TargetDto> {
    const updated = await this.repository.transaction(async (manager) => {
      const current = await this.repository.find(request.id, manager, true);
      if (!current) throw targetNotFound(request.id);
      if (request.type !== undefined && request.type !== current.kind) {
        throw new CertlaneError(
          ErrorCode.TargetConfigInvalid,
          `a target's type cannot change (${current.kind} to ${request.type}); create a new target`,
          { fields: [{ field: 'type', message: 'type cannot change' }] },
        );
      }
      const stored = this.secrets.open(current.id, current.config_sealed);
      const config = request.config ? mergeRedactedTargetSecrets(stored, request.config) : stored;
      checkConfig(current.kind, config);
      const agentId = request.agent_id === undefined ? current.agent_id : request.agent_id;
      if (agentId !== current.agent_id || agentId === null)
        await this.checkAgent(manager, current.kind, agentId);
      const row = await this.repository.update(manager, current.id, {
        name: request.name ?? current.name,
        agent_id: agentId,
        config_sealed: this.secrets.seal(current.id, config),
        config_public: redactTargetConfig(config),
        endpoint: request.endpoint === undefined ? current.endpoint : request.endpoint,
      });
      const dto = targetDto(row);
      const changed = (['name', 'agent_id', 'config', 'endpoint'] as const).filter(
        (f) => request[f] !== undefined,
      );
      await this.outbox.add(manager, 'deployment-dispatch.v1.target.updated', dto, context?.actor_id);
      await this.outbox.audit(
        manager,
        targetAudit(AuditAction.TargetUpdated, current.id, context, { changed_fields: changed, target: dto }),
      );
      return dto;
    });
    this.outbox.committed();
    return updated;
  }

  async delete(id: string, context?: RequestContext): Promise<TargetDeleted> {
    await this.repository.transaction(async (manager) => {
      const current = await this.repository.find(id, manager, true);
      if (!current || !(await this.repository.delete(manager, id))) throw targetNotFound(id);
      await this.outbox.add(manager, 'deployment-dispatch.v1.target.deleted', { id }, context?.actor_id);
      await this.outbox.audit(
        manager,
        targetAudit(AuditAction.TargetDeleted, id, context, {
          type: current.kind,
          agent_id: current.agent_id,
        }),
      );
    });
    this.outbox.committed();
    return { id };
  }

  /**
   * The connection test (spec 4.5): the stored config against its kind, the agent (exists, not
   * retired, its status), and when the target has an endpoint a TCP connect and TLS handshake to it.
   * Audited as target.tested with the result; 200 whatever the outcome.
   */
  async test(id: string, context?: RequestContext): Promise<TargetTestResult> {
    const row = await this.repository.find(id);
    if (!row) throw targetNotFound(id);
    const checks: TargetCheck[] = [];
    const problems = validateTargetConfig(row.kind, this.secrets.open(row.id, row.config_sealed));
    checks.push(
      problems.length === 0
        ? { name: 'config', ok: true, message: `config is valid for ${row.kind}` }
        : { name: 'config', ok: false, message: problems.map((p) => p.message).join('; ') },
    );
    if (row.agent_id) {
      const agent = await this.repository.agentState(row.agent_id);
      checks.push(
        !agent
          ? { name: 'agent', ok: false, message: `agent ${row.agent_id} does not exist` }
          : agent.retired
            ? { name: 'agent', ok: false, message: `agent ${row.agent_id} is retired` }
            : {
                name: 'agent',
                ok: true,
                message: `agent ${row.agent_id} is ${agentStatus({ ...agent, retired_at: null }, new Date())}`,
              },
      );
    }
    if (row.endpoint) checks.push(...(await this.probe.probe(row.endpoint)));
    else checks.push({ name: 'reachability', ok: true, message: 'skipped: the target has no endpoint' });
    const result: TargetTestResult = {
      target_id: row.id,
      status: checks.every((check) => check.ok) ? 'ok' : 'failed',
      checks,
      tested_at: new Date().toISOString(),
    };
    await this.repository.transaction((manager) =>
      this.outbox.audit(
        manager,
        targetAudit(AuditAction.TargetTested, row.id, context, { status: result.status, checks }),
      ),
    );
    this.outbox.committed();
    return result;
  }
}
