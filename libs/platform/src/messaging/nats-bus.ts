import { randomUUID } from 'node:crypto';
import {
  CertlaneError,
  ErrorCode,
  EventEnvelope,
  EventOf,
  EventSubject,
  owningService,
  RequestContext,
  RequestOf,
  RequestSubject,
  ResponseOf,
} from '@certlane/contracts';
import {
  AckPolicy,
  connect,
  ConnectionOptions,
  ConsumerMessages,
  headers,
  JsMsg,
  DeliverPolicy,
  JetStreamClient,
  JetStreamManager,
  JSONCodec,
  Msg,
  nanos,
  NatsConnection,
  NatsError,
  RetentionPolicy,
  StorageType,
  Subscription,
} from 'nats';
import { frameReplies, isFramed, unframeReplies } from './batch-frames';
import { MessageBatcher } from './message-batcher';
import { ConnectionWatch } from './connection-watch';
import { dispatchRequest, unwrapReply } from './dispatch';
import { PublishBatcher } from './publish-batcher';
import { BusDisconnectedError, NoRespondersError, ReplyMux, ReplyTimeoutError } from './reply-mux';
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
  RawJson,
  Reply,
  RequestHandler,
  RequestOptions,
} from './message-bus';

const codec = JSONCodec<unknown>();
const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();
/** How every successful reply starts on the wire (JSON.stringify of `{ ok: true, data }`). */
const OK_PREFIX = utf8.encode('{"ok":true,"data":');
const CLOSE_BRACE = 0x7d;

/** A reply's bytes; a RawJson result is spliced in as it is, without a parse/stringify round. */
function encodeReply(reply: Reply<unknown>): Uint8Array {
  if (reply.ok && reply.data instanceof RawJson) return utf8.encode(`{"ok":true,"data":${reply.data.json}}`);
  return codec.encode(reply);
}

/** The data of a successful reply as JSON text, or undefined when the reply is not one. */
function okDataText(reply: Uint8Array): string | undefined {
  if (reply.length <= OK_PREFIX.length || reply[reply.length - 1] !== CLOSE_BRACE) return undefined;
  for (let i = 0; i < OK_PREFIX.length; i++) if (reply[i] !== OK_PREFIX[i]) return undefined;
  return utf8Decoder.decode(reply.subarray(OK_PREFIX.length, reply.length - 1));
}

/** A request on the wire: the caller's context travels with the payload (cheaper than NATS headers). */
interface WireRequest {
  context: RequestContext;
  payload: unknown;
}

const isWireRequest = (value: unknown): value is WireRequest =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as WireRequest).context === 'object' &&
  (value as WireRequest).context !== null &&
  typeof (value as WireRequest).context.request_id === 'string';

/**
 * Batches travel on `batch.<subject>` (ADR 0036): a request subject has three tokens and each
 * service's event stream captures `<service>.v1.*.*`, so `<subject>.batch` would be stored by
 * JetStream instead of reaching the handler.
 */
const batchSubject = (subject: string) => `batch.${subject}`;

const notARequest = (what: string) =>
  codec.encode({
    ok: false,
    error: { code: ErrorCode.ValidationFailed, message: `not a Certlane bus ${what}` },
  });
const INTERNAL_ERROR_REPLY = codec.encode({
  ok: false,
  error: { code: ErrorCode.Internal, message: 'internal error' },
});

/** One request's outcome from its reply bytes, as requestRaw would read them. */
function batchOutcome(reply: Uint8Array): BatchOutcome {
  const json = okDataText(reply);
  if (json !== undefined) return { ok: true, json };
  const decoded = codec.decode(reply) as Reply<unknown>;
  return decoded.ok
    ? { ok: true, json: JSON.stringify(decoded.data) }
    : { ok: false, error: CertlaneError.fromPayload(decoded.error) };
}
/** JetStream drops a re-published message whose msgID it saw within this window. */
const DUPLICATE_WINDOW_MS = 2 * 60_000;
const RETRY_DELAY_MS = 1000;

export interface NatsBusOptions extends BusHooks {
  servers: string[];
  /** User authentication (`user`, `pass`) or token authentication (`token`). */
  user?: string;
  pass?: string;
  token?: string;
  name: string;
  requestTimeoutMs: number;
  tls?: ConnectionOptions['tls'];
  /** Prefix for every subject and stream, so several environments (or tests) can share one NATS. */
  namespace?: string;
}

