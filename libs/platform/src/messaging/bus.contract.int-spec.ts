import {
  CertlaneError,
  ErrorCode,
  EventEnvelope,
  EventOf,
  PingRequest,
  RenewalPolicyDto,
  RenewalPolicyIdRequest,
  RequestContext,
} from '@certlane/contracts';
import { eventually, testNatsUrl, uniqueNamespace } from '@certlane/testing';
import { connect } from 'nats';
import { InProcessBus } from './in-process-bus';
import { MessageBus, RawJson } from './message-bus';
import { NatsBus, streamFor } from './nats-bus';
import { buildEnvelope } from './outbox';

/**
 * The behaviour both MessageBus implementations promise (message-bus.ts), written once and run
 * against each: request/reply with validation and typed errors, load sharing between replicas,
 * and durable, ordered, deduplicated, redelivered and resumable event consumers.
 */

const CREATED = 'issuance.v1.renewal-policy.created' as const;
type Created = EventEnvelope<EventOf<typeof CREATED>>;

function policy(id: string, name = `Policy ${id}`): RenewalPolicyDto {
  return {
    id,
    name,
    renewal_window_days: 30,
    max_retries: 3,
    retry_interval_seconds: 3600,
    alert_thresholds_days: [30, 14, 7, 0],
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2025-01-01T00:00:00.000Z',
  };
}

/** The CertlaneError a promise rejects with (fails the test when it resolves or throws something else). */
async function certlaneFailure(promise: Promise<unknown>): Promise<CertlaneError> {
  let outcome: unknown;
  try {
    outcome = { resolved: await promise };
  } catch (error) {
    expect(error).toBeInstanceOf(CertlaneError);
    return error as CertlaneError;
  }
  throw new Error(`expected a CertlaneError, got ${JSON.stringify(outcome)}`);
}

/** A gate a test opens when it is done: lets a handler stay busy without sleeping. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

const ids = (events: Created[]) => events.map((event) => event.id);

interface Peers {
  /** Another member of `bus`'s world: a second replica of the same service. */
  replicaOf(bus: MessageBus): Promise<MessageBus>;
  /**
   * `bus`'s process restarted: its consumers stop and a bus of the same world comes back. In
   * process, memory is the world, so the same bus stays (a consumer is re-created on it).
   */
  restart(bus: MessageBus): Promise<MessageBus>;
}

