import { randomUUID } from 'node:crypto';
import {
  CertlaneError,
  ErrorCode,
  EventEnvelope,
  EventOf,
  EventSubject,
  owningService,
  RequestOf,
  RequestSubject,
  ResponseOf,
} from '@certlane/contracts';
import { dispatchRequest, unwrapReply } from './dispatch';
import {
  BatchedRequest,
  BatchOutcome,
  BusHooks,
  ConsumerProgress,
  EventBatchHandler,
  EventHandler,
  PublishedPrefix,
  StoredEvent,
  MessageBus,
  RequestHandler,
  RequestOptions,
} from './message-bus';

interface Consumer {
  subject: string;
  handler: (event: EventEnvelope<unknown>) => Promise<void>;
  position: number;
  running: boolean;
  /** Replaced by a newer consume() under the same name: stops pumping. */
  retired?: boolean;
  retryTimer?: NodeJS.Timeout;
}

/**
 * The single-process bus: same interface and semantics as the NATS bus (payload validation,
 * typed errors, JSON round trip, round-robin among handlers of a subject, durable consumers
 * that start from the first event, resume, retry on failure and deduplicate by envelope id),
 * with everything kept in this process's memory.
 */
export class InProcessBus implements MessageBus {
  readonly kind = 'in-process' as const;
  private readonly handlers = new Map<string, RequestHandler<RequestSubject>[]>();
  private readonly roundRobin = new Map<string, number>();
  private readonly log = new Map<string, EventEnvelope<unknown>[]>();
  private readonly seenEventIds = new Set<string>();
  private readonly consumers = new Map<string, Consumer>();
  private readonly listeners = new Map<string, EventHandler<EventSubject>[]>();
  /** Callers of `drain`, woken whenever a consumer stops pumping. */
  private readonly drainWaiters = new Set<() => void>();
  private closed = false;

  constructor(private readonly options: { requestTimeoutMs: number; retryDelayMs?: number } & BusHooks) {}

