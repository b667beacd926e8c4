import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { GuardedHttp, networkList, OutboundHttp } from '@certlane/connectors';
import {
  AuditAction,
  CertlaneError,
  CreateNotifierRequest,
  ErrorCode,
  NotifierDto,
  NotifierKindValue,
  NotifierTestResult,
  Page,
  PageQuery,
  RequestContext,
  resolvePage,
  UpdateNotifierRequest,
} from '@certlane/contracts';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  MESSAGE_BUS,
  MessageBus,
  outboundTlsOptions,
  outboxToken,
  ServiceOutbox,
  SqlExecutor,
} from '@certlane/platform';
import { DELIVERY_LIMIT_SETTINGS, deliveryLimits } from '@certlane/notifier-domain';
import { DataSource } from 'typeorm';
import { InjectDataSource } from '@nestjs/typeorm';
import { CONNECTORS, NotifierDirectory } from './notifier.directory';
import { notifierAudit } from '../notifier-audit';

interface NotifierRow {
  id: string;
  name: string;
  kind: NotifierKindValue;
  settings: Record<string, unknown>;
  sealed_secrets: string | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, name, kind, settings, sealed_secrets, enabled, created_at, updated_at';

/** The settings keys a kind accepts: its connector's own and the delivery limits. */
function settingKeys(kind: NotifierKindValue): ReadonlySet<string> {
  return new Set([...CONNECTORS[kind].settingKeys, ...DELIVERY_LIMIT_SETTINGS]);
}

/**
 * Refuses settings keys the kind does not read, naming each key (never its value): a secret put
 * in `settings` by mistake would otherwise be stored and answered in clear.
 */
function refuseUnknownSettings(kind: NotifierKindValue, settings: Record<string, unknown>): void {
  const known = settingKeys(kind);
  const unknown = Object.keys(settings).filter((key) => !known.has(key));
  if (unknown.length === 0) return;
  const accepted = [...known].join(', ');
  throw CertlaneError.validation(
    unknown.map((key) => ({
      field: `settings.${key.slice(0, 100)}`,
      message: `settings.${key.slice(0, 100)} is not a setting of a ${kind} notifier (it takes ${accepted}); secrets go in secrets`,
    })),
  );
}

/**
 * The stored settings the kind reads. A row written before unknown keys were refused may hold
 * others; they never had an effect, are not answered (one may be a misplaced secret) and are
 * dropped by the next update.
 */
function knownSettings(kind: NotifierKindValue, settings: Record<string, unknown>): Record<string, unknown> {
  const known = settingKeys(kind);
  return Object.fromEntries(Object.entries(settings ?? {}).filter(([key]) => known.has(key)));
}

/**
 * The notifier.v1.*-notifier subjects behind /api/v1/notifiers (ADR 0056): CRUD with the secrets
 * sealed and write-only (answered by name only), and a test send through the real connector.
 * Every change writes one audit event through the outbox in its transaction.
 */
@Injectable()
export class NotifierHandlers implements OnApplicationBootstrap {
  private readonly http: OutboundHttp;

  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @InjectDataSource('notifier') private readonly dataSource: DataSource,
    private readonly directory: NotifierDirectory,
    @Inject(outboxToken('notifier')) private readonly outbox: ServiceOutbox,
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
  ) {
    this.http = new GuardedHttp({
      allowed: networkList(config.notifierAllowedNetworks),
      ca: outboundTlsOptions(config.outboundTls).ca,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('notifier.v1.list-notifiers', (request) => this.list(request)),
      this.bus.handle('notifier.v1.get-notifier', async ({ id }) =>
        this.dto(await this.find(this.dataSource, id)),
      ),
      this.bus.handle('notifier.v1.create-notifier', (request, context) => this.create(request, context)),
      this.bus.handle('notifier.v1.update-notifier', (request, context) => this.update(request, context)),
      this.bus.handle('notifier.v1.delete-notifier', ({ id }, context) => this.remove(id, context)),
      this.bus.handle('notifier.v1.test-notifier', ({ id }, context) => this.test(id, context)),
    ]);
  }

