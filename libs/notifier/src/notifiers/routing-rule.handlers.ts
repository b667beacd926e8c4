import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  AuditAction,
  CertlaneError,
  CreateRoutingRuleRequest,
  ErrorCode,
  Page,
  PageQuery,
  RequestContext,
  resolvePage,
  RoutingRuleDto,
  UpdateRoutingRuleRequest,
} from '@certlane/contracts';
import { NOTIFICATION_EVENT_TYPES } from '@certlane/notifier-domain';
import { MESSAGE_BUS, MessageBus, outboxToken, ServiceOutbox, SqlExecutor } from '@certlane/platform';
import { DataSource } from 'typeorm';
import { notifierAudit } from '../notifier-audit';

type RoutingRuleRow = Omit<RoutingRuleDto, 'created_at' | 'updated_at'> & {
  created_at: Date;
  updated_at: Date;
};

const COLUMNS =
  'id, name, enabled, event_types, min_severity, owner_ids, team_ids, environments, issuer_ids, notifier_ids, created_at, updated_at';
const LISTS = ['event_types', 'owner_ids', 'team_ids', 'environments', 'issuer_ids', 'notifier_ids'] as const;

const dto = (row: RoutingRuleRow): RoutingRuleDto => ({
  ...row,
  created_at: new Date(row.created_at).toISOString(),
  updated_at: new Date(row.updated_at).toISOString(),
});

/**
 * The notifier.v1.*-routing-rule subjects behind /api/v1/routing-rules (ADR 0056): the rules the
 * event consumers route by. Event types must be known ones and notifiers must exist; each change
 * writes one audit event through the outbox in its transaction.
 */