function describeBusContract(name: string, makeBus: () => Promise<MessageBus>, peers: Peers): void {
  describe(name, () => {
    const open: MessageBus[] = [];
    const track = (bus: MessageBus) => (open.push(bus), bus);
    const newBus = async () => track(await makeBus());

    afterEach(async () => {
      await Promise.all(open.splice(0).map((bus) => bus.close()));
    });

    describe('request/reply', () => {
      it('returns the data the handler answers with', async () => {
        const bus = await newBus();
        const received: unknown[] = [];
        await bus.handle('issuance.v1.ping', async (payload) => {
          received.push(payload);
          return { service: 'issuance', instance: 'instance-1' };
        });
        await bus.handle('auth.v1.ping', async () => ({ service: 'auth', instance: 'instance-2' }));
        await bus.handle('issuance.v1.get-renewal-policy', async ({ id }) => policy(id));
        await bus.handle('issuance.v1.create-renewal-policy', async (payload) => ({
          ...policy('rp-new', payload.name),
          max_retries: payload.max_retries,
        }));

        await expect(bus.request('issuance.v1.ping', { from: 'test' })).resolves.toEqual({
          service: 'issuance',
          instance: 'instance-1',
        });
        expect(received).toEqual([{ from: 'test' }]);
        await expect(bus.request('auth.v1.ping', {})).resolves.toEqual({
          service: 'auth',
          instance: 'instance-2',
        });
        await expect(bus.request('issuance.v1.get-renewal-policy', { id: 'rp-7' })).resolves.toEqual(
          policy('rp-7'),
        );
        await expect(
          bus.request('issuance.v1.create-renewal-policy', { name: 'Short', max_retries: 5 }),
        ).resolves.toEqual({ ...policy('rp-new', 'Short'), max_retries: 5 });
      });

      it('passes the request id and actor id of the caller to the handler', async () => {
        const bus = await newBus();
        const contexts: RequestContext[] = [];
        await bus.handle('issuance.v1.ping', async (_payload, context) => {
          contexts.push(context);
          return { service: 'issuance', instance: 'i' };
        });

        await bus.request('issuance.v1.ping', {}, { context: { request_id: 'req-123', actor_id: 'user-7' } });
        await bus.request('issuance.v1.ping', {});

        expect(contexts[0]).toEqual({ request_id: 'req-123', actor_id: 'user-7' });
        expect(contexts[1].request_id).toEqual(expect.any(String));
        expect(contexts[1].request_id).not.toBe('');
        expect(contexts[1].request_id).not.toBe('req-123');
        expect(contexts[1].actor_id).toBeUndefined();
      });

      it('refuses an invalid payload with validation_failed without invoking the handler', async () => {
        const bus = await newBus();
        const getHandler = jest.fn(async ({ id }: RenewalPolicyIdRequest) => policy(id));
        const pingHandler = jest.fn(async () => ({ service: 'auth', instance: 'i' }));
        await bus.handle('issuance.v1.get-renewal-policy', getHandler);
        await bus.handle('auth.v1.ping', pingHandler);

        const unknownField = await certlaneFailure(
          bus.request('issuance.v1.get-renewal-policy', {
            id: 'rp-1',
            colour: 'red',
          } as RenewalPolicyIdRequest),
        );
        const wrongType = await certlaneFailure(
          bus.request('issuance.v1.get-renewal-policy', { id: 5 } as unknown as RenewalPolicyIdRequest),
        );
        const wrongPing = await certlaneFailure(
          bus.request('auth.v1.ping', { from: 42 } as unknown as PingRequest),
        );

        expect(unknownField.code).toBe(ErrorCode.ValidationFailed);
        expect(unknownField.message).toContain('colour');
        expect(wrongType.code).toBe(ErrorCode.ValidationFailed);
        expect(wrongType.details).toEqual({ fields: [expect.objectContaining({ field: 'id' })] });
        expect(wrongPing.code).toBe(ErrorCode.ValidationFailed);
        expect(getHandler).not.toHaveBeenCalled();
        expect(pingHandler).not.toHaveBeenCalled();
      });

      it('passes a RawJson answer through as its text (requestRaw) and as its value (request)', async () => {
        const bus = await newBus();
        // Spacing and key order exactly as written, a character JSON escapes, and non-ASCII text.
        const text = '{"id":"rp-raw","name":"Politique \\"é\\" ✓","renewal_window_days":30}';
        await bus.handle('issuance.v1.get-renewal-policy', async () => new RawJson<RenewalPolicyDto>(text));
        await bus.handle('issuance.v1.ping', async () => ({ service: 'issuance', instance: 'é' }));

        await expect(bus.requestRaw('issuance.v1.get-renewal-policy', { id: 'rp-raw' })).resolves.toBe(text);
        await expect(bus.request('issuance.v1.get-renewal-policy', { id: 'rp-raw' })).resolves.toEqual(
          JSON.parse(text),
        );
        // An ordinary answer comes as JSON.stringify writes it.
        await expect(bus.requestRaw('issuance.v1.ping', {})).resolves.toBe(
          '{"service":"issuance","instance":"é"}',
        );
      });

      it("throws a handler's CertlaneError from requestRaw as from request", async () => {
        const bus = await newBus();
        await bus.handle('issuance.v1.get-renewal-policy', async ({ id }) => {
          throw new CertlaneError(ErrorCode.RenewalPolicyNotFound, `renewal policy ${id} not found`);
        });
        const error = await certlaneFailure(
          bus.requestRaw('issuance.v1.get-renewal-policy', { id: 'rp-gone' }),
        );
        expect(error.code).toBe('renewal_policy_not_found');
      });

      it('delivers a CertlaneError thrown by the handler with its code, message and details', async () => {
        const bus = await newBus();
        await bus.handle('issuance.v1.get-renewal-policy', async ({ id }) => {
          throw new CertlaneError(ErrorCode.RenewalPolicyNotFound, `renewal policy ${id} not found`, { id });
        });

        const error = await certlaneFailure(bus.request('issuance.v1.get-renewal-policy', { id: 'rp-gone' }));

        expect(error.code).toBe('renewal_policy_not_found');
        expect(error.message).toBe('renewal policy rp-gone not found');
        expect(error.details).toEqual({ id: 'rp-gone' });
      });

      it('reports a plain Error thrown by the handler as internal_error without its message', async () => {
        const bus = await newBus();
        await bus.handle('issuance.v1.get-renewal-policy', async () => {
          throw new Error('password=hunter2 at db.internal:5432');
        });

        const error = await certlaneFailure(bus.request('issuance.v1.get-renewal-policy', { id: 'rp-1' }));

        expect(error.code).toBe(ErrorCode.Internal);
        expect(error.message).toBe('internal error');
        expect(JSON.stringify({ ...error.toPayload(), stack: error.stack })).not.toMatch(
          /hunter2|db\.internal/,
        );
      });

      it('fails with service_unavailable when no handler serves the subject', async () => {
        const bus = await newBus();
        await bus.handle('issuance.v1.ping', async () => ({ service: 'issuance', instance: 'i' }));

        const error = await certlaneFailure(bus.request('revocation.v1.ping', {}));

        expect(error.code).toBe(ErrorCode.ServiceUnavailable);
        expect(error.message).toContain('revocation');
      });

      it('fails with upstream_timeout when the handler answers later than timeoutMs', async () => {
        const bus = await newBus();
        const busy = gate();
        let invoked = 0;
        await bus.handle('issuance.v1.ping', async () => {
          invoked += 1;
          await busy.wait;
          return { service: 'issuance', instance: 'slow' };
        });

        try {
          const started = Date.now();
          const error = await certlaneFailure(bus.request('issuance.v1.ping', {}, { timeoutMs: 200 }));
          expect(error.code).toBe(ErrorCode.UpstreamTimeout);
          expect(error.message).toContain('200');
          expect(Date.now() - started).toBeGreaterThanOrEqual(190);
          expect(invoked).toBe(1);
        } finally {
          busy.open();
        }
      });

      it('lets two replicas of a handler share the requests, each request handled exactly once', async () => {
        const first = await newBus();
        const second = track(await peers.replicaOf(first));
        const handled = { a: 0, b: 0 };
        await first.handle(
          'issuance.v1.ping',
          async () => (handled.a++, { service: 'issuance', instance: 'a' }),
        );
        await second.handle(
          'issuance.v1.ping',
          async () => (handled.b++, { service: 'issuance', instance: 'b' }),
        );

        const replies = await Promise.all(
          Array.from({ length: 20 }, (_, i) => first.request('issuance.v1.ping', { from: `caller-${i}` })),
        );

        expect(handled.a + handled.b).toBe(20);
        expect(handled.a).toBeGreaterThan(0);
        expect(handled.b).toBeGreaterThan(0);
        expect(replies.filter((reply) => reply.instance === 'a')).toHaveLength(handled.a);
        expect(replies.filter((reply) => reply.instance === 'b')).toHaveLength(handled.b);
      });

      it('refuses requests once closed with service_unavailable', async () => {
        const bus = await newBus();
        await bus.handle('issuance.v1.ping', async () => ({ service: 'issuance', instance: 'i' }));
        expect(await bus.isHealthy()).toBe(true);

        await bus.close();

        expect(await bus.isHealthy()).toBe(false);
        expect((await certlaneFailure(bus.request('issuance.v1.ping', {}))).code).toBe(
          ErrorCode.ServiceUnavailable,
        );
      });
    });

    describe('batches (requestBatch)', () => {
      it('answers each request of a batch as requestRaw answers it alone, in order, each with its context', async () => {
        const bus = await newBus();
        const contexts: RequestContext[] = [];
        await bus.handle('issuance.v1.get-renewal-policy', async ({ id }, context) => {
          contexts.push(context);
          if (id === 'rp-gone') {
            throw new CertlaneError(ErrorCode.RenewalPolicyNotFound, `renewal policy ${id} not found`, {
              id,
            });
          }
          if (id === 'rp-bug') throw new Error('a secret detail');
          if (id === 'rp-raw') return new RawJson<RenewalPolicyDto>('{"id":"rp-raw","raw":"✓ \\"q\\""}');
          return policy(id);
        });
        const requests = [
          { payload: { id: 'rp-1' }, context: { request_id: 'batch-1', actor_id: 'user-1' } },
          { payload: { id: 'rp-gone' }, context: { request_id: 'batch-2' } },
          { payload: { id: 'rp-raw' }, context: { request_id: 'batch-3', actor_id: 'agent.a1' } },
          { payload: { id: 7 } as unknown as RenewalPolicyIdRequest, context: { request_id: 'batch-4' } },
          { payload: { id: 'rp-bug' }, context: { request_id: 'batch-5' } },
          { payload: { id: 'rp-2' } },
        ];

        const outcomes = await bus.requestBatch('issuance.v1.get-renewal-policy', requests);

        expect(outcomes).toHaveLength(6);
        expect(outcomes[0]).toEqual({ ok: true, json: JSON.stringify(policy('rp-1')) });
        expect(outcomes[2]).toEqual({ ok: true, json: '{"id":"rp-raw","raw":"✓ \\"q\\""}' });
        expect(outcomes[5]).toEqual({ ok: true, json: JSON.stringify(policy('rp-2')) });
        const failures = [outcomes[1], outcomes[3], outcomes[4]].map((outcome) => {
          if (outcome.ok) throw new Error(`expected a failure, got ${outcome.json}`);
          expect(outcome.error).toBeInstanceOf(CertlaneError);
          return outcome.error;
        });
        expect(failures.map((error) => error.code)).toEqual([
          'renewal_policy_not_found',
          ErrorCode.ValidationFailed,
          ErrorCode.Internal,
        ]);
        expect(failures[0].details).toEqual({ id: 'rp-gone' });
        expect(failures[2].message).not.toContain('secret');
        // Each request alone gives the same outcome.
        for (const [i, request] of requests.entries()) {
          const alone = await bus.requestRaw('issuance.v1.get-renewal-policy', request.payload).then(
            (json) => ({ ok: true, json }),
            (error: CertlaneError) => ({ ok: false, code: error.code }),
          );
          const batched = outcomes[i];
          expect(alone).toEqual(batched.ok ? batched : { ok: false, code: batched.error.code });
        }
        // The invalid payload never reached the handler; every other request did, with its context.
        const batchContexts = contexts.slice(0, 5);
        const batchIds = batchContexts.map((context) => context.request_id);
        expect(batchIds.filter((id) => id.startsWith('batch-')).sort()).toEqual([
          'batch-1',
          'batch-2',
          'batch-3',
          'batch-5',
        ]);
        // The last request had no request id: it was given one.
        expect(batchIds.filter((id) => !id.startsWith('batch-'))).toEqual([expect.any(String)]);
        expect(batchContexts).toContainEqual({ request_id: 'batch-1', actor_id: 'user-1' });
        expect(batchContexts).toContainEqual({ request_id: 'batch-3', actor_id: 'agent.a1' });
      });

      it('runs the requests of a batch concurrently, as separate requests would be', async () => {
        const bus = await newBus();
        const both = gate();
        let waiting = 0;
        await bus.handle('issuance.v1.ping', async () => {
          if (++waiting === 2) both.open();
          await both.wait;
          return { service: 'issuance', instance: 'i' };
        });
        const outcomes = await bus.requestBatch('issuance.v1.ping', [{ payload: {} }, { payload: {} }]);
        expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true]);
      });

      it('answers an empty batch with no outcomes, and a batch nobody serves with service_unavailable', async () => {
        const bus = await newBus();
        await expect(bus.requestBatch('issuance.v1.ping', [])).resolves.toEqual([]);
        const error = await certlaneFailure(bus.requestBatch('auth.v1.ping', [{ payload: {} }]));
        expect(error.code).toBe(ErrorCode.ServiceUnavailable);
      });

      it('lets replicas share batches, each request handled once', async () => {
        const first = await newBus();
        const second = track(await peers.replicaOf(first));
        let handled = 0;
        for (const bus of [first, second]) {
          await bus.handle(
            'issuance.v1.ping',
            async ({ from }) => (handled++, { service: 'issuance', instance: from ?? '' }),
          );
        }
        const batches = await Promise.all(
          Array.from({ length: 10 }, (_, b) =>
            first.requestBatch(
              'issuance.v1.ping',
              Array.from({ length: 3 }, (_, i) => ({ payload: { from: `c-${b}-${i}` } })),
            ),
          ),
        );
        expect(handled).toBe(30);
        batches.forEach((outcomes, b) =>
          expect(outcomes).toEqual(
            [0, 1, 2].map((i) => ({
              ok: true,
              json: JSON.stringify({ service: 'issuance', instance: `c-${b}-${i}` }),
            })),
          ),
        );
      });
    });

    describe('fan-out subscriptions', () => {
      it('gives every subscriber (every replica) each event published after it subscribed', async () => {
        const first = await newBus();
        const second = track(await peers.replicaOf(first));
        const seen: Record<string, string[]> = { first: [], second: [] };
        await first.subscribe(CREATED, async (event) => void seen.first.push(event.id));
        await second.subscribe(CREATED, async (event) => void seen.second.push(event.id));
        const event = buildEnvelope(CREATED, policy('rp-fanout'));
        await first.publish(CREATED, event);

        await eventually(() => seen.first.length >= 1 && seen.second.length >= 1, 'both subscribers');
        expect(seen).toEqual({ first: [event.id], second: [event.id] });
      });
    });

    describe('durable events', () => {
      /** Starts a consumer that records what its handler completed. */
      async function recordingConsumer(bus: MessageBus, consumer: string) {
        const received: Created[] = [];
        await bus.consume(CREATED, consumer, async (event) => {
          received.push(event);
        });
        return received;
      }

      it('delivers an event published before the consumer subscribed', async () => {
        const bus = await newBus();
        const event = buildEnvelope(CREATED, policy('rp-early'), 'user-1');
        await bus.publish(CREATED, event);

        const received = await recordingConsumer(bus, 'late-subscriber');

        await eventually(() => received.length >= 1, 'the early event');
        expect(received).toEqual([event]);
      });

      it('delivers events in the order they were published', async () => {
        const bus = await newBus();
        const received = await recordingConsumer(bus, 'ordered');
        const events = Array.from({ length: 10 }, (_, i) => buildEnvelope(CREATED, policy(`rp-${i}`)));
        for (const event of events) await bus.publish(CREATED, event);

        await eventually(() => received.length >= events.length, 'all ten events');
        expect(ids(received)).toEqual(ids(events));
      });

      it('delivers every event to each differently named consumer', async () => {
        const bus = await newBus();
        const left = await recordingConsumer(bus, 'left');
        const right = await recordingConsumer(bus, 'right');
        const events = [buildEnvelope(CREATED, policy('rp-a')), buildEnvelope(CREATED, policy('rp-b'))];
        for (const event of events) await bus.publish(CREATED, event);

        await eventually(() => left.length >= 2 && right.length >= 2, 'both consumers to get both events');
        expect(ids(left)).toEqual(ids(events));
        expect(ids(right)).toEqual(ids(events));
      });

      it('delivers an envelope published twice only once', async () => {
        const bus = await newBus();
        const received = await recordingConsumer(bus, 'dedup');
        const event = buildEnvelope(CREATED, policy('rp-twice'));
        const marker = buildEnvelope(CREATED, policy('rp-marker'));

        await bus.publish(CREATED, event);
        await bus.publish(CREATED, { ...event });
        await bus.publish(CREATED, marker);

        // events arrive in order, so a stored duplicate would show before the marker
        await eventually(() => ids(received).includes(marker.id), 'the marker event');
        expect(ids(received)).toEqual([event.id, marker.id]);
      });

      it('delivers an event again after the handler threw', async () => {
        const bus = await newBus();
        const attempts = new Map<string, number>();
        const completed: string[] = [];
        await bus.consume(CREATED, 'flaky', async (event) => {
          const attempt = (attempts.get(event.id) ?? 0) + 1;
          attempts.set(event.id, attempt);
          if (attempt === 1 && event.data.id === 'rp-flaky') throw new Error('transient failure');
          completed.push(event.id);
        });
        const flaky = buildEnvelope(CREATED, policy('rp-flaky'));
        const steady = buildEnvelope(CREATED, policy('rp-steady'));

        await bus.publish(CREATED, flaky);
        await bus.publish(CREATED, steady);

        await eventually(() => completed.includes(flaky.id) && completed.includes(steady.id), 'redelivery');
        expect(attempts.get(flaky.id)).toBe(2);
        expect(attempts.get(steady.id)).toBe(1);
        expect(completed.filter((id) => id === flaky.id)).toHaveLength(1);
      });

      it('resumes a re-created consumer after its last acknowledged event', async () => {
        const bus = await newBus();
        const before = await recordingConsumer(bus, 'restartable');
        const old = [buildEnvelope(CREATED, policy('rp-old-1')), buildEnvelope(CREATED, policy('rp-old-2'))];
        for (const event of old) await bus.publish(CREATED, event);
        await eventually(() => before.length >= 2, 'the first two events');

        const restarted = track(await peers.restart(bus));
        const after = await recordingConsumer(restarted, 'restartable');
        const fresh = buildEnvelope(CREATED, policy('rp-new'));
        await restarted.publish(CREATED, fresh);

        // in order: a replay of the old events would arrive before the new one
        await eventually(() => after.length >= 1, 'the event published after the restart');
        expect(ids(after)).toEqual([fresh.id]);
        expect(ids(before)).toEqual(ids(old));
      });

      it('reports how far a durable consumer has acknowledged the events of its subject', async () => {
        const bus = await newBus();
        expect(await bus.consumerProgress(CREATED, 'progress')).toEqual({ published: 0, acknowledged: 0 });
        const held = gate();
        const completed: string[] = [];
        await bus.consume(CREATED, 'progress', async (event) => {
          if (event.data.id === 'rp-progress-2') await held.wait;
          completed.push(event.id);
        });
        for (let i = 1; i <= 3; i++)
          await bus.publish(CREATED, buildEnvelope(CREATED, policy(`rp-progress-${i}`)));
        await eventually(() => completed.length === 1, 'the first event');

        const busy = await bus.consumerProgress(CREATED, 'progress');
        expect(busy.published).toBeGreaterThan(0);
        expect(busy.acknowledged).toBeLessThan(busy.published);
        held.open();
        await eventually(async () => {
          const progress = await bus.consumerProgress(CREATED, 'progress');
          return progress.acknowledged >= busy.published;
        }, 'every event acknowledged');
        expect(completed).toHaveLength(3);
        // A consumer that does not exist has acknowledged nothing.
        expect(await bus.consumerProgress(CREATED, 'nobody')).toEqual({
          published: busy.published,
          acknowledged: 0,
        });
      });

      it('refuses to publish once closed with service_unavailable', async () => {
        const bus = await newBus();
        await bus.close();

        const error = await certlaneFailure(bus.publish(CREATED, buildEnvelope(CREATED, policy('rp-late'))));

        expect(error.code).toBe(ErrorCode.ServiceUnavailable);
      });
    });
  });
}

