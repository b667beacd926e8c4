import { EventEnvelope } from '@certlane/contracts';
import { InProcessBus } from './in-process-bus';

const SUBJECT = 'issuance.v1.certificate.revoked';

const revoked = (id: string) =>
  ({
    id,
    subject: SUBJECT,
    occurred_at: new Date(0).toISOString(),
    data: {
      issuer_id: 'iss-local',
      serial_hex: id,
      reason: 'keyCompromise',
      revoked_at: new Date(0).toISOString(),
    },
  }) as EventEnvelope<never>;

describe('InProcessBus.drain', () => {
  it('waits until every durable consumer has handled what was published', async () => {
    const bus = new InProcessBus({ requestTimeoutMs: 1_000 });
    const handled: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    await bus.consume(SUBJECT, 'slow-consumer', async (event) => {
      await gate;
      handled.push(event.id);
    });
    await bus.publish(SUBJECT, revoked('e1'));
    await bus.publish(SUBJECT, revoked('e2'));
    let drained: boolean | undefined;
    const draining = bus.drain(60_000).then((result) => (drained = result));
    await Promise.resolve();
    expect([drained, handled]).toEqual([undefined, []]);
    release();
    await draining;
    expect([drained, handled]).toEqual([true, ['e1', 'e2']]);
    await bus.close();
  });

  it('gives up after its bound while a consumer keeps failing, and says so', async () => {
    const bus = new InProcessBus({ requestTimeoutMs: 1_000, retryDelayMs: 60_000 });
    await bus.consume(SUBJECT, 'failing-consumer', async () => {
      throw new Error('database gone');
    });
    await bus.publish(SUBJECT, revoked('e1'));
    expect(await bus.drain(20)).toBe(false);
    await bus.close();
  });

  it('is drained at once with nothing outstanding', async () => {
    const bus = new InProcessBus({ requestTimeoutMs: 1_000 });
    await bus.consume(SUBJECT, 'idle-consumer', async () => undefined);
    expect(await bus.drain(0)).toBe(true);
    await bus.close();
  });
});
