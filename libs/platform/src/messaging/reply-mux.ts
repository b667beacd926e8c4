import { createInbox, Msg, MsgHdrs, NatsConnection, Subscription } from 'nats';
import { ConnectionWatch } from './connection-watch';
import { PublishBatcher } from './publish-batcher';

export class NoRespondersError extends Error {}
export class ReplyTimeoutError extends Error {}
/** The connection to NATS is down (the client is reconnecting): the request was not sent. */
export class BusDisconnectedError extends Error {}

interface Pending {
  resolve: (data: Uint8Array) => void;
  reject: (error: Error) => void;
  deadline: number;
}

const SWEEP_INTERVAL_MS = 25;

/**
 * Request/reply over one wildcard inbox subscription. nats.js's own request() allocates an
 * error object, a request object and a timer per call; on the gateway's hot path that is
 * measurable (bench/gateway-roundtrip). Here a request is a map entry, and one sweep timer
 * expires overdue requests (timeouts are therefore up to 25 ms late).
 */
export class ReplyMux {
  private readonly prefix = `${createInbox()}.`;
  private readonly pending = new Map<string, Pending>();
  private readonly subscription: Subscription;
  private readonly sweeper: NodeJS.Timeout;
  private sequence = 0;
  private closed = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly publisher: PublishBatcher,
    private readonly connection: ConnectionWatch,
  ) {
    this.subscription = nc.subscribe(`${this.prefix}*`, {
      callback: (_error, message) => this.settle(message),
    });
    this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  request(subject: string, data: Uint8Array, timeoutMs: number, headers?: MsgHdrs): Promise<Uint8Array> {
    if (this.closed || this.nc.isClosed()) return Promise.reject(new NoRespondersError('connection closed'));
    // While the client reconnects nats.js would buffer the request and we would wait out the
    // timeout; a request already in flight keeps waiting (it may have been served: 504, not 503).
    if (!this.connection.connected) return Promise.reject(new BusDisconnectedError('disconnected'));
    const token = (++this.sequence).toString(36);
    return new Promise((resolve, reject) => {
      this.pending.set(token, { resolve, reject, deadline: Date.now() + timeoutMs });
      this.publisher.publish(subject, data, this.prefix + token, headers);
    });
  }

  private settle(message: Msg | undefined): void {
    if (!message) return;
    const token = message.subject.slice(this.prefix.length);
    const pending = this.pending.get(token);
    if (!pending) return;
    this.pending.delete(token);
    // The server answers a request nobody subscribes to with an empty 503 status message.
    if (message.data.length === 0 && message.headers?.code === 503) {
      pending.reject(new NoRespondersError('no responders'));
    } else {
      pending.resolve(message.data);
    }
  }

  private sweep(): void {
    const now = Date.now();
    for (const [token, pending] of this.pending) {
      if (pending.deadline <= now) {
        this.pending.delete(token);
        pending.reject(new ReplyTimeoutError('timeout'));
      }
    }
  }

  close(): void {
    this.closed = true;
    clearInterval(this.sweeper);
    this.subscription.unsubscribe();
    for (const pending of this.pending.values()) pending.reject(new NoRespondersError('connection closed'));
    this.pending.clear();
  }
}
