import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { InProcessBus } from './in-process-bus';

describe('a bus handler whose database is unreachable', () => {
  it('answers service_unavailable, not internal_error, and is not reported as unexpected', async () => {
    const unexpected: unknown[] = [];
    const outcomes: string[] = [];
    const bus = new InProcessBus({
      requestTimeoutMs: 1000,
      onUnexpected: (error) => unexpected.push(error),
      onRequestHandled: (_subject, outcome) => outcomes.push(outcome),
    });
    await bus.handle('issuance.v1.ping', async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    });

    const error = await bus.request('issuance.v1.ping', {}).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(CertlaneError);
    expect((error as CertlaneError).code).toBe(ErrorCode.ServiceUnavailable);
    expect(outcomes).toEqual([ErrorCode.ServiceUnavailable]);
    expect(unexpected).toEqual([]);
    await bus.close();
  });

  it('still answers internal_error for a bug', async () => {
    const bus = new InProcessBus({ requestTimeoutMs: 1000, onUnexpected: () => undefined });
    await bus.handle('issuance.v1.ping', async () => {
      throw new TypeError('boom');
    });

    const error = await bus.request('issuance.v1.ping', {}).catch((e: unknown) => e);

    expect((error as CertlaneError).code).toBe(ErrorCode.Internal);
    await bus.close();
  });
});
