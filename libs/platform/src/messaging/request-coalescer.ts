import { CertlaneError, ErrorCode, RequestContext, RequestOf, RequestSubject } from '@certlane/contracts';
import { MessageBus } from './message-bus';

interface Waiting<S extends RequestSubject> {
  payload: RequestOf<S>;
  context?: Partial<RequestContext>;
  resolve: (json: string) => void;
  reject: (error: unknown) => void;
}

/**
 * Coalesces the requests of one subject (ADR 0036): a request made while none is on the wire goes
 * at once, alone, exactly as requestRaw; requests made while one is on the wire wait for it and
 * then travel together as one batch (MessageBus.requestBatch, at most `maxBatch` at a time). At a
 * low rate nothing changes; under load the number of bus messages falls with the rate, never
 * delaying a request by more than the trip before it.
 *
 * Each request settles with its own outcome. When the trip of a batch fails, a timeout fails
 * every request of it (sending them again would double the wait); any other failure (a replica
 * that does not serve batches yet during a rolling upgrade, a reply too large for one message)
 * sends the batch's requests again one by one.
 */
export class RequestCoalescer<S extends RequestSubject> {
  private queue: Waiting<S>[] = [];
  private sending = false;

  constructor(
    private readonly bus: Pick<MessageBus, 'requestRaw' | 'requestBatch'>,
    private readonly subject: S,
    private readonly maxBatch = 64,
  ) {}

  requestRaw(payload: RequestOf<S>, context?: Partial<RequestContext>): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      this.queue.push({ payload, context, resolve, reject });
      if (!this.sending) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.sending = true;
    try {
      while (this.queue.length > 0) await this.send(this.queue.splice(0, this.maxBatch));
    } finally {
      this.sending = false;
    }
  }

  private async send(batch: Waiting<S>[]): Promise<void> {
    if (batch.length === 1) return this.sendAlone(batch[0]);
    let outcomes;
    try {
      outcomes = await this.bus.requestBatch(
        this.subject,
        batch.map(({ payload, context }) => ({ payload, context })),
      );
    } catch (error) {
      if (error instanceof CertlaneError && error.code === ErrorCode.UpstreamTimeout) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      await Promise.all(batch.map((waiting) => this.sendAlone(waiting)));
      return;
    }
    batch.forEach((waiting, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) waiting.resolve(outcome.json);
      else waiting.reject(outcome.error);
    });
  }

  private async sendAlone(waiting: Waiting<S>): Promise<void> {
    try {
      waiting.resolve(await this.bus.requestRaw(this.subject, waiting.payload, { context: waiting.context }));
    } catch (error) {
      waiting.reject(error);
    }
  }
}
