import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { PrincipalCache } from './principal-cache';
import { RetiredAgentKeys } from './retired-agent-keys';

const unauthenticated = new CertlaneError(ErrorCode.Unauthenticated, 'the API key is not valid');
const credentials = (authorization?: string) => ({ method: 'POST', requestId: 'req-1', authorization });

function keys(answer: { retired: boolean } | Error) {
  const request = jest.fn(() => (answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer)));
  return { request, keys: new RetiredAgentKeys({ request } as never) };
}

describe(RetiredAgentKeys.name, () => {
  it("answers 410 agent_retired for the retired agent's own key, asking by the key's hash", async () => {
    const { request, keys: retired } = keys({ retired: true });
    const refusal = await retired.refusalFor(unauthenticated, credentials('Bearer agent-key'), 'edge-1');
    expect(refusal).toMatchObject({ code: ErrorCode.AgentRetired, message: 'agent "edge-1" is retired' });
    expect(request).toHaveBeenCalledWith(
      'deployment-dispatch.v1.identify-retired-agent-key',
      { id: 'edge-1', key_hash: PrincipalCache.keyOf('agent-key') },
      { context: { request_id: 'req-1' } },
    );
  });

  it('keeps the 401 for a key that is not the retired agent’s', async () => {
    const { keys: other } = keys({ retired: false });
    expect(await other.refusalFor(unauthenticated, credentials('Bearer nobody'), 'edge-1')).toBe(
      unauthenticated,
    );
  });

  it('keeps the 401 when deployment-dispatch cannot answer', async () => {
    const { keys: down } = keys(new CertlaneError(ErrorCode.ServiceUnavailable, 'no responders'));
    expect(await down.refusalFor(unauthenticated, credentials('Bearer agent-key'), 'edge-1')).toBe(
      unauthenticated,
    );
  });

  it('asks nothing for a request without a bearer key, without an agent id, or refused for another reason', async () => {
    const { request, keys: retired } = keys({ retired: true });
    const csrf = new CertlaneError(ErrorCode.CsrfTokenInvalid, 'no token');
    expect(await retired.refusalFor(unauthenticated, credentials(), 'edge-1')).toBe(unauthenticated);
    expect(await retired.refusalFor(unauthenticated, credentials('Bearer k'), undefined)).toBe(
      unauthenticated,
    );
    expect(await retired.refusalFor(csrf, credentials('Bearer k'), 'edge-1')).toBe(csrf);
    expect(request).not.toHaveBeenCalled();
  });
});
