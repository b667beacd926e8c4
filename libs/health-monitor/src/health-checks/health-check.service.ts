import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  AuditAction,
  auditOrigin,
  AuditRecord,
  CertlaneError,
  CreateHealthCheckRequest,
  ErrorCode,
  HEALTH_CHECK_INTERVAL_DEFAULT,
  HealthCheckStartTls,
  HealthCheckDeleted,
  HealthCheckDto,
  HealthCheckResultDto,
  HealthCheckSummary,
  ListHealthCheckHistoryRequest,
  ListHealthChecksRequest,
  Page,
  RequestContext,
  resolvePage,
  UpdateHealthCheckRequest,
} from '@certlane/contracts';
import { firstDueAt, nextHealthState, normalizeFingerprint } from '@certlane/health-monitor-domain';
import { outboxToken, ServiceOutbox } from '@certlane/platform';
import {
  HealthCheckRepository,
  HealthCheckRow,
  HealthCheckSettings,
  healthCheckDto,
} from './health-check.repository';
import { MONITOR_CLOCK, MonitorClock } from './monitor-clock';

export const healthCheckNotFound = (id: string) =>
  new CertlaneError(ErrorCode.HealthCheckNotFound, `health check ${JSON.stringify(id)} not found`);

/** Health checks are monitoring configuration (spec 6.1 category `config`). */
const healthAudit = (
  action: string,
  id: string,
  context: RequestContext | undefined,
  details: Record<string, unknown>,
): AuditRecord => ({
  action,
  event_category: 'config',
  ...auditOrigin(context),
  resource_type: 'health_check',
  resource_id: id,
  outcome: 'success',
  details,
});

const fingerprintOrNull = (value: string | null | undefined) =>
  value === null || value === undefined ? null : normalizeFingerprint(value);

/** The eight health-check operations (spec 2.13, 4.12; ADR 0057). Probing is HealthMonitorLoop's. */
@Injectable()
export class HealthCheckService {
  constructor(
    private readonly repository: HealthCheckRepository,
    @Inject(outboxToken('health-monitor')) private readonly outbox: ServiceOutbox,
    @Inject(MONITOR_CLOCK) private readonly clock: MonitorClock,
  ) {}

  list(request: ListHealthChecksRequest): Promise<Page<HealthCheckDto>> {
    return this.repository.list(resolvePage(request), request.status);
  }

  summary(): Promise<HealthCheckSummary> {
    return this.repository.summary(this.clock.now());
  }

  async get(id: string): Promise<HealthCheckDto> {
    const row = await this.repository.find(id);
    if (!row) throw healthCheckNotFound(id);
    return healthCheckDto(row);
  }

  async history(request: ListHealthCheckHistoryRequest): Promise<Page<HealthCheckResultDto>> {
    if (!(await this.repository.find(request.id))) throw healthCheckNotFound(request.id);
    return this.repository.history(request.id, resolvePage(request));
  }

  async create(request: CreateHealthCheckRequest, context?: RequestContext): Promise<HealthCheckDto> {
    const id = `hc-${randomBytes(8).toString('hex')}`;
    const starttls = request.starttls ?? null;
    const port = request.port ?? defaultPort(starttls);
    const settings: HealthCheckSettings = {
      name: request.name ?? `${request.host}:${port}`,
      host: request.host,
      port,
      sni: request.sni ?? null,
      starttls,
      expected_fingerprint: fingerprintOrNull(request.expected_fingerprint),
      interval_seconds: request.interval_seconds ?? HEALTH_CHECK_INTERVAL_DEFAULT,
      enabled: request.enabled ?? true,
    };
    const dto = await this.repository.transaction(async (manager) => {
      const due = firstDueAt(id, settings.interval_seconds, this.clock.now());
      const dto = healthCheckDto(await this.repository.insert(manager, id, settings, due));
      await this.outbox.add(manager, 'health-monitor.v1.health-check.created', dto, context?.actor_id);
      await this.outbox.audit(
        manager,
        healthAudit(AuditAction.HealthCheckCreated, id, context, { health_check: dto }),
      );
      return dto;
    });
    this.outbox.committed();
    return dto;
  }

