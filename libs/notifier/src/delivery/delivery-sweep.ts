import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { GuardedHttp, networkList, OutboundNotification, RecipientOutcome } from '@certlane/connectors';
import { DeliveryState, DeliveryTrigger, nextDeliveryState, retryAfterMs } from '@certlane/notifier-domain';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  CertlaneLogger,
  LOGGER,
  outboundTlsOptions,
  PeriodicTask,
  SqlExecutor,
} from '@certlane/platform';
import { NotificationRepository, NotificationRow } from '../notifications/notification.repository';
import { LoadedNotifier, NotifierDirectory } from '../notifiers/notifier.directory';
import { NotifierThrottle } from './notifier-throttle';

/** Notifications one replica claims per transaction (their row locks are held until all are tried). */
export const SWEEP_BATCH = 256;
/** When every send permit of a notifier is taken, its notification is looked at again this much later. */
const PERMIT_RETRY_MS = 250;

/** Outcome counts of one sweep, for logs and tests. */
export interface SweepResult {
  sent: number;
  failed: number;
  dead: number;
  /** Given back until their notifier's rate slot or send permit comes (no attempt counted). */
  deferred: number;
}

/**
 * The delivery sweep (spec 1 "notification retry", spec 3; ADR 0056, 0062), every
 * SERVICE_NOTIFICATION_RETRY_INTERVAL and right after new notifications are stored: one
 * transaction claims a batch of due notifications FOR UPDATE SKIP LOCKED, sends them (each
 * notifier's at most as many at once as the send permits it took) and records every outcome
 * through the delivery state machine in one UPDATE before committing, so two replicas never send
 * one notification twice. A notifier that no longer exists moves the notification to sent (no
 * wedge).
 */