@Injectable()
export class RoutingRuleHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @InjectDataSource('notifier') private readonly dataSource: DataSource,
    @Inject(outboxToken('notifier')) private readonly outbox: ServiceOutbox,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('notifier.v1.list-routing-rules', (request) => this.list(request)),
      this.bus.handle('notifier.v1.get-routing-rule', async ({ id }) =>
        dto(await this.find(this.dataSource, id)),
      ),
      this.bus.handle('notifier.v1.create-routing-rule', (request, context) => this.create(request, context)),
      this.bus.handle('notifier.v1.update-routing-rule', (request, context) => this.update(request, context)),
      this.bus.handle('notifier.v1.delete-routing-rule', ({ id }, context) => this.remove(id, context)),
    ]);
  }

  private async list(request: PageQuery): Promise<Page<RoutingRuleDto>> {
    const page = resolvePage(request);
    const rows = (await this.dataSource.query(
      `SELECT ${COLUMNS} FROM routing_rules ORDER BY id LIMIT $1 OFFSET $2`,
      [page.per_page, page.offset],
    )) as RoutingRuleRow[];
    const [count] = (await this.dataSource.query('SELECT count(*)::int AS total FROM routing_rules')) as {
      total: number;
    }[];
    return { data: rows.map(dto), total: count.total, page: page.page, per_page: page.per_page };
  }

  private async find(executor: SqlExecutor, id: string, lock = false): Promise<RoutingRuleRow> {
    const rows = (await executor.query(
      `SELECT ${COLUMNS} FROM routing_rules WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    )) as RoutingRuleRow[];
    if (!rows[0]) throw new CertlaneError(ErrorCode.RoutingRuleNotFound, `routing rule ${id} not found`);
    return rows[0];
  }

  /** Known event types only; every named notifier must exist (a rule naming none routes nothing). */
  private async check(executor: SqlExecutor, rule: Pick<RoutingRuleDto, 'event_types' | 'notifier_ids'>) {
    const unknown = rule.event_types.filter(
      (type) => !(NOTIFICATION_EVENT_TYPES as readonly string[]).includes(type),
    );
    if (unknown.length)
      throw new CertlaneError(
        ErrorCode.ValidationFailed,
        `event_types: unknown ${unknown.join(', ')} (known: ${NOTIFICATION_EVENT_TYPES.join(', ')})`,
      );
    if (!rule.notifier_ids.length) return;
    const found = (await executor.query('SELECT id FROM notifiers WHERE id = ANY($1::text[])', [
      rule.notifier_ids,
    ])) as { id: string }[];
    const missing = rule.notifier_ids.filter((id) => !found.some((row) => row.id === id));
    if (missing.length)
      throw new CertlaneError(
        ErrorCode.ReferenceInvalid,
        `notifier_ids: ${missing.join(', ')} do not exist`,
        {
          field: 'notifier_ids',
        },
      );
  }

  private async create(
    request: CreateRoutingRuleRequest,
    context: RequestContext | undefined,
  ): Promise<RoutingRuleDto> {
    const rule = {
      id: request.id,
      name: request.name,
      enabled: request.enabled ?? true,
      min_severity: request.min_severity ?? 'info',
      ...Object.fromEntries(LISTS.map((key) => [key, [...new Set(request[key] ?? [])]])),
    } as Omit<RoutingRuleDto, 'created_at' | 'updated_at'>;
    const created = await this.dataSource.transaction(async (manager) => {
      await this.check(manager, rule);
      const rows = (await manager.query(
        `INSERT INTO routing_rules (id, name, enabled, min_severity, ${LISTS.join(', ')})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
        [rule.id, rule.name, rule.enabled, rule.min_severity, ...LISTS.map((key) => rule[key])],
      )) as RoutingRuleRow[];
      if (!rows[0]) throw new CertlaneError(ErrorCode.RoutingRuleExists, `routing rule ${rule.id} exists`);
      await this.outbox.audit(
        manager,
        notifierAudit('routing_rule', AuditAction.RoutingRuleCreated, rule.id, context, {
          notifier_ids: rule.notifier_ids,
        }),
      );
      return dto(rows[0]);
    });
    this.outbox.committed();
    return created;
  }

  private async update(
    request: UpdateRoutingRuleRequest,
    context: RequestContext | undefined,
  ): Promise<RoutingRuleDto> {
    const updated = await this.dataSource.transaction(async (manager) => {
      const row = await this.find(manager, request.id, true);
      const rule = {
        ...row,
        name: request.name ?? row.name,
        enabled: request.enabled ?? row.enabled,
        min_severity: request.min_severity ?? row.min_severity,
        ...Object.fromEntries(LISTS.map((key) => [key, [...new Set(request[key] ?? row[key])]])),
      } as RoutingRuleRow;
      await this.check(manager, rule);
      // TypeORM answers an UPDATE ... RETURNING as [rows, count].
      const [rows] = (await manager.query(
        `UPDATE routing_rules SET name = $2, enabled = $3, min_severity = $4, event_types = $5, owner_ids = $6,
                team_ids = $7, environments = $8, issuer_ids = $9, notifier_ids = $10, updated_at = now()
          WHERE id = $1 RETURNING ${COLUMNS}`,
        [rule.id, rule.name, rule.enabled, rule.min_severity, ...LISTS.map((key) => rule[key])],
      )) as [RoutingRuleRow[], number];
      const changed = (['name', 'enabled', 'min_severity', ...LISTS] as const).filter(
        (key) => request[key] !== undefined,
      );
      await this.outbox.audit(
        manager,
        notifierAudit('routing_rule', AuditAction.RoutingRuleUpdated, rule.id, context, { changed }),
      );
      return dto(rows[0]);
    });
    this.outbox.committed();
    return updated;
  }

  private async remove(id: string, context: RequestContext | undefined): Promise<{ id: string }> {
    await this.dataSource.transaction(async (manager) => {
      await this.find(manager, id, true);
      await manager.query('DELETE FROM routing_rules WHERE id = $1', [id]);
      await this.outbox.audit(
        manager,
        notifierAudit('routing_rule', AuditAction.RoutingRuleDeleted, id, context, {}),
      );
    });
    this.outbox.committed();
    return { id };
  }
}
