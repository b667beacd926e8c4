import { CertlaneConfig, ServiceOutbox } from '@certlane/platform';
import { RoleRepository } from '../roles/role.repository';
import { UserRepository } from '../users/user.repository';
import { SessionKeyring, sha256Hex } from './session-cookie';
import { SessionRepository, SessionRow } from './session.repository';
import { SessionService, touchGapSeconds } from './session.service';

const SECRET = 'a-session-secret-of-at-least-32-characters';
const SESSION_ID = '0123456789abcdef0123456789abcdef';

/**
 * What authentication records of a session's use (ADR 0017 and its amendment): a request counts
 * as use unless the client marked it as background work, which is checked all the same.
 */
describe('SessionService.authenticate and the idle timeout', () => {
  const keyring = new SessionKeyring([SECRET]);
  let touch: jest.Mock;
  let lastSeenAgoMs: number;

  function service(idleTimeoutMs = 3_600_000): SessionService {
    const now = new Date();
    const row: SessionRow & { user_active: boolean; now: Date } = {
      id: SESSION_ID,
      actor_id: 'alice',
      method: 'oidc',
      signing_key_id: keyring.currentKid,
      csrf_token_hash: sha256Hex('csrf'),
      user_agent_hash: sha256Hex(''),
      client_ip: '127.0.0.1',
      created_at: new Date(now.getTime() - 7_200_000),
      last_seen_at: new Date(now.getTime() - lastSeenAgoMs),
      expires_at: new Date(now.getTime() + 3_600_000),
      revoked_at: null,
      user_active: true,
      now,
    };
    const sessions = {
      findForAuth: jest.fn().mockResolvedValue(row),
      touch,
    } as unknown as SessionRepository;
    const roles = {
      grantsOf: jest.fn().mockResolvedValue({ roleIds: [], permissions: [], scopedPermissions: {} }),
    } as unknown as RoleRepository;
    const config = {
      session: { secrets: [SECRET], idleTimeoutMs, bindUserAgent: false },
    } as unknown as CertlaneConfig;
    return new SessionService(sessions, {} as UserRepository, roles, config, {} as ServiceOutbox);
  }

  beforeEach(() => {
    touch = jest.fn().mockResolvedValue(undefined);
    lastSeenAgoMs = 5 * 60_000;
  });

  it("counts a user's request as use of the session", async () => {
    const answer = await service().authenticate({ cookie: keyring.sign(SESSION_ID) });
    expect(answer.session?.session_id).toBe(SESSION_ID);
    expect(touch).toHaveBeenCalledWith(SESSION_ID, 60);
  });

  it('checks a background request (a poll) like any other but does not count it as use', async () => {
    const answer = await service().authenticate({ cookie: keyring.sign(SESSION_ID), background: true });
    expect(answer.session?.principal.actor_id).toBe('alice');
    expect(touch).not.toHaveBeenCalled();
  });

  it('refuses an idle session whether or not the request is background', async () => {
    lastSeenAgoMs = 3_600_000;
    for (const background of [true, false]) {
      const answer = await service().authenticate({ cookie: keyring.sign(SESSION_ID), background });
      expect(answer).toEqual({ session: null });
    }
    expect(touch).not.toHaveBeenCalled();
  });

  it('records use often enough for the shortest idle timeout to be kept alive by use', async () => {
    // A one-minute gap never wrote while a 1m session was valid: every session ended a minute
    // after its login however busy.
    expect(touchGapSeconds(60_000)).toBe(15);
    expect(touchGapSeconds(120_000)).toBe(30);
    expect(touchGapSeconds(3_600_000)).toBe(60);
    lastSeenAgoMs = 20_000;
    await service(60_000).authenticate({ cookie: keyring.sign(SESSION_ID) });
    expect(touch).toHaveBeenCalledWith(SESSION_ID, 15);
  });
});
