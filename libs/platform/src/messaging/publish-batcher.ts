import { MsgHdrs, NatsConnection } from 'nats';

/**
 * Defers publishes to the end of the current event-loop turn, so the messages of every request
 * handled in that turn leave in one socket write instead of one write each. nats.js flushes per
 * microtask; under load that meant one syscall per request (bench/gateway-roundtrip). At low
 * load the delay is one setImmediate.
 */
export class PublishBatcher {
  private queue: [
    subject: string,
    data: Uint8Array,
    reply: string | undefined,
    headers: MsgHdrs | undefined,
  ][] = [];

  constructor(private readonly nc: NatsConnection) {}

  /** Throws at once (not at flush) when the message is larger than the server accepts. */
  publish(subject: string, data: Uint8Array, reply?: string, headers?: MsgHdrs): void {
    const maxPayload = this.nc.info?.max_payload;
    if (maxPayload !== undefined && data.length > maxPayload) {
      throw new Error(`MAX_PAYLOAD_EXCEEDED: ${data.length} bytes, the server accepts ${maxPayload}`);
    }
    if (this.queue.length === 0) setImmediate(() => this.flush());
    this.queue.push([subject, data, reply, headers]);
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    for (const [subject, data, reply, headers] of batch) {
      try {
        this.nc.publish(subject, data, reply || headers ? { reply, headers } : undefined);
      } catch {
        // A closed connection: requesters time out or see the closed bus; nothing to deliver to.
      }
    }
  }
}