  async update(request: UpdateHealthCheckRequest, context?: RequestContext): Promise<HealthCheckDto> {
    const { id, ...changes } = request;
    const dto = await this.repository.transaction(async (manager) => {
      const current = await this.repository.find(id, manager, true);
      if (!current) throw healthCheckNotFound(id);
      const settings: HealthCheckSettings = {
        name: changes.name ?? current.name,
        host: changes.host ?? current.host,
        port: changes.port ?? current.port,
        sni: changes.sni !== undefined ? changes.sni : current.sni,
        starttls: changes.starttls !== undefined ? changes.starttls : current.starttls,
        expected_fingerprint:
          changes.expected_fingerprint !== undefined
            ? fingerprintOrNull(changes.expected_fingerprint)
            : current.expected_fingerprint,
        interval_seconds: changes.interval_seconds ?? current.interval_seconds,
        enabled: changes.enabled ?? current.enabled,
      };
      // A new interval takes effect at once, at the check's phase in the new interval.
      const due =
        settings.interval_seconds !== current.interval_seconds
          ? firstDueAt(id, settings.interval_seconds, this.clock.now())
          : current.next_check_at;
      const dto = healthCheckDto(await this.repository.updateSettings(manager, id, settings, due));
      await this.outbox.add(manager, 'health-monitor.v1.health-check.updated', dto, context?.actor_id);
      await this.outbox.audit(
        manager,
        healthAudit(AuditAction.HealthCheckUpdated, id, context, {
          changed_fields: Object.keys(changes)
            .filter((key) => (changes as Record<string, unknown>)[key] !== undefined)
            .sort(),
          health_check: dto,
        }),
      );
      return dto;
    });
    this.outbox.committed();
    return dto;
  }

  async delete(id: string, context?: RequestContext): Promise<HealthCheckDeleted> {
    await this.repository.transaction(async (manager) => {
      // Its history goes with it (ON DELETE CASCADE).
      if (!(await this.repository.delete(manager, id))) throw healthCheckNotFound(id);
      await this.outbox.add(manager, 'health-monitor.v1.health-check.deleted', { id }, context?.actor_id);
      await this.outbox.audit(manager, healthAudit(AuditAction.HealthCheckDeleted, id, context, {}));
    });
    this.outbox.committed();
    return { id };
  }

  /** Silences the current status until it changes (ADR 0057); 409 on a healthy check. */
  async acknowledge(id: string, context?: RequestContext): Promise<HealthCheckDto> {
    const dto = await this.repository.transaction(async (manager) => {
      const current = await this.repository.find(id, manager, true);
      if (!current) throw healthCheckNotFound(id);
      const transition = nextHealthState(stateOf(current), { kind: 'acknowledge' });
      if (!transition.ok) throw new CertlaneError(ErrorCode.HealthCheckNotAlerting, transition.message);
      const alreadyAcknowledged = current.acknowledged_at !== null;
      const row = alreadyAcknowledged
        ? current
        : await this.repository.updateProgress(manager, id, {
            ...current,
            acknowledged_at: this.clock.now(),
            acknowledged_by: auditOrigin(context).actor_id,
          });
      const dto = healthCheckDto(row);
      await this.outbox.audit(
        manager,
        healthAudit(AuditAction.HealthCheckAcknowledged, id, context, {
          status: dto.status,
          already_acknowledged: alreadyAcknowledged,
        }),
      );
      return dto;
    });
    this.outbox.committed();
    return dto;
  }
}

export function stateOf(row: HealthCheckRow) {
  return {
    status: row.status,
    consecutiveFailures: row.consecutive_failures,
    acknowledged: row.acknowledged_at !== null,
  };
}

/** The port a check is made on when none is given: the protocol's own (SMTP 25, IMAP 143), else 443. */
function defaultPort(starttls: HealthCheckStartTls | null): number {
  return starttls === 'smtp' ? 25 : starttls === 'imap' ? 143 : 443;
}