/** The JetStream stream holding one service's events (`<service>.v1.<entity>.<verb>`). */
export function streamFor(subject: string, namespace = ''): { name: string; subjects: string[] } {
  const service = owningService(subject);
  const prefix = namespace ? `${namespace.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_` : '';
  return {
    name: `${prefix}CERTLANE_${service.toUpperCase().replace(/-/g, '_')}`,
    subjects: [`${namespace ? `${namespace}.` : ''}${service}.v1.*.*`],
  };
}

export class NatsBus implements MessageBus {
  readonly kind = 'nats' as const;
  private readonly subscriptions: Subscription[] = [];
  private readonly consumers: ConsumerMessages[] = [];
  private readonly ensuredStreams = new Map<string, Promise<void>>();
  private readonly replies: ReplyMux;
  private readonly publisher: PublishBatcher;
  private readonly connection: ConnectionWatch;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly options: NatsBusOptions,
  ) {
    this.publisher = new PublishBatcher(nc);
    this.connection = new ConnectionWatch(nc);
    this.replies = new ReplyMux(nc, this.publisher, this.connection);
  }

  onReconnect(listener: () => void): void {
    this.connection.onReconnect(listener);
  }

  private wire(subject: string): string {
    return this.options.namespace ? `${this.options.namespace}.${subject}` : subject;
  }

  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    if (options.namespace && !/^[A-Za-z0-9_-]+$/.test(options.namespace)) {
      throw new Error(
        `NATS namespace ${JSON.stringify(options.namespace)} may hold only letters, digits, - and _`,
      );
    }
    const nc = await connect({
      servers: options.servers,
      ...(options.user !== undefined ? { user: options.user, pass: options.pass } : {}),
      ...(options.token !== undefined ? { token: options.token } : {}),
      name: options.name,
      tls: options.tls,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      // Keep trying when NATS is not up yet at start (orchestrators start pods in any order).
      waitOnFirstConnect: true,
      // An Error (with stack) per request is measurable on the gateway's hot path; our errors are typed.
      noAsyncTraces: true,
    });
    const jsm = await nc.jetstreamManager();
    return new NatsBus(nc, nc.jetstream(), jsm, options);
  }

  async request<S extends RequestSubject>(
    subject: S,
    payload: RequestOf<S>,
    options?: RequestOptions,
  ): Promise<ResponseOf<S>> {
    return this.roundTrip(subject, payload, options, (reply) =>
      unwrapReply(codec.decode(reply) as Reply<ResponseOf<S>>),
    );
  }

  async requestRaw<S extends RequestSubject>(
    subject: S,
    payload: RequestOf<S>,
    options?: RequestOptions,
  ): Promise<string> {
    return this.roundTrip(
      subject,
      payload,
      options,
      (reply) => okDataText(reply) ?? JSON.stringify(unwrapReply(codec.decode(reply) as Reply<unknown>)),
    );
  }

  async requestBatch<S extends RequestSubject>(
    subject: S,
    requests: readonly BatchedRequest<S>[],
    options?: Pick<RequestOptions, 'timeoutMs'>,
  ): Promise<BatchOutcome[]> {
    if (requests.length === 0) return [];
    const timeout = options?.timeoutMs ?? this.options.requestTimeoutMs;
    const batch: WireRequest[] = requests.map(({ payload, context }) => ({
      context: { request_id: context?.request_id ?? randomUUID(), actor_id: context?.actor_id },
      payload: payload ?? {},
    }));
    let reply: Uint8Array;
    try {
      reply = await this.replies.request(this.wire(batchSubject(subject)), codec.encode({ batch }), timeout);
    } catch (error) {
      throw translateNatsError(error, subject, timeout);
    }
    if (!isFramed(reply)) {
      unwrapReply(codec.decode(reply) as Reply<unknown>);
      throw new CertlaneError(ErrorCode.Internal, 'internal error');
    }
    const replies = unframeReplies(reply);
    if (replies.length !== requests.length) throw new CertlaneError(ErrorCode.Internal, 'internal error');
    return replies.map(batchOutcome);
  }

  private async roundTrip<T>(
    subject: RequestSubject,
    payload: unknown,
    options: RequestOptions | undefined,
    read: (reply: Uint8Array) => T,
  ): Promise<T> {
    const context: RequestContext = {
      request_id: options?.context?.request_id ?? randomUUID(),
      actor_id: options?.context?.actor_id,
    };
    const timeout = options?.timeoutMs ?? this.options.requestTimeoutMs;
    try {
      const wire: WireRequest = { context, payload: payload ?? {} };
      return read(await this.replies.request(this.wire(subject), codec.encode(wire), timeout));
    } catch (error) {
      throw translateNatsError(error, subject, timeout);
    }
  }

  async handle<S extends RequestSubject>(subject: S, handler: RequestHandler<S>): Promise<void> {
    const queue = owningService(subject);
    const serve = (work: (message: Msg) => Promise<void>) => (error: NatsError | null, message: Msg) => {
      if (error) return this.options.onUnexpected?.(error);
      work(message).catch((failure: unknown) => this.options.onUnexpected?.(failure));
    };
    this.subscriptions.push(
      this.nc.subscribe(this.wire(subject), {
        queue,
        callback: serve((message) => this.serveOne(subject, handler, message)),
      }),
      this.nc.subscribe(this.wire(batchSubject(subject)), {
        queue,
        callback: serve((message) => this.serveBatch(subject, handler, message)),
      }),
    );
    await this.nc.flush();
  }

  private async serveOne<S extends RequestSubject>(
    subject: S,
    handler: RequestHandler<S>,
    message: Msg,
  ): Promise<void> {
    let request: unknown;
    try {
      request = codec.decode(message.data);
    } catch {
      request = undefined;
    }
    if (!isWireRequest(request)) return this.respond(message, notARequest('request'));
    const context = { request_id: request.context.request_id, actor_id: request.context.actor_id };
    const reply = await dispatchRequest(subject, handler, request.payload, context, this.options);
    this.respondOrFail(message, () => encodeReply(reply));
  }

  /** Each request of a batch dispatched as if it had come alone, concurrently; one framed reply. */
  private async serveBatch<S extends RequestSubject>(
    subject: S,
    handler: RequestHandler<S>,
    message: Msg,
  ): Promise<void> {
    let batch: unknown;
    try {
      batch = (codec.decode(message.data) as { batch?: unknown } | null)?.batch;
    } catch {
      batch = undefined;
    }
    if (!Array.isArray(batch)) return this.respond(message, notARequest('batch'));
    const replies = await Promise.all(
      batch.map(async (request: unknown) => {
        if (!isWireRequest(request)) return notARequest('request');
        const context = { request_id: request.context.request_id, actor_id: request.context.actor_id };
        return encodeReply(await dispatchRequest(subject, handler, request.payload, context, this.options));
      }),
    );
    this.respondOrFail(message, () => frameReplies(replies));
  }

  /** Sends the reply; one that cannot be sent (e.g. MAX_PAYLOAD_EXCEEDED) becomes internal_error, so the caller is not left waiting. */
  private respondOrFail(message: Msg, encode: () => Uint8Array): void {
    try {
      this.respond(message, encode());
    } catch (error) {
      this.options.onUnexpected?.(error);
      this.respond(message, INTERNAL_ERROR_REPLY);
    }
  }

  private respond(message: Msg, data: Uint8Array): void {
    if (message.reply) this.publisher.publish(message.reply, data);
  }

  async publish<E extends EventSubject>(subject: E, envelope: EventEnvelope<EventOf<E>>): Promise<void> {
    try {
      if (!this.connection.connected) throw new BusDisconnectedError('disconnected');
      await this.ensureStream(subject);
      await this.jetStreamPublish(subject, envelope.id, codec.encode(envelope));
    } catch (error) {
      throw translateNatsError(error, subject, this.options.requestTimeoutMs);
    }
  }

  /**
   * One JetStream publish, deduplicated by the envelope id (`Nats-Msg-Id`), its acknowledgement
   * awaited through the reply mux: nats.js's own `js.publish` built a request object and a
   * NatsError per call, a tenth of issuance's CPU at enrollment rates (bench/README.md, est).
   */
  private async jetStreamPublish(subject: EventSubject, id: string, data: Uint8Array): Promise<void> {
    const header = headers();
    header.set('Nats-Msg-Id', id);
    const ack = await this.replies.request(this.wire(subject), data, this.options.requestTimeoutMs, header);
    const error = publishAckError(ack);
    if (error) throw error;
  }

  /**
   * Every publish is written before any acknowledgement is awaited: one connection carries them
   * in call order, so the stream stores them in that order, at the cost of one round trip for
   * the batch instead of one per event.
   */
  async publishMany(events: readonly StoredEvent[]): Promise<PublishedPrefix> {
    if (events.length === 0) return { published: 0 };
    try {
      if (!this.connection.connected) throw new BusDisconnectedError('disconnected');
      await Promise.all(
        [...new Set(events.map((event) => event.subject))].map((subject) => this.ensureStream(subject)),
      );
    } catch (error) {
      return {
        published: 0,
        error: translateNatsError(error, events[0].subject, this.options.requestTimeoutMs),
      };
    }
    const acks = await Promise.allSettled(
      events.map(({ subject, id, json }) => this.jetStreamPublish(subject, id, Buffer.from(json))),
    );
    const failed = acks.findIndex((ack) => ack.status === 'rejected');
    if (failed === -1) return { published: events.length };
    const reason = (acks[failed] as PromiseRejectedResult).reason as unknown;
    return {
      published: failed,
      error: translateNatsError(reason, events[failed].subject, this.options.requestTimeoutMs),
    };
  }

  async consume<E extends EventSubject>(
    subject: E,
    consumer: string,
    handler: EventHandler<E>,
  ): Promise<void> {
    // One event in flight per consumer: a retried event is not overtaken by later ones.
    const messages = await this.durable(subject, consumer, 1);
    void (async () => {
      for await (const message of messages) {
        try {
          await handler(codec.decode(message.data) as EventEnvelope<EventOf<E>>);
          message.ack();
        } catch (error) {
          this.options.onUnexpected?.(error);
          message.nak(RETRY_DELAY_MS);
        }
      }
    })();
  }

  async consumeBatch<E extends EventSubject>(
    subject: E,
    consumer: string,
    handler: EventBatchHandler<E>,
    maxBatch: number,
  ): Promise<void> {
    const messages = await this.durable(subject, consumer, maxBatch);
    const batches = new MessageBatcher<JsMsg>(maxBatch);
    void (async () => {
      for await (const message of messages) batches.push(message);
      batches.end();
    })();
    void (async () => {
      for (let batch = await batches.next(); batch; batch = await batches.next()) {
        try {
          await handler(batch.map((message) => codec.decode(message.data) as EventEnvelope<EventOf<E>>));
          for (const message of batch) message.ack();
        } catch (error) {
          this.options.onUnexpected?.(error);
          for (const message of batch) message.nak(RETRY_DELAY_MS);
        }
      }
    })();
  }

  /** Creates (or updates) the durable pull consumer and starts receiving, `maxAckPending` at a time. */
  private async durable(subject: string, consumer: string, maxAckPending: number): Promise<ConsumerMessages> {
    const stream = streamFor(subject, this.options.namespace);
    const durable = durableName(consumer);
    let messages: ConsumerMessages;
    try {
      await this.ensureStream(subject);
      await this.jsm.consumers.add(stream.name, {
        durable_name: durable,
        filter_subject: this.wire(subject),
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: nanos(30_000),
        max_deliver: -1,
        max_ack_pending: maxAckPending,
      });
      messages = await (
        await this.js.consumers.get(stream.name, durable)
      ).consume({
        max_messages: Math.max(64, maxAckPending),
      });
    } catch (error) {
      throw translateNatsError(error, subject, this.options.requestTimeoutMs);
    }
    this.consumers.push(messages);
    return messages;
  }

  /**
   * Two JetStream API calls: the newest message of the subject, then the consumer's state. A
   * stream or consumer that does not exist yet counts as position 0 (nothing is created here).
   */
  async consumerProgress(subject: EventSubject, consumer: string): Promise<ConsumerProgress> {
    const stream = streamFor(subject, this.options.namespace).name;
    const absent =
      <T>(value: T) =>
      (error: unknown) => {
        if (error instanceof NatsError && error.api_error?.code === 404) return value;
        throw error;
      };
    try {
      if (!this.connection.connected) throw new BusDisconnectedError('disconnected');
      // The newest event first: the consumer's state read after it is at least as recent.
      const published = await this.jsm.streams
        .getMessage(stream, { last_by_subj: this.wire(subject) })
        .then((message) => message.seq, absent(0));
      const info = await this.jsm.consumers.info(stream, durableName(consumer)).catch(absent(undefined));
      if (!info) return { published, acknowledged: 0 };
      // Nothing left to deliver and nothing unacknowledged: every event read above was handled.
      const idle = info.num_pending === 0 && info.num_ack_pending === 0;
      return {
        published,
        acknowledged: idle ? Math.max(published, info.ack_floor.stream_seq) : info.ack_floor.stream_seq,
      };
    } catch (error) {
      throw translateNatsError(error, subject, this.options.requestTimeoutMs);
    }
  }

  async subscribe<E extends EventSubject>(subject: E, handler: EventHandler<E>): Promise<void> {
    const subscription = this.nc.subscribe(this.wire(subject), {
      callback: (error, message) => {
        if (error) return this.options.onUnexpected?.(error);
        let event: EventEnvelope<EventOf<E>>;
        try {
          event = codec.decode(message.data) as EventEnvelope<EventOf<E>>;
        } catch (decodeError) {
          return this.options.onUnexpected?.(decodeError);
        }
        handler(event).catch((handlerError: unknown) => this.options.onUnexpected?.(handlerError));
      },
    });
    this.subscriptions.push(subscription);
    await this.nc.flush();
  }

  private ensureStream(subject: string): Promise<void> {
    const stream = streamFor(subject, this.options.namespace);
    let ensured = this.ensuredStreams.get(stream.name);
    if (!ensured) {
      ensured = this.jsm.streams
        .add({
          name: stream.name,
          subjects: stream.subjects,
          retention: RetentionPolicy.Limits,
          storage: StorageType.File,
          max_age: nanos(7 * 24 * 3600_000),
          duplicate_window: nanos(DUPLICATE_WINDOW_MS),
        })
        .then(() => undefined)
        .catch((error: unknown) => {
          this.ensuredStreams.delete(stream.name);
          throw error;
        });
      this.ensuredStreams.set(stream.name, ensured);
    }
    return ensured;
  }

  async isHealthy(): Promise<boolean> {
    if (this.nc.isClosed() || !this.connection.connected) return false;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 1000)));
    try {
      return await Promise.race([this.nc.flush().then(() => true), timedOut]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.replies.close();
    for (const messages of this.consumers) messages.stop();
    if (!this.nc.isClosed()) await this.nc.drain().catch(() => this.nc.close());
  }
}

