import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { testNatsUrl, uniqueNamespace } from '@certlane/testing';
import { NatsBus } from './nats-bus';

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
});
