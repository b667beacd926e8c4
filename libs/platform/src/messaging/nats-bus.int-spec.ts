import { createServer, connect as tcpConnect, Server, Socket } from 'node:net';
import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { eventually, startPrivateNats, testNatsUrl, uniqueNamespace } from '@certlane/testing';
import { connect, DiscardPolicy } from 'nats';
import { NatsBus, streamFor } from './nats-bus';
import { buildEnvelope } from './outbox';

/**
 * What only the NATS bus has to get right (the shared behaviour is in bus.contract.int-spec.ts):
 * limits of the transport must still end in a typed reply.
 */

describe(NatsBus.name, () => {
  const open: NatsBus[] = [];

  afterEach(async () => {
    await Promise.all(open.splice(0).map((bus) => bus.close()));
  });

  it('answers a reply too large for NATS with internal_error instead of letting the caller time out', async () => {
    const unexpected: unknown[] = [];
    const bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'certlane-nats-bus-test',
      requestTimeoutMs: 10_000,
      namespace: uniqueNamespace('natsbus'),
      onUnexpected: (error) => unexpected.push(error),
    });
    open.push(bus);
    // The server's max_payload is 1 MiB by default; the reply is twice that.
    await bus.handle('issuance.v1.ping', async () => ({
      service: 'issuance',
      instance: 'x'.repeat(2 << 20),
    }));

    const error = await bus.request('issuance.v1.ping', {}, { timeoutMs: 3000 }).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(CertlaneError);
    expect((error as CertlaneError).code).toBe(ErrorCode.Internal);
    expect(unexpected).toHaveLength(1);
  });

  it('stores a publishMany batch in order and a batch consumer reads it in order, at most maxBatch at a time', async () => {
    const bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'certlane-nats-bus-test',
      requestTimeoutMs: 10_000,
      namespace: uniqueNamespace('natsbatch'),
    });
    open.push(bus);
    const subject = 'issuance.v1.renewal-policy.created' as const;
    const envelopes = Array.from({ length: 300 }, (_, n) =>
      buildEnvelope(subject, { id: `rp-${n}` } as never),
    );
    expect(
      await bus.publishMany(
        envelopes.map((envelope) => ({ subject, id: envelope.id, json: JSON.stringify(envelope) })),
      ),
    ).toEqual({
      published: 300,
    });
    const batches: string[][] = [];
    await bus.consumeBatch(
      subject,
      'batch-reader',
      async (events) => {
        batches.push(events.map((event) => event.id));
      },
      100,
    );
    await eventually(() => batches.flat().length >= 300, 'every event');
    expect(batches.flat()).toEqual(envelopes.map((envelope) => envelope.id));
    expect(batches.every((batch) => batch.length <= 100)).toBe(true);
  });

  it('answers a publish JetStream refuses (its acknowledgement carries an error) with service_unavailable', async () => {
    const namespace = uniqueNamespace('natsrefuse');
    const bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'certlane-nats-bus-test',
      requestTimeoutMs: 10_000,
      namespace,
    });
    open.push(bus);
    const subject = 'issuance.v1.renewal-policy.created' as const;
    const first = buildEnvelope(subject, { id: 'rp-first' } as never);
    await bus.publish(subject, first);
    // The stream now keeps one message and refuses new ones: the next publish is answered with an error.
    const admin = await connect({ servers: [testNatsUrl()] });
    try {
      const jsm = await admin.jetstreamManager();
      const { name } = streamFor(subject, namespace);
      const { config } = await jsm.streams.info(name);
      await jsm.streams.update(name, { ...config, max_msgs: 1, discard: DiscardPolicy.New });
    } finally {
      await admin.close();
    }
    const second = buildEnvelope(subject, { id: 'rp-second' } as never);
    const error = await bus.publish(subject, second).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CertlaneError);
    expect((error as CertlaneError).code).toBe(ErrorCode.ServiceUnavailable);
    expect((error as CertlaneError).message).toMatch(/JetStream refused the publish/);
    const prefix = await bus.publishMany([{ subject, id: second.id, json: JSON.stringify(second) }]);
    expect(prefix.published).toBe(0);
    expect((prefix.error as CertlaneError).code).toBe(ErrorCode.ServiceUnavailable);
  });

  it('tells its reconnect listeners when the connection to NATS came back', async () => {
    // A TCP relay in front of the real server: cutting its sockets drops the bus's connection.
    const upstream = new URL(testNatsUrl());
    const sockets = new Set<Socket>();
    const relay: Server = createServer((client) => {
      const server = tcpConnect(Number(upstream.port || 4222), upstream.hostname);
      for (const socket of [client, server]) {
        sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => sockets.delete(socket));
      }
      client.pipe(server).pipe(client);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    let bus: NatsBus | undefined;
    try {
      const port = (relay.address() as { port: number }).port;
      bus = await NatsBus.connect({
        servers: [`nats://127.0.0.1:${port}`],
        name: 'certlane-nats-bus-reconnect-test',
        requestTimeoutMs: 5_000,
        namespace: uniqueNamespace('natsbus'),
      });
      let reconnects = 0;
      bus.onReconnect(() => reconnects++);
      await bus.handle('issuance.v1.ping', async () => ({ service: 'issuance', instance: 'i' }));
      expect(reconnects).toBe(0);

      for (const socket of sockets) socket.destroy();
      await eventually(async () => reconnects === 1, 'the bus to reconnect through the relay');
      const answer = await bus.request('issuance.v1.ping', {}, { timeoutMs: 3000 });
      expect(answer.instance).toBe('i');
    } finally {
      // The bus first: it would reconnect through the relay and keep it from closing.
      await bus?.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    }
  });

  it('fails requests and publishes at once with service_unavailable while NATS is down, and works again after', async () => {
    const nats = await startPrivateNats();
    let bus: NatsBus | undefined;
    try {
      bus = await NatsBus.connect({
        servers: [nats.url],
        name: 'certlane-nats-bus-outage-test',
        requestTimeoutMs: 5_000,
        namespace: uniqueNamespace('natsbus'),
      });
      await bus.handle('issuance.v1.ping', async () => ({ service: 'issuance', instance: 'i' }));
      let reconnects = 0;
      bus.onReconnect(() => reconnects++);

      await nats.stop();
      const connected = bus;
      await eventually(
        async () => !(await connected.isHealthy()),
        'the bus to notice the server is gone',
        5000,
      );
      const started = Date.now();
      const failures = await Promise.all([
        bus.request('issuance.v1.ping', {}).catch((e: unknown) => e),
        bus.requestBatch('issuance.v1.ping', [{ payload: {} }]).catch((e: unknown) => e),
        bus
          .publish('issuance.v1.renewal-policy.created', {
            id: 'e-1',
            subject: 'issuance.v1.renewal-policy.created',
            occurred_at: new Date().toISOString(),
            data: {},
          } as never)
          .catch((e: unknown) => e),
      ]);
      expect(Date.now() - started).toBeLessThan(1000);
      for (const failure of failures) {
        expect(failure).toBeInstanceOf(CertlaneError);
        expect((failure as CertlaneError).code).toBe(ErrorCode.ServiceUnavailable);
      }

      await nats.start();
      await eventually(async () => reconnects === 1, 'the bus to reconnect', 15_000);
      expect((await bus.request('issuance.v1.ping', {}, { timeoutMs: 3000 })).instance).toBe('i');
    } finally {
      await bus?.close();
      await nats.destroy();
    }
  }, 30_000);
});