  async request<S extends RequestSubject>(
    subject: S,
    payload: RequestOf<S>,
    options?: RequestOptions,
  ): Promise<ResponseOf<S>> {
    const handlers = this.handlers.get(subject) ?? [];
    if (this.closed || handlers.length === 0) {
      throw new CertlaneError(
        ErrorCode.ServiceUnavailable,
        `no ${owningService(subject)} instance is answering`,
      );
    }
    const turn = this.roundRobin.get(subject) ?? 0;
    this.roundRobin.set(subject, turn + 1);
    const handler = handlers[turn % handlers.length];
    const context = {
      request_id: options?.context?.request_id ?? randomUUID(),
      actor_id: options?.context?.actor_id,
    };
    const wirePayload: unknown = JSON.parse(JSON.stringify(payload ?? {}));
    const timeoutMs = options?.timeoutMs ?? this.options.requestTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new CertlaneError(
              ErrorCode.UpstreamTimeout,
              `${owningService(subject)} did not answer in ${timeoutMs} ms`,
            ),
          ),
        timeoutMs,
      );
    });
    try {
      const reply = await Promise.race([
        dispatchRequest(subject, handler, wirePayload, context, this.options),
        timeout,
      ]);
      return unwrapReply(JSON.parse(JSON.stringify(reply))) as ResponseOf<S>;
    } finally {
      clearTimeout(timer);
    }
  }

  async requestRaw<S extends RequestSubject>(
    subject: S,
    payload: RequestOf<S>,
    options?: RequestOptions,
  ): Promise<string> {
    return JSON.stringify(await this.request(subject, payload, options));
  }

  /** Each request as requestRaw, concurrently; only the missing handler fails the whole call. */
  async requestBatch<S extends RequestSubject>(
    subject: S,
    requests: readonly BatchedRequest<S>[],
    options?: Pick<RequestOptions, 'timeoutMs'>,
  ): Promise<BatchOutcome[]> {
    if (requests.length === 0) return [];
    if (this.closed || (this.handlers.get(subject) ?? []).length === 0) {
      throw new CertlaneError(
        ErrorCode.ServiceUnavailable,
        `no ${owningService(subject)} instance is answering`,
      );
    }
    return Promise.all(
      requests.map(({ payload, context }) =>
        this.requestRaw(subject, payload, { context, timeoutMs: options?.timeoutMs }).then(
          (json): BatchOutcome => ({ ok: true, json }),
          (error: unknown): BatchOutcome => {
            if (error instanceof CertlaneError) return { ok: false, error };
            throw error;
          },
        ),
      ),
    );
  }

  async handle<S extends RequestSubject>(subject: S, handler: RequestHandler<S>): Promise<void> {
    const list = this.handlers.get(subject) ?? [];
    list.push(handler as unknown as RequestHandler<RequestSubject>);
    this.handlers.set(subject, list);
  }

  /** One after the other. */
  async publishMany(events: readonly StoredEvent[]): Promise<PublishedPrefix> {
    for (const [index, { subject, json }] of events.entries()) {
      try {
        await this.publish(subject, JSON.parse(json) as never);
      } catch (error) {
        return { published: index, error };
      }
    }
    return { published: events.length };
  }

  async publish<E extends EventSubject>(subject: E, envelope: EventEnvelope<EventOf<E>>): Promise<void> {
    if (this.closed) throw new CertlaneError(ErrorCode.ServiceUnavailable, 'the bus is closed');
    if (this.seenEventIds.has(envelope.id)) return;
    this.seenEventIds.add(envelope.id);
    const events = this.log.get(subject) ?? [];
    events.push(JSON.parse(JSON.stringify(envelope)));
    this.log.set(subject, events);
    for (const consumer of this.consumers.values()) {
      if (consumer.subject === subject) void this.pump(consumer);
    }
    for (const listener of this.listeners.get(subject) ?? []) {
      void listener(JSON.parse(JSON.stringify(envelope))).catch((error: unknown) =>
        this.options.onUnexpected?.(error),
      );
    }
  }

  /** One event per batch: the in-process log is handed over as it is published. */
  consumeBatch<E extends EventSubject>(
    subject: E,
    consumer: string,
    handler: EventBatchHandler<E>,
  ): Promise<void> {
    return this.consume(subject, consumer, (event) => handler([event]));
  }

  async consume<E extends EventSubject>(
    subject: E,
    consumer: string,
    handler: EventHandler<E>,
  ): Promise<void> {
    const existing = this.consumers.get(consumer);
    clearTimeout(existing?.retryTimer);
    if (existing) existing.retired = true;
    const state: Consumer = {
      subject,
      handler: handler as unknown as Consumer['handler'],
      position: existing?.subject === subject ? existing.position : 0,
      running: false,
    };
    this.consumers.set(consumer, state);
    void this.pump(state);
  }

  private async pump(consumer: Consumer): Promise<void> {
    if (consumer.running || consumer.retired || this.closed) return;
    consumer.running = true;
    try {
      const events = this.log.get(consumer.subject) ?? [];
      while (consumer.position < events.length && !this.closed && !consumer.retired) {
        try {
          await consumer.handler(events[consumer.position]);
          consumer.position += 1;
        } catch (error) {
          this.options.onUnexpected?.(error);
          consumer.retryTimer = setTimeout(() => void this.pump(consumer), this.options.retryDelayMs ?? 1000);
          return;
        }
      }
    } finally {
      consumer.running = false;
      for (const wake of [...this.drainWaiters]) wake();
    }
  }

  /** Whether every durable consumer has handled every event of its subject. */
  private caughtUp(): boolean {
    return [...this.consumers.values()].every(
      (consumer) =>
        consumer.retired ||
        (!consumer.running && consumer.position >= (this.log.get(consumer.subject)?.length ?? 0)),
    );
  }

  /**
   * Waits until every durable consumer has handled every event published to it, or `timeoutMs`
   * has passed; true when they have. The log lives in this process only, and the outbox rows of
   * its events are already marked published: a stop that does not drain first loses what the
   * consumers had not handled yet (a revocation the revocation service never records).
   */
  async drain(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.caughtUp()) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let wake!: () => void;
      const woken = new Promise<void>((resolve) => (wake = resolve));
      this.drainWaiters.add(wake);
      const timer = setTimeout(wake, left);
      await woken;
      clearTimeout(timer);
      this.drainWaiters.delete(wake);
    }
    return true;
  }

  /** Positions in the subject's log: its length, and how many events the consumer completed. */
  async consumerProgress(subject: EventSubject, consumer: string): Promise<ConsumerProgress> {
    const state = this.consumers.get(consumer);
    return {
      published: this.log.get(subject)?.length ?? 0,
      acknowledged: state?.subject === subject ? state.position : 0,
    };
  }

  async subscribe<E extends EventSubject>(subject: E, handler: EventHandler<E>): Promise<void> {
    const list = this.listeners.get(subject) ?? [];
    list.push(handler as unknown as EventHandler<EventSubject>);
    this.listeners.set(subject, list);
  }

  /** One process has no connection to lose. */
  onReconnect(): void {}

  async isHealthy(): Promise<boolean> {
    return !this.closed;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const consumer of this.consumers.values()) clearTimeout(consumer.retryTimer);
  }
}