  private dto(row: NotifierRow, secretFields?: string[]): NotifierDto {
    let fields = secretFields;
    if (!fields) {
      try {
        fields = Object.keys(this.directory.open(row.id, row.sealed_secrets)).sort();
      } catch {
        fields = [];
      }
    }
    return {
      id: row.id,
      name: row.name,
      kind: row.kind,
      settings: knownSettings(row.kind, row.settings),
      secret_fields: fields,
      enabled: row.enabled,
      created_at: new Date(row.created_at).toISOString(),
      updated_at: new Date(row.updated_at).toISOString(),
    };
  }

  private async list(request: PageQuery): Promise<Page<NotifierDto>> {
    const page = resolvePage(request);
    const rows = (await this.dataSource.query(
      `SELECT ${COLUMNS} FROM notifiers ORDER BY id LIMIT $1 OFFSET $2`,
      [page.per_page, page.offset],
    )) as NotifierRow[];
    const [count] = (await this.dataSource.query('SELECT count(*)::int AS total FROM notifiers')) as {
      total: number;
    }[];
    return {
      data: rows.map((row) => this.dto(row)),
      total: count.total,
      page: page.page,
      per_page: page.per_page,
    };
  }

  private async find(executor: SqlExecutor, id: string, lock = false): Promise<NotifierRow> {
    const rows = (await executor.query(
      `SELECT ${COLUMNS} FROM notifiers WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    )) as NotifierRow[];
    if (!rows[0]) throw new CertlaneError(ErrorCode.NotifierNotFound, `notifier ${id} not found`);
    return rows[0];
  }

  /** The connector's own check of settings plus secrets (the same one the sweep applies). */
  private check(
    kind: NotifierKindValue,
    settings: Record<string, unknown>,
    secrets: Record<string, unknown>,
  ): void {
    const parsed = CONNECTORS[kind].parse(settings, secrets);
    if (parsed && typeof parsed === 'object' && 'invalid' in parsed)
      throw new CertlaneError(
        ErrorCode.NotifierConfigInvalid,
        `notifier config: ${(parsed as { invalid: string }).invalid}`,
      );
    const limits = deliveryLimits(kind, settings);
    if ('invalid' in limits)
      throw new CertlaneError(ErrorCode.NotifierConfigInvalid, `notifier config: ${limits.invalid}`);
  }

  private async create(
    request: CreateNotifierRequest,
    context: RequestContext | undefined,
  ): Promise<NotifierDto> {
    const settings = request.settings ?? {};
    const secrets = request.secrets ?? {};
    refuseUnknownSettings(request.kind, settings);
    this.check(request.kind, settings, secrets);
    const dto = await this.dataSource.transaction(async (manager) => {
      const rows = (await manager.query(
        `INSERT INTO notifiers (id, name, kind, settings, sealed_secrets, enabled)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
        [
          request.id,
          request.name,
          request.kind,
          JSON.stringify(settings),
          Object.keys(secrets).length ? this.directory.seal(request.id, secrets) : null,
          request.enabled ?? true,
        ],
      )) as NotifierRow[];
      if (!rows[0])
        throw new CertlaneError(
          ErrorCode.NotifierExists,
          `a notifier with id ${request.id} or that name exists`,
        );
      await this.outbox.audit(
        manager,
        notifierAudit('notifier', AuditAction.NotifierCreated, request.id, context, {
          kind: request.kind,
          secret_fields: Object.keys(secrets).sort(),
        }),
      );
      return this.dto(rows[0], Object.keys(secrets).sort());
    });
    this.outbox.committed();
    return dto;
  }

  private async update(
    request: UpdateNotifierRequest,
    context: RequestContext | undefined,
  ): Promise<NotifierDto> {
    const dto = await this.dataSource.transaction(async (manager) => {
      const row = await this.find(manager, request.id, true);
      if (request.settings) refuseUnknownSettings(row.kind, request.settings);
      const settings = request.settings ?? knownSettings(row.kind, row.settings);
      let secrets: Record<string, unknown>;
      if (request.secrets) secrets = request.secrets;
      else {
        const moved = (CONNECTORS[row.kind].secretDestinations ?? []).filter(
          (key) => JSON.stringify(settings[key]) !== JSON.stringify(row.settings[key]),
        );
        if (row.sealed_secrets && moved.length > 0)
          throw new CertlaneError(
            ErrorCode.NotifierConfigInvalid,
            `changing ${moved.join(', ')} would send the stored secrets to a new destination: send the secrets again`,
            { fields: moved },
          );
        try {
          secrets = this.directory.open(row.id, row.sealed_secrets);
        } catch {
          throw new CertlaneError(
            ErrorCode.NotifierConfigInvalid,
            'the stored secrets do not open (was SERVICE_CONFIG_ENCRYPTION_KEY changed?): send secrets again',
          );
        }
      }
      this.check(row.kind, settings, secrets);
      const name = request.name ?? row.name;
      // TypeORM answers an UPDATE ... RETURNING as [rows, count].
      const [rows] = (await manager.query(
        `UPDATE notifiers SET name = $2::text, settings = $3::jsonb, sealed_secrets = $4::text, enabled = $5::boolean, updated_at = now()
          WHERE id = $1::text AND NOT EXISTS (SELECT 1 FROM notifiers other WHERE other.name = $2::text AND other.id <> $1::text)
          RETURNING ${COLUMNS}`,
        [
          row.id,
          name,
          JSON.stringify(settings),
          Object.keys(secrets).length ? this.directory.seal(row.id, secrets) : null,
          request.enabled ?? row.enabled,
        ],
      )) as [NotifierRow[], number];
      if (!rows[0]) throw new CertlaneError(ErrorCode.NotifierExists, `another notifier is named ${name}`);
      const changed = (['name', 'settings', 'secrets', 'enabled'] as const).filter(
        (key) => request[key] !== undefined,
      );
      await this.outbox.audit(
        manager,
        notifierAudit('notifier', AuditAction.NotifierUpdated, row.id, context, { changed }),
      );
      return this.dto(rows[0], Object.keys(secrets).sort());
    });
    this.outbox.committed();
    return dto;
  }

  /** Its notifications stay: the sweep moves undelivered ones to sent (spec 3, notifier missing). */
  private async remove(id: string, context: RequestContext | undefined): Promise<{ id: string }> {
    await this.dataSource.transaction(async (manager) => {
      const row = await this.find(manager, id, true);
      await manager.query('DELETE FROM notifiers WHERE id = $1', [id]);
      await this.outbox.audit(
        manager,
        notifierAudit('notifier', AuditAction.NotifierDeleted, id, context, { kind: row.kind }),
      );
    });
    this.outbox.committed();
    return { id };
  }

  /** Sends one `notifier.test` notification now (enabled or not), records nothing but the audit event. */
  private async test(id: string, context: RequestContext | undefined): Promise<NotifierTestResult> {
    const row = await this.find(this.dataSource, id);
    const loaded = await this.directory.load(this.dataSource, id);
    let result: NotifierTestResult;
    if (!loaded.found) throw new CertlaneError(ErrorCode.NotifierNotFound, `notifier ${id} not found`);
    if ('unusable' in loaded) result = { delivered: false, error: loaded.unusable };
    else {
      const notificationId = randomUUID();
      const now = new Date();
      try {
        const sent = await loaded.connector.send(
          loaded.config,
          {
            id: notificationId,
            event_type: 'notifier.test',
            severity: 'info',
            title: `Certlane test notification for notifier ${row.name}`,
            dedup_key: `notifier.test:${id}:${notificationId}`,
            certificate_id: null,
            recipients: [],
            details: { notifier_id: id },
            occurred_at: now.toISOString(),
          },
          this.http,
          now,
        );
        result = sent.ok ? { delivered: true, error: null } : { delivered: false, error: sent.error };
      } catch (error) {
        // A refused address, a timeout, a TLS failure: the answer to a test, not a server error.
        result = { delivered: false, error: error instanceof Error ? error.message : String(error) };
      }
      result.error = result.error?.slice(0, 1000) ?? null;
    }
    await this.dataSource.transaction((manager) =>
      this.outbox.audit(
        manager,
        notifierAudit('notifier', AuditAction.NotifierTested, id, context, { delivered: result.delivered }),
      ),
    );
    this.outbox.committed();
    return result;
  }
}
