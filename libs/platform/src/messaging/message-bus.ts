import {
  CertlaneError,
  EventEnvelope,
  EventOf,
  EventSubject,
  RequestContext,
  RequestOf,
  RequestSubject,
  ResponseOf,
} from '@certlane/contracts';

export interface RequestOptions {
  context?: Partial<RequestContext>;
  timeoutMs?: number;
}

export type RequestHandler<S extends RequestSubject> = (
  payload: RequestOf<S>,
  context: RequestContext,
) => Promise<ResponseOf<S> | RawJson<ResponseOf<S>>>;

export type EventHandler<E extends EventSubject> = (event: EventEnvelope<EventOf<E>>) => Promise<void>;
/**
 * An event as the outbox stores it: its envelope's id and the envelope's JSON text, published as
 * they are (the relay neither parses nor serializes the envelope again).
 */
export interface StoredEvent {
  subject: EventSubject;
  id: string;
  json: string;
}

/** How many events of a publishMany were stored in order, and the first failure if any. */
export interface PublishedPrefix {
  published: number;
  error?: unknown;
}

/** Handles the events at hand (one or more, in stream order) together. */
export type EventBatchHandler<E extends EventSubject> = (
  events: EventEnvelope<EventOf<E>>[],
) => Promise<void>;

/**
 * How far a durable consumer is along its subject, as positions in the subject's stream (they
 * only grow, and are comparable between calls): `published`, the position of the newest event of
 * the subject (0: none); `acknowledged`, a position up to which the consumer has acknowledged
 * every event of the subject (its handler completed for each).
 */
export interface ConsumerProgress {
  published: number;
  acknowledged: number;
}

/** Observation points shared by both bus implementations. */
export interface BusHooks {
  /** A handler threw something other than a CertlaneError (logged; the caller sees internal_error). */
  onUnexpected?: (error: unknown) => void;
  /** A request was handled here; `outcome` is 'ok' or the error code returned. */
  onRequestHandled?: (subject: string, outcome: string) => void;
}

/**
 * A handler's result that is already JSON text (e.g. built by Postgres): the NATS bus splices it
 * into the reply as is, and `requestRaw` hands it to the caller as text, so neither side parses
 * or re-stringifies it (ADR 0034). Anything that serialises it generically (JSON.stringify, the
 * in-process bus) sees the value it encodes.
 */
export class RawJson<T = unknown> {
  /** Only ties the text to the type it encodes (never set). */
  declare readonly encodes?: T;

  constructor(readonly json: string) {}

  toJSON(): unknown {
    return JSON.parse(this.json);
  }
}

/** One request of a batch (MessageBus.requestBatch): its payload and its own context. */
export interface BatchedRequest<S extends RequestSubject> {
  payload: RequestOf<S>;
  context?: Partial<RequestContext>;
}

/** One request's outcome in a batch: its data as JSON text (as requestRaw gives it), or its error. */
export type BatchOutcome = { ok: true; json: string } | { ok: false; error: CertlaneError };

/** What a reply carries across the bus. */
export type Reply<T> =
  { ok: true; data: T } | { ok: false; error: { code: string; message: string; details?: unknown } };

/**
 * One interface, two implementations: NATS (request/reply with queue groups; JetStream for
 * durable events) and an in-process bus for the single-process quick start. Handlers validate
 * their payload against the subject's DTO before they run; failures travel as typed errors.
 */
export interface MessageBus {
  readonly kind: 'nats' | 'in-process';
  request<S extends RequestSubject>(
    subject: S,
    payload: RequestOf<S>,
    options?: RequestOptions,
  ): Promise<ResponseOf<S>>;
  /**
   * Like request(), but the successful reply's data as JSON text (what JSON.stringify of
   * request()'s result gives, or a handler's RawJson verbatim): for a gateway route that writes
   * the body as it came. Errors are thrown as by request().
   */
  requestRaw<S extends RequestSubject>(
    subject: S,
    payload: RequestOf<S>,
    options?: RequestOptions,
  ): Promise<string>;
  /**
   * Several requests to one subject in one bus message (ADR 0036): each is validated, handled and
   * answered on its own, with its own context, exactly as requestRaw would; only the trip is
   * shared. The outcomes come in the order of the requests. A failure of the trip itself (no
   * responder, timeout, a reply too large for one message) rejects the whole call.
   */
  requestBatch<S extends RequestSubject>(
    subject: S,
    requests: readonly BatchedRequest<S>[],
    options?: Pick<RequestOptions, 'timeoutMs'>,
  ): Promise<BatchOutcome[]>;
  /**
   * Serves a subject, single requests and batches alike; replicas of the owning service share the
   * load (one handler per request).
   */
  handle<S extends RequestSubject>(subject: S, handler: RequestHandler<S>): Promise<void>;
  /** Durable publish. Envelope ids deduplicate repeated publishes of the same event. */
  publish<E extends EventSubject>(subject: E, envelope: EventEnvelope<EventOf<E>>): Promise<void>;
  /**
   * Durable publish of many events, in the given order (the outbox relay's batch). Answers how
   * many were stored before the first failure, and that failure; the rest may or may not have
   * been stored (publishing them again is deduplicated by envelope id).
   */
  publishMany(events: readonly StoredEvent[]): Promise<PublishedPrefix>;
  /**
   * Durable consumer named `consumer`: receives every event of the subject from the start of
   * the stream, resumes where it stopped after a restart, and gets an event again when the
   * handler throws. Handlers must be idempotent (see consumeOnce).
   */
  consume<E extends EventSubject>(subject: E, consumer: string, handler: EventHandler<E>): Promise<void>;
  /**
   * A durable consumer like `consume` whose handler takes the events already delivered, up to
   * `maxBatch`, at once (one transaction for many: see consumeManyOnce); when it throws, every
   * event of the batch comes again. Up to `maxBatch` events are in flight, so a retried event can
   * be overtaken by later ones: for consumers whose events do not depend on their order.
   */
  consumeBatch<E extends EventSubject>(
    subject: E,
    consumer: string,
    handler: EventBatchHandler<E>,
    maxBatch: number,
  ): Promise<void>;
  /**
   * Where the durable consumer `consumer` of `subject` stands (see ConsumerProgress); one that
   * does not exist yet has acknowledged nothing. Reads the broker's state: not for a hot path.
   */
  consumerProgress(subject: EventSubject, consumer: string): Promise<ConsumerProgress>;
  /**
   * Non-durable fan-out: every subscribed process sees each event published from now on (cache
   * invalidation and the like). Nothing is replayed and nothing is acknowledged.
   */
  subscribe<E extends EventSubject>(subject: E, handler: EventHandler<E>): Promise<void>;
  /**
   * Called after the connection to the broker came back: fan-out events published while it was
   * down were lost, so caches kept fresh by `subscribe` should be dropped.
   */
  onReconnect(listener: () => void): void;
  isHealthy(): Promise<boolean>;
  close(): Promise<void>;
}
