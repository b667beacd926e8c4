import { createHash } from 'node:crypto';
import { CertlaneError, ErrorCode, Principal } from '@certlane/contracts';
import { CertlaneConfig, MessageBus } from '@certlane/platform';
import { Authenticator, Credentials } from './authenticator';
import { PrincipalCache } from './principal-cache';

const COOKIE = 'v1.0a1b2c3d.0123456789abcdef0123456789abcdef.mac';
const principal: Principal = {
  actor_id: 'alice',
  actor_type: 'session',
  session_id: '0123456789abcdef0123456789abcdef',
  admin: false,
  role_ids: [],
  permissions: [],
};

/**
 * How the gateway asks the auth service about a session cookie (ADR 0017 and its amendment):
 * `X-Certlane-Background: 1` goes along as `background`, and a poll's answer never stands in for
 * a user's request.
 */
describe('Authenticator: session cookies and background requests', () => {
  let request: jest.Mock;
  let authenticator: Authenticator;

  const credentials = (background?: boolean): Credentials => ({
    method: 'GET',
    requestId: 'req-1',
    cookie: `service_session=${COOKIE}`,
    userAgent: 'browser/1',
    background,
  });
  const answer = {
    session: {
      principal,
      session_id: principal.session_id,
      csrf_token_hash: 'h',
      expires_at: '2099-01-01T00:00:00.000Z',
    },
  };

  beforeEach(() => {
    request = jest.fn().mockResolvedValue(answer);
    const config = {
      auth: { type: 'api-key', secret: 'an-auth-secret-of-at-least-32-characters', namedKeys: [] },
      session: { bindUserAgent: false },
    } as unknown as CertlaneConfig;
    authenticator = new Authenticator(config, { request } as unknown as MessageBus, new PrincipalCache());
  });

  it('passes the background flag, and only when set', async () => {
    await authenticator.authenticate(credentials(true));
    await authenticator.authenticate(credentials(false));
    expect(request.mock.calls.map((call) => call[1])).toEqual([
      { cookie: COOKIE, user_agent: 'browser/1', background: true },
      { cookie: COOKIE, user_agent: 'browser/1' },
    ]);
  });

  it("asks again for a user's request made within the cache TTL of a poll's answer (and serves polls from the poll's)", async () => {
    await authenticator.authenticate(credentials(true));
    await authenticator.authenticate(credentials(true));
    await authenticator.authenticate(credentials(false));
    await authenticator.authenticate(credentials(false));
    expect(request).toHaveBeenCalledTimes(2);
  });

  it('asks without the flag an auth service that does not know it yet (a rolling upgrade)', async () => {
    request.mockRejectedValueOnce(
      CertlaneError.validation([{ field: 'background', message: 'background is not a known field' }]),
    );
    await expect(authenticator.authenticate(credentials(true))).resolves.toMatchObject({ id: 'alice' });
    expect(request.mock.calls.map((call) => call[1])).toEqual([
      { cookie: COOKIE, user_agent: 'browser/1', background: true },
      { cookie: COOKIE, user_agent: 'browser/1' },
    ]);
  });

  it('does not ask again for any other refusal', async () => {
    request.mockRejectedValueOnce(
      CertlaneError.validation([{ field: 'cookie', message: 'cookie is too long' }]),
    );
    await expect(authenticator.authenticate(credentials(true))).rejects.toThrow('cookie is too long');
    expect(request).toHaveBeenCalledTimes(1);
  });
});

/** How the gateway asks the auth service about an API key (ADR 0013 amendment). */
describe('Authenticator: API keys', () => {
  const KEY = 'ab'.repeat(32);
  const HASH = createHash('sha256').update(KEY, 'utf8').digest('hex');
  let request: jest.Mock;
  let authenticator: Authenticator;
  const credentials = (): Credentials => ({
    method: 'GET',
    requestId: 'req-1',
    authorization: `Bearer ${KEY}`,
  });

  beforeEach(() => {
    request = jest.fn().mockResolvedValue({ principal: { ...principal, actor_type: 'api-key' } });
    const config = {
      auth: { type: 'api-key', secret: 'an-auth-secret-of-at-least-32-characters', namedKeys: [] },
      session: { bindUserAgent: false },
    } as unknown as CertlaneConfig;
    authenticator = new Authenticator(config, { request } as unknown as MessageBus, new PrincipalCache());
  });

  it("sends the key's SHA-256, never the key", async () => {
    await expect(authenticator.authenticate(credentials())).resolves.toMatchObject({ id: 'alice' });
    expect(request.mock.calls.map((call) => [call[0], call[1]])).toEqual([
      ['auth.v1.authenticate-api-key', { key_hash: HASH }],
    ]);
  });

  it('asks with the key an auth service that does not know key_hash yet (a rolling upgrade)', async () => {
    request.mockRejectedValueOnce(
      CertlaneError.validation([{ field: 'key_hash', message: 'property key_hash should not exist' }]),
    );
    await expect(authenticator.authenticate(credentials())).resolves.toMatchObject({ id: 'alice' });
    expect(request.mock.calls.map((call) => call[1])).toEqual([{ key_hash: HASH }, { key: KEY }]);
  });

  it('does not send the key for any other failure', async () => {
    request.mockRejectedValueOnce(new CertlaneError(ErrorCode.ServiceUnavailable, 'auth is down'));
    await expect(authenticator.authenticate(credentials())).rejects.toThrow('auth is down');
    expect(request).toHaveBeenCalledTimes(1);
  });
});
