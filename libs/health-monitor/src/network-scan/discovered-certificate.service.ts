import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  AuditAction,
  auditOrigin,
  BulkClaimDiscoveredCertificatesRequest,
  BulkDismissDiscoveredCertificatesRequest,
  CertlaneError,
  ClaimDiscoveredCertificateRequest,
  DiscoveredCertificateDto,
  DiscoveredCertificateStatus,
  DiscoveredCertificateSummary,
  DiscoveryBulkResult,
  DiscoverySighting,
  ErrorCode,
  ListDiscoveredCertificatesRequest,
  Page,
  RequestContext,
  resolvePage,
  ServedCertificate,
} from '@certlane/contracts';
import { nextDiscoveredStatus } from '@certlane/health-monitor-domain';
import { MESSAGE_BUS, MessageBus, outboxToken, ServiceOutbox } from '@certlane/platform';
import { DataSource, EntityManager } from 'typeorm';
import { MONITOR_CLOCK, MonitorClock } from '../health-checks/monitor-clock';

type Executor = Pick<EntityManager, 'query'>;

interface Row {
  fingerprint: string;
  subject: string;
  issuer: string;
  not_before: Date;
  not_after: Date;
  status: DiscoveredCertificateStatus;
  managed_certificate_id: string | null;
  chain: ServedCertificate[];
  first_seen_at: Date;
  last_seen_at: Date;
  gone_at: Date | null;
  sightings: (Omit<DiscoverySighting, 'first_seen_at' | 'last_seen_at' | 'gone_at'> & {
    first_seen_at: string;
    last_seen_at: string;
    gone_at: string | null;
  })[];
}

const SELECT = `SELECT c.fingerprint, c.subject, c.issuer, c.not_before, c.not_after, c.status, c.managed_certificate_id, c.chain,
    c.first_seen_at, c.last_seen_at, c.gone_at,
    COALESCE((SELECT jsonb_agg(jsonb_build_object('location', s.location, 'source', s.source, 'scan_id', s.scan_id,
        'first_seen_at', s.first_seen_at, 'last_seen_at', s.last_seen_at, 'gone_at', s.gone_at) ORDER BY s.location)
      FROM discovered_certificate_sightings s WHERE s.fingerprint = c.fingerprint), '[]'::jsonb) AS sightings
  FROM discovered_certificates c`;

const iso = (text: string) => new Date(text).toISOString();

function dto(row: Row): DiscoveredCertificateDto {
  return {
    id: row.fingerprint,
    subject: row.subject,
    issuer: row.issuer,
    not_before: row.not_before.toISOString(),
    not_after: row.not_after.toISOString(),
    status: row.status,
    chain: row.chain,
    seen_at: row.sightings.map((s) => ({
      ...s,
      first_seen_at: iso(s.first_seen_at),
      last_seen_at: iso(s.last_seen_at),
      gone_at: s.gone_at === null ? null : iso(s.gone_at),
    })),
    managed_certificate_id: row.managed_certificate_id,
    first_seen_at: row.first_seen_at.toISOString(),
    last_seen_at: row.last_seen_at.toISOString(),
    gone_at: row.gone_at?.toISOString() ?? null,
  };
}

const notFound = (id: string) =>
  new CertlaneError(
    ErrorCode.DiscoveredCertificateNotFound,
    `discovered certificate ${JSON.stringify(id)} not found`,
  );

