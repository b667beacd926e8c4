import { CertlaneError, ErrorCode, RequestContext } from '@certlane/contracts';
import { BatchedRequest, BatchOutcome, MessageBus } from './message-bus';
import { RequestCoalescer } from './request-coalescer';

type Subject = 'issuance.v1.ping';
type Trip = {
  kind: 'alone' | 'batch';
  froms: string[];
  finish: (outcome?: unknown) => void;
  fail: (e: unknown) => void;
};

/**
 * A bus whose trips the test finishes by hand, so what travels together is decided by the test's
 * order of events, not by timing.
 */
class ManualBus {
  readonly trips: Trip[] = [];

  requestRaw(_subject: Subject, payload: { from?: string }, options?: { context?: Partial<RequestContext> }) {
    return new Promise<string>((resolve, reject) =>
      this.trips.push({
        kind: 'alone',
        froms: [`${payload.from}@${options?.context?.request_id ?? ''}`],
        finish: (outcome) => resolve((outcome as string | undefined) ?? `"${payload.from}"`),
        fail: reject,
      }),
    ) as Promise<string>;
  }

  requestBatch(_subject: Subject, requests: readonly BatchedRequest<Subject>[]) {
    return new Promise<BatchOutcome[]>((resolve, reject) =>
      this.trips.push({
        kind: 'batch',
        froms: requests.map((r) => `${r.payload.from}@${r.context?.request_id ?? ''}`),
        finish: (outcome) =>
          resolve(
            (outcome as BatchOutcome[] | undefined) ??
              requests.map((r) => ({ ok: true, json: `"${r.payload.from}"` })),
          ),
        fail: reject,
      }),
    );
  }
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('RequestCoalescer', () => {
  let bus: ManualBus;
  let coalescer: RequestCoalescer<Subject>;
  const ask = (from: string) => coalescer.requestRaw({ from }, { request_id: `r-${from}` });

  beforeEach(() => {
    bus = new ManualBus();
    coalescer = new RequestCoalescer(bus as unknown as MessageBus, 'issuance.v1.ping', 3);
  });

  it('sends a request alone when nothing is on the wire', async () => {
    const a = ask('a');
    expect(bus.trips.map((t) => [t.kind, t.froms])).toEqual([['alone', ['a@r-a']]]);
    bus.trips[0].finish();
    await expect(a).resolves.toBe('"a"');
    const b = ask('b');
    await settled();
    expect(bus.trips.map((t) => [t.kind, t.froms])).toEqual([
      ['alone', ['a@r-a']],
      ['alone', ['b@r-b']],
    ]);
    bus.trips[1].finish();
    await expect(b).resolves.toBe('"b"');
  });

  it('sends the requests made during a trip together after it, at most maxBatch at a time', async () => {
    const replies = ['a', 'b', 'c', 'd', 'e'].map(ask);
    expect(bus.trips).toHaveLength(1);
    bus.trips[0].finish();
    await settled();
    expect(bus.trips.map((t) => [t.kind, t.froms])).toEqual([
      ['alone', ['a@r-a']],
      ['batch', ['b@r-b', 'c@r-c', 'd@r-d']],
    ]);
    const f = ask('f');
    bus.trips[1].finish();
    await settled();
    expect(bus.trips[2].froms).toEqual(['e@r-e', 'f@r-f']);
    bus.trips[2].finish();
    await expect(Promise.all([...replies, f])).resolves.toEqual(['"a"', '"b"', '"c"', '"d"', '"e"', '"f"']);
  });

  it('settles each request of a batch with its own outcome', async () => {
    const first = ask('a');
    const [ok, failed] = [ask('b'), ask('c')];
    const failure = new CertlaneError(ErrorCode.Forbidden, 'not yours');
    bus.trips[0].finish();
    await settled();
    bus.trips[1].finish([
      { ok: true, json: '{"b":1}' },
      { ok: false, error: failure },
    ]);
    await expect(first).resolves.toBe('"a"');
    await expect(ok).resolves.toBe('{"b":1}');
    await expect(failed).rejects.toBe(failure);
  });

  it('fails every request of a batch whose trip timed out, without sending them again', async () => {
    void ask('a');
    const waiting = [ask('b'), ask('c')];
    bus.trips[0].finish();
    await settled();
    const timeout = new CertlaneError(ErrorCode.UpstreamTimeout, 'issuance did not answer in 10 ms');
    bus.trips[1].fail(timeout);
    for (const reply of waiting) await expect(reply).rejects.toBe(timeout);
    expect(bus.trips).toHaveLength(2);
  });

  it('sends the requests of a batch one by one when the batch itself is refused', async () => {
    void ask('a');
    const waiting = [ask('b'), ask('c')];
    bus.trips[0].finish();
    await settled();
    bus.trips[1].fail(new CertlaneError(ErrorCode.ServiceUnavailable, 'no issuance instance is answering'));
    await settled();
    expect(bus.trips.slice(2).map((t) => [t.kind, t.froms])).toEqual([
      ['alone', ['b@r-b']],
      ['alone', ['c@r-c']],
    ]);
    bus.trips[2].finish();
    bus.trips[3].fail(new CertlaneError(ErrorCode.NotFound, 'gone'));
    await expect(waiting[0]).resolves.toBe('"b"');
    await expect(waiting[1]).rejects.toMatchObject({ code: ErrorCode.NotFound });
  });

  it('keeps going after a failed lone request', async () => {
    const a = ask('a');
    const b = ask('b');
    bus.trips[0].fail(new CertlaneError(ErrorCode.ServiceUnavailable, 'down'));
    await expect(a).rejects.toMatchObject({ code: ErrorCode.ServiceUnavailable });
    await settled();
    expect(bus.trips[1].kind).toBe('alone');
    bus.trips[1].finish();
    await expect(b).resolves.toBe('"b"');
  });
});