@Injectable()
export class DeliverySweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly task: PeriodicTask;
  private readonly http: GuardedHttp;
  private kicked = false;
  private wake?: { at: number; timer: NodeJS.Timeout };
  private sweeping?: Promise<SweepResult>;
  /** The clock; tests move it. */
  now: () => Date = () => new Date();

  constructor(
    private readonly notifications: NotificationRepository,
    private readonly notifiers: NotifierDirectory,
    private readonly throttle: NotifierThrottle,
    @Inject(CERTLANE_CONFIG) config: CertlaneConfig,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {
    this.task = new PeriodicTask(() => this.sweepLogged(), config.notificationRetryIntervalMs);
    this.http = new GuardedHttp({
      allowed: networkList(config.notifierAllowedNetworks),
      ca: outboundTlsOptions(config.outboundTls).ca,
      keepAlive: true,
    });
  }

  onApplicationBootstrap(): void {
    this.task.start({ runNow: true });
  }

  async onApplicationShutdown(): Promise<void> {
    clearTimeout(this.wake?.timer);
    await this.task.stop();
    await this.sweeping;
    this.http.close();
  }

  /** Asks for a sweep soon (new notifications); coalesces with one under way. */
  kick(): void {
    if (this.sweeping) {
      this.kicked = true;
      return;
    }
    void this.sweepLogged();
  }

  /** Sends everything due now; resolves when no due notification is left unclaimed. */
  async sweep(): Promise<SweepResult> {
    if (this.sweeping) return this.sweeping;
    this.sweeping = (async () => {
      const result: SweepResult = { sent: 0, failed: 0, dead: 0, deferred: 0 };
      do {
        this.kicked = false;
        while ((await this.batch(result)) === SWEEP_BATCH);
      } while (this.kicked);
      return result;
    })().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  /**
   * A deferred notification is due at its notifier's next slot, long before the next periodic
   * sweep: sweep again then (the earliest such time; one timer per replica).
   */
  private wakeAt(due: Date): void {
    if (this.wake && this.wake.at <= due.getTime()) return;
    clearTimeout(this.wake?.timer);
    const timer = setTimeout(
      () => {
        this.wake = undefined;
        this.kick();
      },
      Math.max(0, due.getTime() - Date.now()),
    );
    timer.unref();
    this.wake = { at: due.getTime(), timer };
  }

  private async sweepLogged(): Promise<void> {
    try {
      const result = await this.sweep();
      if (result.sent + result.failed + result.dead > 0) this.logger.info(result, 'notification sweep');
    } catch (error) {
      this.logger.warn({ err: error }, 'notification sweep failed; the next one retries');
    }
  }

  /** Claims, sends and records one batch; answers how many notifications it claimed. */
  private async batch(result: SweepResult): Promise<number> {
    const outcomes = await this.notifications.dataSource.transaction(async (manager) => {
      const rows = await this.notifications.claimDue(manager, this.now(), SWEEP_BATCH);
      if (rows.length === 0) return [];
      const notifiers = await this.notifiers.loadMany(
        manager,
        rows.map((row) => row.notifier_id),
      );
      const byNotifier = new Map<string, NotificationRow[]>();
      for (const row of rows)
        byNotifier.set(row.notifier_id, [...(byNotifier.get(row.notifier_id) ?? []), row]);
      const done = (
        await Promise.all(
          [...byNotifier].map(([id, group]) =>
            this.deliverGroup(manager, group, notifiers.get(id) ?? { found: false }),
          ),
        )
      ).flat();
      await this.notifications.saveStates(manager, done, this.now());
      return done;
    });
    for (const { id, state, deferred } of outcomes) {
      if (deferred) {
        result.deferred++;
        this.wakeAt(state.next_retry_at!);
      } else if (state.status === 'sent') result.sent++;
      else if (state.status === 'failed') result.failed++;
      else if (state.status === 'dead') {
        result.dead++;
        this.logger.warn({ notification_id: id }, 'notification is dead');
      }
    }
    return outcomes.length;
  }

  /**
   * One notifier's share of a batch, under its limits (ADR 0062): the send permits it can take in
   * this transaction bound how many go at once; a rate-limited notifier reserves a slot per send;
   * what cannot go now (no permit, a slot too far, a receiver's Retry-After) is given back
   * without an attempt until then.
   */
  private async deliverGroup(
    executor: SqlExecutor,
    rows: NotificationRow[],
    notifier: LoadedNotifier,
  ): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    const defer = (row: NotificationRow, until: Date) =>
      outcomes.push({
        id: row.id,
        state: {
          status: row.status,
          retry_count: row.retry_count,
          next_retry_at: until,
          last_error: row.last_error,
        },
        deferred: true,
      });
    const record = (row: NotificationRow, { trigger, recipients }: Attempt) => {
      const outcome = nextDeliveryState(row, trigger, this.now());
      // Claimed rows are pending or failed, which every delivery trigger accepts.
      if (!outcome.ok) throw new Error(`notification ${row.id}: ${outcome.refusal}`);
      outcomes.push({
        id: row.id,
        state: outcome.state,
        deferred: false,
        ...(recipients ? { delivered_to: recipients.delivered, refused_to: recipients.refused } : {}),
      });
    };
    if (!notifier.found || 'unusable' in notifier || !notifier.enabled) {
      for (const row of rows) record(row, await this.attempt(row, notifier));
      return outcomes;
    }
    const notifierId = rows[0].notifier_id;
    const permits = await this.throttle.takePermits(executor, notifierId, notifier.limits.concurrency);
    if (permits === 0) {
      const until = new Date(this.now().getTime() + PERMIT_RETRY_MS);
      for (const row of rows) defer(row, until);
      return outcomes;
    }
    const perSecond = notifier.limits.per_second;
    if (!perSecond) {
      const held = await this.throttle.heldUntil(notifierId, this.now());
      if (held.kind === 'defer') {
        for (const row of rows) defer(row, held.until);
        return outcomes;
      }
      if (held.waitMs > 0) await new Promise((resolve) => setTimeout(resolve, held.waitMs));
    }
    const queue = [...rows];
    let heldUntil: Date | undefined;
    const sender = async () => {
      for (let row = queue.shift(); row; row = queue.shift()) {
        if (heldUntil) {
          defer(row, heldUntil);
          continue;
        }
        if (perSecond) {
          const slot = await this.throttle.reserveSlot(notifierId, perSecond, this.now());
          if (slot.kind === 'defer') {
            heldUntil = slot.until;
            defer(row, slot.until);
            continue;
          }
          if (slot.waitMs > 0) await new Promise((resolve) => setTimeout(resolve, slot.waitMs));
        }
        const attempt = await this.attempt(row, notifier);
        const { trigger } = attempt;
        if (trigger.kind === 'delivery_failed' && trigger.retryAfterSeconds !== undefined) {
          heldUntil = new Date(this.now().getTime() + retryAfterMs(trigger.retryAfterSeconds));
          await this.throttle.holdUntil(notifierId, heldUntil);
        }
        record(row, attempt);
      }
    };
    await Promise.all(Array.from({ length: Math.min(permits, rows.length) }, sender));
    return outcomes;
  }

  private async attempt(row: NotificationRow, notifier: LoadedNotifier): Promise<Attempt> {
    const failed = (error: string): Attempt => ({ trigger: { kind: 'delivery_failed', error } });
    if (!notifier.found) return { trigger: { kind: 'notifier_missing' } };
    if ('unusable' in notifier) return failed(notifier.unusable);
    if (!notifier.enabled) return failed('the notifier is disabled');
    try {
      const sent = await notifier.connector.send(notifier.config, outbound(row), this.http, this.now());
      return {
        trigger: sent.ok
          ? { kind: 'delivered' }
          : {
              kind: 'delivery_failed',
              error: sent.error,
              retryAfterSeconds: sent.retryAfterSeconds,
              ...(sent.final ? { final: true } : {}),
            },
        ...(sent.recipients ? { recipients: sent.recipients } : {}),
      };
    } catch (error) {
      return failed(error instanceof Error ? error.message : String(error));
    }
  }
}

/** One attempt: what happened, and (email) which recipients it reached or saw refused for good. */
interface Attempt {
  trigger: DeliveryTrigger;
  recipients?: RecipientOutcome;
}

/** A claimed notification's new state; `deferred` when it was given back without an attempt. */
interface Outcome {
  id: string;
  state: DeliveryState;
  deferred: boolean;
  delivered_to?: string[];
  refused_to?: string[];
}

function outbound(row: NotificationRow): OutboundNotification {
  return {
    id: row.id,
    event_type: row.event_type,
    severity: row.severity,
    title: row.title,
    dedup_key: row.event.dedup_key,
    certificate_id: row.certificate_id,
    recipients: row.recipients,
    details: row.event.details,
    occurred_at: row.event.occurred_at,
    ...(row.event.body ? { body: row.event.body } : {}),
    delivered_to: row.delivered_to ?? [],
    refused_to: row.refused_to ?? [],
  };
}
