import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  AuditAction,
  DigestDto,
  DigestPreviewDto,
  DigestSendResult,
  RequestContext,
} from '@certlane/contracts';
import {
  dailyRunId,
  Digest,
  digestCounts,
  digestEvent,
  DigestFilter,
  groupDigests,
  planDeliveries,
  renderDigest,
} from '@certlane/notifier-domain';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  MESSAGE_BUS,
  MessageBus,
  outboxToken,
  ServiceOutbox,
} from '@certlane/platform';
import { DeliverySweep } from '../delivery/delivery-sweep';
import { NotificationRepository } from '../notifications/notification.repository';
import { notifierAudit } from '../notifier-audit';

/** What a digest covers (issue 22): expiring within 30 days, failures of the last 24 hours. */
export const DIGEST_EXPIRY_DAYS = 30;
const FAILURE_WINDOW_MS = 24 * 3_600_000;
/** Lines per section fetched from issuance (one NATS reply stays well under its 1 MB limit). */
export const DIGEST_SECTION_LIMIT = 1000;

interface BuiltDigests {
  generated_at: Date;
  digests: { digest: Digest; rendered: ReturnType<typeof renderDigest> }[];
}

/**
 * Builds the digests (facts from issuance, contacts and rendering here) and queues them as
 * `digest.daily` notifications routed like any event, so delivery, retry and dead-letter are the
 * sweep's (ADR 0062). Only owners and teams with contact addresses get one.
 */
@Injectable()
export class DigestService {
  /** The clock; tests move it. */
  now: () => Date = () => new Date();

  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    private readonly notifications: NotificationRepository,
    private readonly sweep: DeliverySweep,
    @Inject(outboxToken('notifier')) private readonly outbox: ServiceOutbox,
  ) {}

  async preview(filter: DigestFilter, context?: RequestContext): Promise<DigestPreviewDto> {
    const built = await this.build(filter, context);
    return {
      generated_at: built.generated_at.toISOString(),
      digests: built.digests.map(({ digest, rendered }): DigestDto => ({
        kind: digest.kind,
        subject_id: digest.subject_id,
        addresses: digest.addresses,
        counts: digestCounts(digest),
        ...rendered,
      })),
    };
  }

  /** POST /api/v1/digest/send: a run of its own (`manual-<uuid>`), audited in its transaction. */
  async sendNow(filter: DigestFilter, context: RequestContext | undefined): Promise<DigestSendResult> {
    const runId = `manual-${randomUUID()}`;
    const built = await this.build(filter, context);
    const result = await this.queue(runId, built, context);
    return result ?? { run_id: runId, digests: 0, notifications: 0 };
  }

  /**
   * The daily run: once per UTC day whichever replica gets there first. Returns undefined when
   * the day's run is already recorded (by this or another replica).
   */
  async runDaily(): Promise<DigestSendResult | undefined> {
    const runId = dailyRunId(this.now());
    if (await this.notifications.digestRunExists(runId)) return undefined;
    return this.queue(runId, await this.build({}), undefined);
  }

  private async build(filter: DigestFilter, context?: RequestContext): Promise<BuiltDigests> {
    const now = this.now();
    const facts = await this.bus.request(
      'issuance.v1.get-digest-facts',
      {
        days: DIGEST_EXPIRY_DAYS,
        failed_since: new Date(now.getTime() - FAILURE_WINDOW_MS).toISOString(),
        limit: DIGEST_SECTION_LIMIT,
      },
      context ? { context } : undefined,
    );
    const contacts = await this.notifications.contactsFor(this.notifications.dataSource, facts);
    const digests = groupDigests(facts, contacts, filter);
    return {
      generated_at: now,
      digests: digests.map((digest) => ({ digest, rendered: renderDigest(digest, this.config.guiUrl, now) })),
    };
  }

  /**
   * Records the run and stores one notification per digest and notifier its rules choose, in one
   * transaction; a run id already recorded (another replica won the day) stores nothing.
   */
  private async queue(
    runId: string,
    built: BuiltDigests,
    context: RequestContext | undefined,
  ): Promise<DigestSendResult | undefined> {
    const result = await this.notifications.dataSource.transaction(async (manager) => {
      if (!(await this.notifications.claimDigestRun(manager, runId, context?.actor_id ?? null)))
        return undefined;
      const rules = await this.notifications.enabledRules(manager);
      const contacts = {
        owners: new Map(
          built.digests
            .filter((d) => d.digest.kind === 'owner')
            .map((d) => [d.digest.subject_id, d.digest.addresses]),
        ),
        teams: new Map(
          built.digests
            .filter((d) => d.digest.kind === 'team')
            .map((d) => [d.digest.subject_id, d.digest.addresses]),
        ),
      };
      let digests = 0;
      let stored = 0;
      for (const { digest, rendered } of built.digests) {
        if (digest.addresses.length === 0) continue;
        const event = digestEvent(digest, runId, rendered, built.generated_at);
        const plans = planDeliveries(rules, event, contacts);
        if (plans.length === 0) continue;
        digests++;
        stored += await this.notifications.insertPlanned(manager, event, plans);
      }
      await this.notifications.finishDigestRun(manager, runId, digests, stored);
      if (context)
        await this.outbox.audit(
          manager,
          notifierAudit(
            'digest',
            AuditAction.DigestSent,
            runId,
            context,
            { digests, notifications: stored },
            'cert_lifecycle',
          ),
        );
      return { run_id: runId, digests, notifications: stored };
    });
    if (context) this.outbox.committed();
    if (result && result.notifications > 0) this.sweep.kick();
    return result;
  }
}
