import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { GuardedHttp, networkList, OutboundHttp, OutboundNotification } from '@certlane/connectors';
import { DeliveryTrigger, nextDeliveryState } from '@certlane/notifier-domain';
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

/** Deliveries one replica runs at once (each holds its row lock and a connection). */
const SWEEP_CONCURRENCY = 4;
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
 * The delivery sweep (spec 1 "notification retry", spec 3; ADR 0056), every
 * SERVICE_NOTIFICATION_RETRY_INTERVAL and right after new notifications are stored: each worker
 * takes one due notification FOR UPDATE SKIP LOCKED, sends it and records the outcome through the
 * delivery state machine in the same transaction, so two replicas never send one notification
 * twice. A notifier that no longer exists moves the notification to sent (no wedge).
 */
@Injectable()
export class DeliverySweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly task: PeriodicTask;
  private readonly http: OutboundHttp;
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
    });
  }

  onApplicationBootstrap(): void {
    this.task.start({ runNow: true });
  }

  async onApplicationShutdown(): Promise<void> {
    clearTimeout(this.wake?.timer);
    await this.task.stop();
    await this.sweeping;
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
        const workers = Array.from({ length: SWEEP_CONCURRENCY }, () => this.worker(result));
        await Promise.all(workers);
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

  private async worker(result: SweepResult): Promise<void> {
    for (;;) {
      const status = await this.notifications.dataSource.transaction(async (manager) => {
        const row = await this.notifications.claimDue(manager, this.now());
        if (!row) return undefined;
        return this.deliver(manager, row);
      });
      if (!status) return;
      if (status instanceof Date) {
        result.deferred++;
        this.wakeAt(status);
      } else if (status === 'sent') result.sent++;
      else if (status === 'sent') result.sent++;
      else if (status === 'failed') result.failed++;
      else if (status === 'dead') result.dead++;
    }
  }

  private async deliver(executor: SqlExecutor, row: NotificationRow): Promise<string | Date> {
    const notifier = await this.notifiers.load(executor, row.notifier_id);
    const wait = await this.waitForLimits(executor, row, notifier);
    if (wait) {
      await this.notifications.defer(executor, row.id, wait);
      return wait;
    }
    const trigger = await this.attempt(row, notifier);
    if (trigger.kind === 'delivery_failed' && trigger.retryAfterSeconds !== undefined)
      await this.throttle.holdUntil(
        row.notifier_id,
        new Date(this.now().getTime() + trigger.retryAfterSeconds * 1000),
      );
    const now = this.now();
    const outcome = nextDeliveryState(row, trigger, now);
    // Claimed rows are pending or failed, which every delivery trigger accepts.
    if (!outcome.ok) throw new Error(`notification ${row.id}: ${outcome.refusal}`);
    await this.notifications.saveState(executor, row.id, outcome.state, now);
    if (outcome.state.status === 'dead')
      this.logger.warn({ notification_id: row.id, notifier_id: row.notifier_id }, 'notification is dead');
    return outcome.state.status;
  }

  /**
   * The notifier's limits (ADR 0062): a send permit for this transaction and, when it is rate
   * limited, a reserved slot (waited for when it is near). Answers when to try again instead, or
   * undefined to send now. A notifier that cannot send anyway is not held back.
   */
  private async waitForLimits(
    executor: SqlExecutor,
    row: NotificationRow,
    notifier: LoadedNotifier,
  ): Promise<Date | undefined> {
    if (!notifier.found || 'unusable' in notifier || !notifier.enabled) return undefined;
    const now = this.now();
    if (!(await this.throttle.takePermit(executor, row.notifier_id, notifier.limits.concurrency)))
      return new Date(now.getTime() + PERMIT_RETRY_MS);
    const decision = notifier.limits.per_second
      ? await this.throttle.reserveSlot(row.notifier_id, notifier.limits.per_second, now)
      : await this.throttle.heldUntil(row.notifier_id, now);
    if (decision.kind === 'defer') return decision.until;
    if (decision.waitMs > 0) await new Promise((resolve) => setTimeout(resolve, decision.waitMs));
    return undefined;
  }

  private async attempt(row: NotificationRow, notifier: LoadedNotifier): Promise<DeliveryTrigger> {
    if (!notifier.found) return { kind: 'notifier_missing' };
    if ('unusable' in notifier) return { kind: 'delivery_failed', error: notifier.unusable };
    if (!notifier.enabled) return { kind: 'delivery_failed', error: 'the notifier is disabled' };
    try {
      const sent = await notifier.connector.send(notifier.config, outbound(row), this.http, this.now());
      return sent.ok
        ? { kind: 'delivered' }
        : { kind: 'delivery_failed', error: sent.error, retryAfterSeconds: sent.retryAfterSeconds };
    } catch (error) {
      return { kind: 'delivery_failed', error: error instanceof Error ? error.message : String(error) };
    }
  }
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
  };
}