/** The JetStream durable name of a consumer (names allow letters, digits, - and _). */
const durableName = (consumer: string) => consumer.replace(/[^A-Za-z0-9_-]/g, '_');

/** A JetStream publish the server refused (its PubAck carried an error). */
export class PublishRefusedError extends Error {}

/** The error of a JetStream PubAck (`{"error":{"code":...,"description":...}}`), else undefined. */
function publishAckError(ack: Uint8Array): PublishRefusedError | undefined {
  let parsed: { error?: { code?: number; description?: string }; stream?: string };
  try {
    parsed = JSON.parse(Buffer.from(ack.buffer, ack.byteOffset, ack.byteLength).toString('utf8'));
  } catch {
    return new PublishRefusedError(
      'JetStream answered the publish with something that is not an acknowledgement',
    );
  }
  if (parsed?.error) {
    return new PublishRefusedError(
      `JetStream refused the publish: ${parsed.error.description ?? 'no description'} (${parsed.error.code ?? '?'})`,
    );
  }
  return parsed?.stream
    ? undefined
    : new PublishRefusedError('JetStream acknowledged the publish without a stream');
}

function translateNatsError(error: unknown, subject: string, timeoutMs: number): unknown {
  if (error instanceof CertlaneError) return error;
  if (error instanceof BusDisconnectedError) {
    return new CertlaneError(ErrorCode.ServiceUnavailable, 'the message bus is unreachable; try again later');
  }
  if (error instanceof NoRespondersError) {
    return new CertlaneError(
      ErrorCode.ServiceUnavailable,
      `no ${owningService(subject)} instance is answering`,
    );
  }
  if (error instanceof ReplyTimeoutError) {
    return new CertlaneError(
      ErrorCode.UpstreamTimeout,
      `${owningService(subject)} did not answer in ${timeoutMs} ms`,
    );
  }
  if (error instanceof PublishRefusedError) {
    return new CertlaneError(ErrorCode.ServiceUnavailable, `message bus error: ${error.message}`);
  }
  if (error instanceof NatsError) {
    if (error.code === '503') {
      return new CertlaneError(
        ErrorCode.ServiceUnavailable,
        `no ${owningService(subject)} instance is answering`,
      );
    }
    if (error.code === 'TIMEOUT') {
      return new CertlaneError(
        ErrorCode.UpstreamTimeout,
        `${owningService(subject)} did not answer in ${timeoutMs} ms`,
      );
    }
    return new CertlaneError(ErrorCode.ServiceUnavailable, `message bus error: ${error.message}`);
  }
  return error;
}