/** Triage of discovered certificates (spec 2.14; ADR 0057, 0063): list, get, summary, dismiss, claim, in bulk too. */
@Injectable()
export class DiscoveredCertificateService implements OnApplicationBootstrap {
  constructor(
    @InjectDataSource('health-monitor') private readonly dataSource: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(outboxToken('health-monitor')) private readonly outbox: ServiceOutbox,
    @Inject(MONITOR_CLOCK) private readonly clock: MonitorClock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('health-monitor.v1.list-discovered-certificates', (request) => this.list(request)),
      this.bus.handle('health-monitor.v1.get-discovered-certificate-summary', () => this.summary()),
      this.bus.handle('health-monitor.v1.get-discovered-certificate', (request) => this.get(request.id)),
      this.bus.handle('health-monitor.v1.dismiss-discovered-certificate', (request, context) =>
        this.dismiss(request.id, context),
      ),
      this.bus.handle('health-monitor.v1.claim-discovered-certificate', (request, context) =>
        this.claim(request, context),
      ),
      this.bus.handle('health-monitor.v1.bulk-dismiss-discovered-certificates', (request, context) =>
        this.bulkDismiss(request, context),
      ),
      this.bus.handle('health-monitor.v1.bulk-claim-discovered-certificates', (request, context) =>
        this.bulkClaim(request, context),
      ),
    ]);
  }

  async list(request: ListDiscoveredCertificatesRequest): Promise<Page<DiscoveredCertificateDto>> {
    const page = resolvePage(request);
    const conditions: string[] = [];
    const values: unknown[] = [];
    if (request.status) {
      values.push(request.status);
      conditions.push(`c.status = $${values.length}`);
    }
    if (request.source) {
      values.push(request.source);
      conditions.push(
        `EXISTS (SELECT 1 FROM discovered_certificate_sightings s WHERE s.fingerprint = c.fingerprint AND s.source = $${values.length})`,
      );
    }
    if (request.presence)
      conditions.push(request.presence === 'gone' ? 'c.gone_at IS NOT NULL' : 'c.gone_at IS NULL');
    const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
    const [{ total }] = await this.dataSource.query(
      `SELECT count(*)::int AS total FROM discovered_certificates c ${where}`,
      values,
    );
    const rows: Row[] = await this.dataSource.query(
      `${SELECT} ${where} ORDER BY c.first_seen_at, c.fingerprint LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
      [...values, page.per_page, (page.page - 1) * page.per_page],
    );
    return { data: rows.map(dto), total, page: page.page, per_page: page.per_page };
  }

  async get(
    id: string,
    executor: Executor = this.dataSource,
    lock = false,
  ): Promise<DiscoveredCertificateDto> {
    const rows: Row[] = await executor.query(
      `${SELECT} WHERE c.fingerprint = $1 ${lock ? 'FOR UPDATE OF c' : ''}`,
      [id],
    );
    if (!rows[0]) throw notFound(id);
    return dto(rows[0]);
  }

  async summary(): Promise<DiscoveredCertificateSummary> {
    const now = this.clock.now();
    const [row] = await this.dataSource.query(
      `SELECT count(*)::int AS total,
         count(*) FILTER (WHERE status = 'Unmanaged')::int AS unmanaged,
         count(*) FILTER (WHERE status = 'Claimed')::int AS claimed,
         count(*) FILTER (WHERE status = 'Dismissed')::int AS dismissed,
         count(*) FILTER (WHERE status = 'Unmanaged' AND not_after <= $1)::int AS unmanaged_expired,
         count(*) FILTER (WHERE gone_at IS NOT NULL)::int AS gone
       FROM discovered_certificates`,
      [now],
    );
    return { ...row, generated_at: now.toISOString() };
  }

  /** Unmanaged -> Dismissed; Dismissed stays (no new audit); Claimed is refused (409). */
  async dismiss(id: string, context?: RequestContext): Promise<DiscoveredCertificateDto> {
    const result = await this.dataSource.transaction(async (manager) => {
      const current = await this.get(id, manager, true);
      const { to, changed } = await this.dismissOne(manager, current);
      await this.outbox.audit(manager, {
        action: AuditAction.DiscoveredCertificateDismissed,
        event_category: 'cert_lifecycle',
        ...auditOrigin(context),
        resource_type: 'discovered_certificate',
        resource_id: id,
        outcome: 'success',
        details: { from: current.status, to, already_dismissed: !changed },
      });
      return { ...current, status: to };
    });
    this.outbox.committed();
    return result;
  }

  /**
   * Unmanaged or Dismissed -> Claimed: the served leaf is imported into the inventory through
   * `issuance.v1.create-certificate` (its issuer, names and validity come from the certificate),
   * with the row locked so two claims cannot import it twice. Claimed is refused (409).
   */
  async claim(
    request: ClaimDiscoveredCertificateRequest,
    context?: RequestContext,
  ): Promise<DiscoveredCertificateDto> {
    const result = await this.dataSource.transaction(async (manager) => {
      const current = await this.get(request.id, manager, true);
      const managedId = await this.claimOne(manager, current, request, context, 'import');
      await this.outbox.audit(manager, {
        action: AuditAction.DiscoveredCertificateClaimed,
        event_category: 'cert_lifecycle',
        ...auditOrigin(context),
        resource_type: 'discovered_certificate',
        resource_id: request.id,
        outcome: 'success',
        details: { from: current.status, to: 'Claimed', managed_certificate_id: managedId },
      });
      return { ...current, status: 'Claimed' as const, managed_certificate_id: managedId };
    });
    this.outbox.committed();
    return result;
  }

  /** Bulk dismiss (ADR 0063): each id as a single dismiss would treat it; one audit event. */
  bulkDismiss(
    request: BulkDismissDiscoveredCertificatesRequest,
    context?: RequestContext,
  ): Promise<DiscoveryBulkResult> {
    return this.bulk(
      request.ids,
      AuditAction.DiscoveredCertificatesBulkDismissed,
      context,
      async (manager, current) => {
        const { to, changed } = await this.dismissOne(manager, current);
        return changed ? { id: current.id, status: to, managed_certificate_id: null } : null;
      },
    );
  }

  /**
   * Bulk claim (ADR 0063): each id imported as a single claim would (one owner, team and
   * environment for all); an import refused by issuance fails that id only. One audit event.
   */
  bulkClaim(
    request: BulkClaimDiscoveredCertificatesRequest,
    context?: RequestContext,
  ): Promise<DiscoveryBulkResult> {
    const fields = { owner_id: request.owner_id, team_id: request.team_id, environment: request.environment };
    let index = 0;
    return this.bulk(
      request.ids,
      AuditAction.DiscoveredCertificatesBulkClaimed,
      context,
      async (manager, current) => {
        const managedId = await this.claimOne(manager, current, fields, context, `import:${index++}`);
        return { id: current.id, status: 'Claimed', managed_certificate_id: managedId };
      },
    );
  }

  /**
   * Locks every named row (in fingerprint order, so two bulk calls cannot deadlock), applies
   * `apply` to each, collects per-item refusals, and writes one audit event in the transaction.
   * `apply` answers the changed item, or null when it was already in the asked status.
   */
  private async bulk(
    ids: string[],
    action: string,
    context: RequestContext | undefined,
    apply: (
      manager: EntityManager,
      current: DiscoveredCertificateDto,
    ) => Promise<DiscoveryBulkResult['changed'][number] | null>,
  ): Promise<DiscoveryBulkResult> {
    const unique = [...new Set(ids)].sort();
    const result = await this.dataSource.transaction(async (manager) => {
      const rows: Row[] = await manager.query(
        `${SELECT} WHERE c.fingerprint = ANY($1) ORDER BY c.fingerprint FOR UPDATE OF c`,
        [unique],
      );
      const found = new Map(rows.map((row) => [row.fingerprint, dto(row)]));
      const outcome: DiscoveryBulkResult = {
        total_requested: unique.length,
        total_changed: 0,
        total_unchanged: 0,
        total_failed: 0,
        changed: [],
        unchanged: [],
        errors: [],
      };
      for (const id of unique) {
        try {
          const current = found.get(id);
          if (!current) throw notFound(id);
          const changed = await apply(manager, current);
          if (changed) outcome.changed.push(changed);
          else outcome.unchanged.push(id);
        } catch (error) {
          if (!(error instanceof CertlaneError)) throw error;
          outcome.errors.push({ id, code: error.code, message: error.message });
        }
      }
      outcome.total_changed = outcome.changed.length;
      outcome.total_unchanged = outcome.unchanged.length;
      outcome.total_failed = outcome.errors.length;
      await this.outbox.audit(manager, {
        action,
        event_category: 'cert_lifecycle',
        ...auditOrigin(context),
        resource_type: 'discovered_certificate',
        resource_id: 'bulk',
        outcome: 'success',
        details: {
          requested: unique.length,
          changed: outcome.changed.map((item) => item.id),
          unchanged: outcome.unchanged,
          failed: outcome.errors.map(({ id, code }) => ({ id, code })),
        },
      });
      return outcome;
    });
    this.outbox.committed();
    return result;
  }

  /** Applies the dismiss transition to a locked row (refusing a claimed one, 409). */
  private async dismissOne(
    manager: EntityManager,
    current: DiscoveredCertificateDto,
  ): Promise<{ to: DiscoveredCertificateStatus; changed: boolean }> {
    const transition = nextDiscoveredStatus(current.status, 'dismiss');
    if (!transition.ok) throw new CertlaneError(ErrorCode.DiscoveredCertificateClaimed, transition.message);
    if (transition.changed) {
      await manager.query('UPDATE discovered_certificates SET status = $2 WHERE fingerprint = $1', [
        current.id,
        transition.to,
      ]);
    }
    return { to: transition.to, changed: transition.changed };
  }

  /**
   * Applies the claim transition to a locked row: imports its PEM through issuance and stores the
   * managed certificate's id. The import is audited by issuance as `certificate.created` by the
   * same actor under `<request id>:<suffix>`, so the claim request itself keeps exactly one audit
   * event (ADR 0057).
   */
  private async claimOne(
    manager: EntityManager,
    current: DiscoveredCertificateDto,
    fields: Omit<ClaimDiscoveredCertificateRequest, 'id'>,
    context: RequestContext | undefined,
    requestSuffix: string,
  ): Promise<string> {
    const transition = nextDiscoveredStatus(current.status, 'claim');
    if (!transition.ok) throw new CertlaneError(ErrorCode.DiscoveredCertificateClaimed, transition.message);
    const [{ certificate_pem: pem }] = await manager.query(
      'SELECT certificate_pem FROM discovered_certificates WHERE fingerprint = $1',
      [current.id],
    );
    if (!pem) {
      throw new CertlaneError(
        ErrorCode.DiscoveredCertificateNotImportable,
        'the certificate itself was not kept when it was discovered; scan it again to claim it',
      );
    }
    const managed = await this.bus.request(
      'issuance.v1.create-certificate',
      {
        certificate_pem: pem,
        ...(fields.name ? { name: fields.name } : {}),
        ...(fields.owner_id ? { owner_id: fields.owner_id } : {}),
        ...(fields.team_id ? { team_id: fields.team_id } : {}),
        ...(fields.environment ? { environment: fields.environment } : {}),
        tags: { discovered: current.id },
      },
      {
        context: {
          actor_id: context?.actor_id,
          request_id: `${context?.request_id ?? randomUUID()}:${requestSuffix}`,
        },
      },
    );
    await manager.query(
      'UPDATE discovered_certificates SET status = $2, managed_certificate_id = $3 WHERE fingerprint = $1',
      [current.id, transition.to, managed.id],
    );
    return managed.id;
  }
}