describeBusContract(
  InProcessBus.name,
  async () => new InProcessBus({ requestTimeoutMs: 5000, retryDelayMs: 50 }),
  { replicaOf: async (bus) => bus, restart: async (bus) => bus },
);

const namespaceOf = new Map<MessageBus, string>();
const connectNats = async (namespace: string): Promise<MessageBus> => {
  const bus = await NatsBus.connect({
    servers: [testNatsUrl()],
    name: `certlane-bus-contract-${namespace}`,
    requestTimeoutMs: 5000,
    namespace,
  });
  namespaceOf.set(bus, namespace);
  return bus;
};

// Each bus of the NATS suite gets a namespace of its own (its replicas and restarts share it),
// so no test sees another's handlers or stream, and parallel test files never collide.
describeBusContract(NatsBus.name, () => connectNats(uniqueNamespace('buscontract')), {
  replicaOf: (bus) => connectNats(namespaceOf.get(bus)!),
  restart: async (bus) => {
    await bus.close();
    return connectNats(namespaceOf.get(bus)!);
  },
});

afterAll(async () => {
  // Streams outlive connections: remove the ones these tests created.
  const nc = await connect({ servers: [testNatsUrl()] });
  try {
    const jsm = await nc.jetstreamManager();
    for (const namespace of new Set(namespaceOf.values())) {
      await jsm.streams.delete(streamFor(CREATED, namespace).name).catch(() => undefined);
    }
  } finally {
    await nc.close();
  }
});
