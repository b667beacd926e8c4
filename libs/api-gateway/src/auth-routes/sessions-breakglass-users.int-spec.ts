import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import {
  eventually,
  httpsRequest,
  HttpsResult,
  ServiceProcess,
  startServiceProcess,
  startTestSystem,
  TestSystem,
} from '@certlane/testing';
import { Client } from 'pg';

const PASSWORD = 'emergency-door-password-0001';
const LOCKOUT_THRESHOLD = 3;

interface Login {
  status: number;
  cookie: string;
  csrf: string;
  sessionId: string;
  response: HttpsResult;
}

/**
 * Sessions and CSRF (spec 5.4), break-glass (5.7) and users (4.10), through two real gateway
 * processes in front of one auth service, over HTTPS. Both gateways trust 127.0.0.1 as a proxy,
 * so each test picks its client IP with X-Forwarded-For (and so its own rate-limit bucket).
 */
describe('sessions, break-glass and users through gateway -> NATS -> auth', () => {
  let system: TestSystem;
  let ca: string;
  let gw1: string;
  let gw2: string;
  let adminKey: string;
  let db: Client;
  const extra: ServiceProcess[] = [];
  const bodies: string[] = [];
  const passwords = new Set<string>([PASSWORD]);
  let nextIp = 1;
  const freshIp = () => `198.51.100.${nextIp++}`;

  async function call(
    method: string,
    url: string,
    options: {
      key?: string;
      cookie?: string;
      csrf?: string;
      body?: unknown;
      ip?: string;
      userAgent?: string;
      headers?: Record<string, string>;
    } = {},
  ): Promise<HttpsResult> {
    const response = await httpsRequest(url, {
      method,
      ca,
      headers: {
        ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
        ...(options.cookie !== undefined ? { cookie: options.cookie } : {}),
        ...(options.csrf !== undefined ? { 'x-csrf-token': options.csrf } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(options.ip ? { 'x-forwarded-for': options.ip } : {}),
        ...(options.userAgent ? { 'user-agent': options.userAgent } : {}),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    bodies.push(response.text);
    return response;
  }

  const setCookies = (response: HttpsResult): string[] => {
    const header = response.headers['set-cookie'];
    return Array.isArray(header) ? header : header ? [header] : [];
  };
  const cookieValue = (response: HttpsResult, name: string) =>
    setCookies(response)
      .find((c) => c.startsWith(`${name}=`))
      ?.split(';')[0]
      .slice(name.length + 1) ?? '';

  async function login(
    actorId: string,
    password = PASSWORD,
    options: { url?: string; ip?: string; userAgent?: string } = {},
  ): Promise<Login> {
    passwords.add(password);
    const response = await call('POST', `${options.url ?? gw1}/auth/breakglass/login`, {
      body: { actor_id: actorId, password },
      ip: options.ip ?? freshIp(),
      userAgent: options.userAgent,
    });
    const body =
      response.status === 200 ? (response.json() as { session_id: string; csrf_token: string }) : null;
    return {
      status: response.status,
      cookie: `service_session=${cookieValue(response, 'service_session')}`,
      csrf: body?.csrf_token ?? '',
      sessionId: body?.session_id ?? '',
      response,
    };
  }

  async function setCredential(actorId: string, password = PASSWORD): Promise<HttpsResult> {
    passwords.add(password);
    return call('POST', `${gw1}/api/v1/auth/breakglass/credentials`, {
      key: adminKey,
      body: { actor_id: actorId, password },
    });
  }

  async function createKey(body: Record<string, unknown>): Promise<{ id: string; key: string }> {
    const created = await call('POST', `${gw1}/api/v1/auth/api-keys`, { key: adminKey, body });
    expect(created.status).toBe(201);
    return created.json() as { id: string; key: string };
  }

  const auditActions = async (): Promise<string[]> =>
    (
      await db.query<{ action: string }>(
        `SELECT envelope->'data'->>'action' AS action FROM auth.outbox
          WHERE subject = 'auth.v1.audit.recorded' ORDER BY seq`,
      )
    ).rows.map((row) => row.action);

  beforeAll(async () => {
    system = await startTestSystem('sessions', ['auth', 'api-gateway'], {
      SERVICE_BREAKGLASS_ENABLED: 'true',
      SERVICE_BREAKGLASS_LOCKOUT_THRESHOLD: String(LOCKOUT_THRESHOLD),
      SERVICE_TRUSTED_PROXIES: '127.0.0.1',
      SERVICE_SESSION_BIND_USER_AGENT: 'true',
      SERVICE_SESSION_SAMESITE: 'strict',
      SERVICE_SESSION_GC_INTERVAL: '1s',
    });
    ca = system.ca;
    gw1 = system.services['api-gateway'].url;
    const second = await startServiceProcess('api-gateway', system.env, { ca });
    extra.push(second);
    gw2 = second.url;
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    const root = await call('POST', `${gw1}/api/v1/auth/api-keys`, {
      key: system.env.SERVICE_AUTH_SECRET,
      body: { name: 'root-admin', actor_id: 'root-admin', admin: true, role_ids: ['r-admin'] },
    });
    expect(root.status).toBe(201);
    adminKey = (root.json() as { key: string }).key;
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await Promise.all(extra.map((service) => service.stop()));
    await system?.stop();
  });

  describe('break-glass credentials', () => {
    it('refuses a password shorter than 16 characters with 400', async () => {
      const response = await setCredential('short-pw', 'too-short');
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ code: 'validation_failed' });
    });

    it('creates a credential with 201, rotates it with 200, and never shows the hash', async () => {
      const created = await setCredential('alice');
      expect(created.status).toBe(201);
      expect(created.json()).toEqual({
        actor_id: 'alice',
        locked: false,
        failed_attempts: 0,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        last_login_at: null,
      });
      const rotated = await setCredential('alice', `${PASSWORD}-2`);
      expect(rotated.status).toBe(200);
      expect((await setCredential('alice')).status).toBe(200);
      const list = await call('GET', `${gw1}/api/v1/auth/breakglass/credentials`, { key: adminKey });
      expect(list.status).toBe(200);
      expect(list.json()).toMatchObject({ total: 1, data: [{ actor_id: 'alice', locked: false }] });
      expect(list.text).not.toMatch(/hash|scrypt|password/);
      const stored = await db.query<{ password_hash: string }>(
        'SELECT password_hash FROM auth.breakglass_credentials',
      );
      expect(stored.rows[0].password_hash).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$/);
    });

    it('answers 404 when deleting or unlocking an unknown credential', async () => {
      expect(
        (await call('DELETE', `${gw1}/api/v1/auth/breakglass/credentials/nobody`, { key: adminKey })).status,
      ).toBe(404);
      const unlock = await call('POST', `${gw1}/api/v1/auth/breakglass/credentials/nobody/unlock`, {
        key: adminKey,
      });
      expect(unlock.status).toBe(404);
      expect(unlock.json()).toMatchObject({ code: 'breakglass_credential_not_found' });
    });
  });

  describe('login and the session cookies', () => {
    let alice: Login;

    beforeAll(async () => {
      alice = await login('alice');
    });

    it('logs in with 200: actor, session id, expiry and CSRF token in the body, no cookie value', () => {
      expect(alice.status).toBe(200);
      const body = alice.response.json() as Record<string, string>;
      expect(Object.keys(body).sort()).toEqual(['actor_id', 'csrf_token', 'expires_at', 'session_id']);
      expect(body.actor_id).toBe('alice');
      const lifetime = Date.parse(body.expires_at) - Date.now();
      expect(lifetime).toBeGreaterThan(8 * 3600_000 - 60_000);
      expect(lifetime).toBeLessThanOrEqual(8 * 3600_000);
      expect(alice.response.text).not.toContain(alice.cookie.split('=')[1]);
    });

    it('sets service_session and service_csrf with exactly the attributes of spec 5.4', () => {
      const [session, csrf] = setCookies(alice.response);
      const value = alice.cookie.split('=')[1];
      expect(value).toMatch(/^v1\.[0-9a-f]{8}\.[0-9a-f]{32}\.[A-Za-z0-9_-]{43}$/);
      expect(session).toBe(
        `service_session=${value}; Max-Age=28800; Path=/; Secure; SameSite=Strict; HttpOnly`,
      );
      expect(csrf).toBe(`service_csrf=${alice.csrf}; Max-Age=28800; Path=/; Secure; SameSite=Strict`);
      expect(csrf).not.toContain('HttpOnly');
      expect(setCookies(alice.response)).toHaveLength(2);
    });

    it('authenticates the cookie on both gateways as an admin session (the emergency door)', async () => {
      for (const url of [gw1, gw2]) {
        const me = await call('GET', `${url}/api/v1/auth/me`, { cookie: alice.cookie });
        expect(me.status).toBe(200);
        expect(me.json()).toMatchObject({ actor_id: 'alice', actor_type: 'session', admin: true });
      }
    });

    it('needs X-CSRF-Token on state-changing cookie requests: missing or wrong 403, right one passes', async () => {
      const body = { name: 'made-by-session' };
      const missing = await call('POST', `${gw1}/api/v1/auth/api-keys`, { cookie: alice.cookie, body });
      expect(missing.status).toBe(403);
      expect(missing.json()).toMatchObject({ code: 'csrf_token_invalid' });
      const wrong = await call('POST', `${gw1}/api/v1/auth/api-keys`, {
        cookie: alice.cookie,
        csrf: `${alice.csrf.slice(0, -1)}x`,
        body,
      });
      expect(wrong.status).toBe(403);
      const other = await login('alice');
      const crossed = await call('POST', `${gw2}/api/v1/auth/api-keys`, {
        cookie: alice.cookie,
        csrf: other.csrf,
        body,
      });
      expect(crossed.status).toBe(403);
      const right = await call('POST', `${gw1}/api/v1/auth/api-keys`, {
        cookie: alice.cookie,
        csrf: alice.csrf,
        body,
      });
      expect(right.status).toBe(201);
      expect(right.json()).toMatchObject({ name: 'made-by-session', created_by: 'alice' });
      const deleted = await call(
        'DELETE',
        `${gw2}/api/v1/auth/api-keys/${(right.json() as { id: string }).id}`,
        {
          cookie: alice.cookie,
          csrf: alice.csrf,
        },
      );
      expect(deleted.status).toBe(204);
    });

    it('does not ask GET requests for the CSRF token, nor bearer-key requests', async () => {
      expect((await call('GET', `${gw1}/api/v1/auth/api-keys`, { cookie: alice.cookie })).status).toBe(200);
      const bearer = await call('POST', `${gw1}/api/v1/auth/api-keys`, {
        key: adminKey,
        body: { name: 'no-csrf' },
      });
      expect(bearer.status).toBe(201);
    });

    it('refuses forged, tampered, pre-login and junk cookies with 401', async () => {
      const value = alice.cookie.split('=')[1];
      const [version, kid, id, mac] = value.split('.');
      const otherKey = Buffer.from(hkdfSync('sha256', randomBytes(32), 'x', 'y', 32));
      const payload = `${version}.${kid}.${id}`;
      const forged = `${payload}.${createHmac('sha256', otherKey).update(payload).digest('base64url')}`;
      const tamperedMac = `${payload}.${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;
      const tamperedId = `${version}.${kid}.${id.replace(/^./, id[0] === 'a' ? 'b' : 'a')}.${mac}`;
      const unknownKid = `${version}.${kid === '00000000' ? '11111111' : '00000000'}.${id}.${mac}`;
      for (const bad of [
        forged,
        tamperedMac,
        tamperedId,
        unknownKid,
        `pl-${value}`,
        `pl-${id}`,
        'junk',
        '',
      ]) {
        const response = await call('GET', `${gw1}/api/v1/auth/me`, { cookie: `service_session=${bad}` });
        expect([bad, response.status]).toEqual([bad, 401]);
        expect(response.json()).toMatchObject({ code: 'unauthenticated' });
      }
    });

    it('binds the session to its user agent: another agent is 401, the same one 200', async () => {
      const bound = await login('alice', PASSWORD, { userAgent: 'browser-a/1.0' });
      expect(bound.status).toBe(200);
      const same = await call('GET', `${gw1}/api/v1/auth/me`, {
        cookie: bound.cookie,
        userAgent: 'browser-a/1.0',
      });
      expect(same.status).toBe(200);
      const other = await call('GET', `${gw1}/api/v1/auth/me`, {
        cookie: bound.cookie,
        userAgent: 'browser-b/2.0',
      });
      expect(other.status).toBe(401);
      const none = await call('GET', `${gw2}/api/v1/auth/me`, { cookie: bound.cookie });
      expect(none.status).toBe(401);
    });

    it('refuses an expired session and an idle one', async () => {
      const expired = await login('alice');
      const idle = await login('alice');
      await db.query(`UPDATE auth.sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        expired.sessionId,
      ]);
      await db.query(`UPDATE auth.sessions SET last_seen_at = now() - interval '61 minutes' WHERE id = $1`, [
        idle.sessionId,
      ]);
      expect((await call('GET', `${gw1}/api/v1/auth/me`, { cookie: expired.cookie })).status).toBe(401);
      expect((await call('GET', `${gw1}/api/v1/auth/me`, { cookie: idle.cookie })).status).toBe(401);
    });

    it('checks a request marked X-Certlane-Background: 1 but does not count it as use, so the session still goes idle', async () => {
      const session = await login('alice');
      const background = { cookie: session.cookie, headers: { 'x-certlane-background': '1' } };
      // Three seconds of its 60 idle minutes left.
      await db.query(
        `UPDATE auth.sessions SET last_seen_at = now() - interval '59 minutes 57 seconds' WHERE id = $1`,
        [session.sessionId],
      );
      expect((await call('GET', `${gw1}/api/v1/auth/me`, background)).status).toBe(200);
      // The other gateway asks auth afresh once its own cached answer lapses: idle by then.
      await eventually(
        async () => (await call('GET', `${gw2}/api/v1/auth/me`, background)).status === 401,
        'the polled session to end at its idle timeout',
        15_000,
      );
      expect((await call('GET', `${gw1}/api/v1/auth/me`, { cookie: session.cookie })).status).toBe(401);
    });

    it("counts a user's request as use even right after a background one was answered from the same session", async () => {
      const session = await login('alice');
      await db.query(`UPDATE auth.sessions SET last_seen_at = now() - interval '30 minutes' WHERE id = $1`, [
        session.sessionId,
      ]);
      const polled = await call('GET', `${gw1}/api/v1/auth/me`, {
        cookie: session.cookie,
        headers: { 'x-certlane-background': '1' },
      });
      expect(polled.status).toBe(200);
      // Within the gateway's cache TTL of the poll's answer: not served from it, so auth records the use.
      expect((await call('GET', `${gw1}/api/v1/auth/me`, { cookie: session.cookie })).status).toBe(200);
      await eventually(async () => {
        const { rows } = await db.query<{ recent: boolean }>(
          `SELECT last_seen_at > now() - interval '1 minute' AS recent FROM auth.sessions WHERE id = $1`,
          [session.sessionId],
        );
        return rows[0].recent;
      }, 'the request to count as use');
    });

    it('logs out: 401 without a cookie, 403 without the CSRF token, 204 clearing both cookies, then 401', async () => {
      const session = await login('alice');
      expect((await call('POST', `${gw1}/auth/logout`)).status).toBe(401);
      expect((await call('POST', `${gw1}/auth/logout`, { cookie: 'service_session=pl-abc' })).status).toBe(
        401,
      );
      const noCsrf = await call('POST', `${gw1}/auth/logout`, { cookie: session.cookie });
      expect(noCsrf.status).toBe(403);
      expect((await call('GET', `${gw2}/api/v1/auth/me`, { cookie: session.cookie })).status).toBe(200);
      const out = await call('POST', `${gw1}/auth/logout`, { cookie: session.cookie, csrf: session.csrf });
      expect(out.status).toBe(204);
      expect(setCookies(out)).toEqual([
        'service_session=; Max-Age=0; Path=/; Secure; SameSite=Strict; HttpOnly',
        'service_csrf=; Max-Age=0; Path=/; Secure; SameSite=Strict',
      ]);
      await eventually(
        async () => (await call('GET', `${gw2}/api/v1/auth/me`, { cookie: session.cookie })).status === 401,
        'the logged-out session to be refused by the other gateway',
        2000,
      );
      const again = await call('POST', `${gw1}/auth/logout`, { cookie: session.cookie, csrf: session.csrf });
      expect(again.status).toBe(401);
    });
  });

  describe('session routes', () => {
    let operatorKey: string;
    let viewerKey: string;

    beforeAll(async () => {
      expect((await setCredential('bob')).status).toBe(201);
      operatorKey = (await createKey({ name: 'operator', actor_id: 'op-user', role_ids: ['r-operator'] }))
        .key;
      viewerKey = (await createKey({ name: 'viewer', actor_id: 'view-user', role_ids: ['r-viewer'] })).key;
    });

    it('lists own sessions with the current one marked, and no secrets', async () => {
      const first = await login('bob');
      const second = await login('bob');
      const list = await call('GET', `${gw1}/api/v1/auth/sessions?per_page=500`, { cookie: first.cookie });
      expect(list.status).toBe(200);
      const page = list.json() as { data: Record<string, unknown>[]; total: number; per_page: number };
      expect(page.per_page).toBe(500);
      expect(page.data.every((s) => s.actor_id === 'bob')).toBe(true);
      expect(page.data.map((s) => s.id)).toEqual(expect.arrayContaining([first.sessionId, second.sessionId]));
      expect(page.data.find((s) => s.id === first.sessionId)).toEqual({
        id: first.sessionId,
        actor_id: 'bob',
        method: 'breakglass',
        client_ip: expect.stringMatching(/^198\.51\.100\.\d+$/),
        created_at: expect.any(String),
        last_seen_at: expect.any(String),
        expires_at: expect.any(String),
        current: true,
      });
      expect(page.data.find((s) => s.id === second.sessionId)).toMatchObject({ current: false });
      expect(list.text).not.toMatch(/hash|csrf|signing|mac/i);
    });

    it('records the client IP from X-Forwarded-For through the trusted proxy', async () => {
      const session = await login('bob', PASSWORD, { ip: '203.0.113.77' });
      const row = await db.query<{ client_ip: string }>('SELECT client_ip FROM auth.sessions WHERE id = $1', [
        session.sessionId,
      ]);
      expect(row.rows[0].client_ip).toBe('203.0.113.77');
    });

    it('lists every actor with ?all=true only with auth.session.list.all; paginates', async () => {
      expect((await call('GET', `${gw1}/api/v1/auth/sessions?all=true`, { key: operatorKey })).status).toBe(
        403,
      );
      expect((await call('GET', `${gw1}/api/v1/auth/sessions`, { key: operatorKey })).json()).toMatchObject({
        total: 0,
        data: [],
      });
      expect((await call('GET', `${gw1}/api/v1/auth/sessions`, { key: viewerKey })).status).toBe(403);
      const all = await call('GET', `${gw1}/api/v1/auth/sessions?all=true&per_page=1&page=2`, {
        key: adminKey,
      });
      expect(all.status).toBe(200);
      const page = all.json() as { data: { actor_id: string }[]; total: number; page: number };
      expect(page.page).toBe(2);
      expect(page.data).toHaveLength(1);
      expect(page.total).toBeGreaterThan(2);
      const everything = (
        await call('GET', `${gw1}/api/v1/auth/sessions?all=true&per_page=500`, { key: adminKey })
      ).json() as { data: { actor_id: string }[] };
      expect(new Set(everything.data.map((s) => s.actor_id))).toEqual(new Set(['alice', 'bob']));
      expect((await call('GET', `${gw1}/api/v1/auth/sessions?all=maybe`, { key: adminKey })).status).toBe(
        400,
      );
    });

    it("revokes one session: own always, another's with auth.session.revoke, 403 without, 404 unknown", async () => {
      const own = await login('bob');
      const revokeOwn = await call('DELETE', `${gw1}/api/v1/auth/sessions/${own.sessionId}`, {
        cookie: own.cookie,
        csrf: own.csrf,
      });
      expect(revokeOwn.status).toBe(204);
      expect((await call('GET', `${gw1}/api/v1/auth/me`, { cookie: own.cookie })).status).toBe(401);

      const target = await login('bob');
      const byViewer = await call('DELETE', `${gw1}/api/v1/auth/sessions/${target.sessionId}`, {
        key: viewerKey,
      });
      expect(byViewer.status).toBe(403);
      const byOperator = await call('DELETE', `${gw1}/api/v1/auth/sessions/${target.sessionId}`, {
        key: operatorKey,
      });
      expect(byOperator.status).toBe(204);
      const unknown = await call('DELETE', `${gw1}/api/v1/auth/sessions/${'0'.repeat(32)}`, {
        key: adminKey,
      });
      expect(unknown.status).toBe(404);
      expect(unknown.json()).toMatchObject({ code: 'session_not_found' });
      expect(
        (await call('DELETE', `${gw1}/api/v1/auth/sessions/${target.sessionId}`, { key: operatorKey }))
          .status,
      ).toBe(404);
    });

    it('revokes all sessions of the caller but the current one', async () => {
      const keep = await login('bob');
      const other = await login('bob');
      const response = await call('DELETE', `${gw1}/api/v1/auth/sessions`, {
        cookie: keep.cookie,
        csrf: keep.csrf,
      });
      expect(response.status).toBe(200);
      expect((response.json() as { revoked: number }).revoked).toBeGreaterThanOrEqual(1);
      expect((await call('GET', `${gw1}/api/v1/auth/me`, { cookie: keep.cookie })).status).toBe(200);
      expect((await call('GET', `${gw1}/api/v1/auth/me`, { cookie: other.cookie })).status).toBe(401);
      const mine = (await call('GET', `${gw1}/api/v1/auth/sessions`, { cookie: keep.cookie })).json() as {
        data: { id: string }[];
      };
      expect(mine.data.map((s) => s.id)).toEqual([keep.sessionId]);
    });

    it('drops a revoked session from the cache of a gateway that had it, at once', async () => {
      const session = await login('bob');
      expect((await call('GET', `${gw2}/api/v1/auth/me`, { cookie: session.cookie })).status).toBe(200);
      const revokedAt = Date.now();
      expect(
        (await call('DELETE', `${gw1}/api/v1/auth/sessions/${session.sessionId}`, { key: adminKey })).status,
      ).toBe(204);
      await eventually(
        async () => (await call('GET', `${gw2}/api/v1/auth/me`, { cookie: session.cookie })).status === 401,
        'the revoked session to be refused by the caching gateway',
        2000,
      );
      expect(Date.now() - revokedAt).toBeLessThan(4000);
    });

    it('deletes revoked and expired sessions in the GC loop', async () => {
      const session = await login('bob');
      await db.query(`UPDATE auth.sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        session.sessionId,
      ]);
      await eventually(
        async () =>
          (await db.query('SELECT 1 FROM auth.sessions WHERE id = $1', [session.sessionId])).rowCount === 0,
        'the GC to delete the expired session',
        5000,
      );
    });
  });

  describe('break-glass login limits', () => {
    it('allows 5 attempts per minute per IP across two gateways and refuses the 6th with 429 and Retry-After', async () => {
      const ip = freshIp();
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const response = await login(`ghost-${i}`, 'not-the-password-at-all', { url: i % 2 ? gw2 : gw1, ip });
        statuses.push(response.status);
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401]);
      const sixth = await login('alice', PASSWORD, { url: gw2, ip });
      expect(sixth.status).toBe(429);
      expect(sixth.response.json()).toMatchObject({ code: 'rate_limited' });
      const retryAfter = Number(sixth.response.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(setCookies(sixth.response)).toEqual([]);
      expect((await login('alice', PASSWORD, { url: gw1, ip })).status).toBe(429);
      expect((await login('alice', PASSWORD, { url: gw1, ip: freshIp() })).status).toBe(200);
    });

    it('gives an unknown actor and a wrong password the same 401', async () => {
      const unknown = await login('nobody-here', PASSWORD);
      const wrong = await login('alice', 'definitely-wrong-password');
      expect(unknown.status).toBe(401);
      expect(wrong.status).toBe(401);
      const strip = (r: HttpsResult) => ({ ...(r.json() as object), request_id: undefined });
      expect(strip(unknown.response)).toEqual(strip(wrong.response));
    });

    it('locks a credential after the threshold (423 even with the right password) until an admin unlocks it', async () => {
      expect((await setCredential('carol')).status).toBe(201);
      const ip = freshIp();
      for (let i = 0; i < LOCKOUT_THRESHOLD; i++) {
        expect((await login('carol', 'wrong-password-number-x', { ip })).status).toBe(401);
      }
      const locked = await login('carol', PASSWORD, { ip: freshIp() });
      expect(locked.status).toBe(423);
      expect(locked.response.json()).toMatchObject({ code: 'breakglass_locked' });
      const list = (
        await call('GET', `${gw1}/api/v1/auth/breakglass/credentials`, { key: adminKey })
      ).json() as {
        data: { actor_id: string; locked: boolean; failed_attempts: number }[];
      };
      expect(list.data.find((c) => c.actor_id === 'carol')).toMatchObject({
        locked: true,
        failed_attempts: LOCKOUT_THRESHOLD,
      });
      const unlock = await call('POST', `${gw2}/api/v1/auth/breakglass/credentials/carol/unlock`, {
        key: adminKey,
      });
      expect(unlock.status).toBe(200);
      expect(unlock.json()).toMatchObject({ actor_id: 'carol', locked: false, failed_attempts: 0 });
      const after = await login('carol', PASSWORD);
      expect(after.status).toBe(200);
      expect(
        (await call('GET', `${gw1}/api/v1/auth/breakglass/credentials`, { key: adminKey })).json(),
      ).toMatchObject({
        data: expect.arrayContaining([expect.objectContaining({ actor_id: 'carol', failed_attempts: 0 })]),
      });
    });

    it('deletes a credential with 204, ending its sessions; its login then fails', async () => {
      expect((await setCredential('dave')).status).toBe(201);
      const session = await login('dave');
      expect((await call('GET', `${gw2}/api/v1/auth/me`, { cookie: session.cookie })).status).toBe(200);
      expect(
        (await call('DELETE', `${gw1}/api/v1/auth/breakglass/credentials/dave`, { key: adminKey })).status,
      ).toBe(204);
      await eventually(
        async () => (await call('GET', `${gw2}/api/v1/auth/me`, { cookie: session.cookie })).status === 401,
        "the deleted credential's session to end",
        2000,
      );
      expect((await login('dave')).status).toBe(401);
    });
  });

  describe('users', () => {
    it('lists users of every kind', async () => {
      const list = await call('GET', `${gw1}/api/v1/auth/users?per_page=500`, { key: adminKey });
      expect(list.status).toBe(200);
      const users = (list.json() as { data: { id: string; kind: string; active: boolean }[] }).data;
      expect(users).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ id: 'root-admin', kind: 'api-key', active: true, deactivated_at: null }),
          expect.objectContaining({
            id: 'alice',
            kind: 'breakglass',
            active: true,
            last_login_at: expect.any(String),
          }),
        ]),
      );
    });

    it('refuses to deactivate oneself with 409, and an unknown user with 404', async () => {
      const self = await call('DELETE', `${gw1}/api/v1/auth/users/root-admin`, { key: adminKey });
      expect(self.status).toBe(409);
      expect(self.json()).toMatchObject({ code: 'user_self_deactivation' });
      expect((await call('DELETE', `${gw1}/api/v1/auth/users/nobody`, { key: adminKey })).status).toBe(404);
      expect(
        (await call('POST', `${gw1}/api/v1/auth/users/nobody/reactivate`, { key: adminKey })).status,
      ).toBe(404);
    });

    it('deactivates a user: its cached key and session die at once on both gateways; reactivation lets it log in again', async () => {
      expect((await setCredential('erin')).status).toBe(201);
      const key = await createKey({ name: 'erin-key', actor_id: 'erin', role_ids: ['r-viewer'] });
      const session = await login('erin');
      for (const url of [gw1, gw2]) {
        expect((await call('GET', `${url}/api/v1/auth/me`, { key: key.key })).status).toBe(200);
        expect((await call('GET', `${url}/api/v1/auth/me`, { cookie: session.cookie })).status).toBe(200);
      }
      const deactivated = await call('DELETE', `${gw1}/api/v1/auth/users/erin`, { key: adminKey });
      expect(deactivated.status).toBe(200);
      expect(deactivated.json()).toMatchObject({
        user: { id: 'erin', active: false, deactivated_at: expect.any(String) },
        sessions_revoked: 1,
        api_keys_revoked: 1,
      });
      const started = Date.now();
      await eventually(
        async () => {
          const statuses = await Promise.all(
            [gw1, gw2].flatMap((url) => [
              call('GET', `${url}/api/v1/auth/me`, { key: key.key }),
              call('GET', `${url}/api/v1/auth/me`, { cookie: session.cookie }),
            ]),
          );
          return statuses.every((r) => r.status === 401);
        },
        "the deactivated user's key and session to be refused everywhere",
        2000,
      );
      expect(Date.now() - started).toBeLessThan(4000);
      expect((await login('erin')).status).toBe(401);
      const listed = (
        await call('GET', `${gw1}/api/v1/auth/users?per_page=500`, { key: adminKey })
      ).json() as {
        data: { id: string; active: boolean }[];
      };
      expect(listed.data.find((u) => u.id === 'erin')).toMatchObject({ active: false });

      const reactivated = await call('POST', `${gw2}/api/v1/auth/users/erin/reactivate`, { key: adminKey });
      expect(reactivated.status).toBe(200);
      expect(reactivated.json()).toMatchObject({ id: 'erin', active: true, deactivated_at: null });
      expect((await login('erin')).status).toBe(200);
      expect((await call('GET', `${gw1}/api/v1/auth/me`, { key: key.key })).status).toBe(401);
    });

    it('shows the runtime auth settings to holders of auth.role.assign only', async () => {
      const operatorKey = (await createKey({ name: 'op-2', actor_id: 'op-two', role_ids: ['r-operator'] }))
        .key;
      expect((await call('GET', `${gw1}/api/v1/auth/runtime-config`, { key: operatorKey })).status).toBe(403);
      const response = await call('GET', `${gw1}/api/v1/auth/runtime-config`, { key: adminKey });
      expect(response.status).toBe(200);
      expect(response.json()).toEqual({
        auth_type: 'api-key',
        demo_mode: false,
        session: {
          samesite: 'Strict',
          lifetime_seconds: 28800,
          idle_timeout_seconds: 3600,
          bind_user_agent: true,
          gc_interval_seconds: 1,
          signing_secret_source: 'SERVICE_CONFIG_ENCRYPTION_KEY',
        },
        breakglass: {
          enabled: true,
          lockout_threshold: LOCKOUT_THRESHOLD,
          rate_limit: { attempts: 5, window_seconds: 60 },
        },
        oidc: {
          prelogin_require_user_agent: true,
          prelogin_require_ip: false,
          prelogin_lifetime_seconds: 600,
          pending_logins_per_ip: 100,
          back_channel_logout_max_age_seconds: 300,
        },
        trusted_proxies: ['127.0.0.1'],
      });
    });

    it('cleans up what demo mode left behind and counts it', async () => {
      const demoKey = randomBytes(32).toString('hex');
      const { createHash } = await import('node:crypto');
      const hash = (value: string) => createHash('sha256').update(value).digest('hex');
      await db.query(
        `INSERT INTO auth.api_keys (id, name, key_hash, actor_id, admin, created_by) VALUES
           ('key-demo-1', 'demo-own', $1, 'actor-demo-anon', true, 'actor-demo-anon'),
           ('key-demo-2', 'demo-made', $2, 'made-in-demo', false, 'actor-demo-anon')`,
        [hash(demoKey), hash(`${demoKey}-2`)],
      );
      await db.query(
        `INSERT INTO auth.actor_roles (actor_id, role_id, granted_by) VALUES
           ('actor-demo-anon', 'r-admin', 'actor-demo-anon'), ('made-in-demo', 'r-viewer', 'actor-demo-anon')`,
      );
      await db.query(`INSERT INTO auth.users (id, kind) VALUES ('actor-demo-anon', 'api-key')`);
      expect((await call('GET', `${gw2}/api/v1/auth/me`, { key: demoKey })).status).toBe(200);
      const cleaned = await call('POST', `${gw1}/api/v1/auth/demo-residual/cleanup`, { key: adminKey });
      expect(cleaned.status).toBe(200);
      expect(cleaned.json()).toEqual({ removed: 5 });
      await eventually(
        async () => (await call('GET', `${gw2}/api/v1/auth/me`, { key: demoKey })).status === 401,
        'the demo key to be refused',
        2000,
      );
      const again = await call('POST', `${gw1}/api/v1/auth/demo-residual/cleanup`, { key: adminKey });
      expect(again.json()).toEqual({ removed: 0 });
    });
  });

  describe('break-glass disabled', () => {
    it('answers 404 on every break-glass route, whoever asks', async () => {
      const disabled = await startServiceProcess(
        'api-gateway',
        { ...system.env, SERVICE_BREAKGLASS_ENABLED: 'false' },
        { ca },
      );
      extra.push(disabled);
      const routes: [string, string, unknown?][] = [
        ['POST', '/auth/breakglass/login', { actor_id: 'alice', password: PASSWORD }],
        ['GET', '/api/v1/auth/breakglass/credentials'],
        ['POST', '/api/v1/auth/breakglass/credentials', { actor_id: 'alice', password: PASSWORD }],
        ['DELETE', '/api/v1/auth/breakglass/credentials/alice'],
        ['POST', '/api/v1/auth/breakglass/credentials/alice/unlock'],
      ];
      for (const [method, path, body] of routes) {
        for (const key of [adminKey, undefined]) {
          const response = await call(method, `${disabled.url}${path}`, { key, body, ip: freshIp() });
          expect([method, path, response.status]).toEqual([method, path, 404]);
          expect(response.json()).toMatchObject({ code: 'route_not_found' });
        }
      }
      const runtime = await call('GET', `${disabled.url}/api/v1/auth/runtime-config`, { key: adminKey });
      expect(runtime.json()).toMatchObject({ breakglass: { enabled: false } });
      // The enabled gateway still serves the credential that the disabled one refused to touch.
      expect(
        (await call('GET', `${gw1}/api/v1/auth/breakglass/credentials`, { key: adminKey })).json(),
      ).toMatchObject({
        data: expect.arrayContaining([expect.objectContaining({ actor_id: 'alice' })]),
      });
    }, 30_000);
  });

  describe('oidc mode', () => {
    it('authenticates session cookies there too, and API keys keep working', async () => {
      const oidc = await startServiceProcess(
        'api-gateway',
        { ...system.env, SERVICE_AUTH_TYPE: 'oidc' },
        { ca },
      );
      extra.push(oidc);
      const session = await login('alice', PASSWORD, { url: oidc.url });
      expect(session.status).toBe(200);
      const me = await call('GET', `${oidc.url}/api/v1/auth/me`, { cookie: session.cookie });
      expect(me.json()).toMatchObject({ actor_id: 'alice', actor_type: 'session' });
      expect((await call('GET', `${oidc.url}/api/v1/auth/me`, { key: adminKey })).status).toBe(200);
      const noCsrf = await call('DELETE', `${oidc.url}/api/v1/auth/sessions`, { cookie: session.cookie });
      expect(noCsrf.status).toBe(403);
    }, 30_000);
  });

  describe('audit and secrets', () => {
    it('records one auth audit event per operation in the outbox', async () => {
      const actions = await auditActions();
      for (const action of [
        'auth.breakglass_credential_set',
        'auth.breakglass_login_succeeded',
        'auth.breakglass_login_failed',
        'auth.breakglass_locked',
        'auth.breakglass_unlocked',
        'auth.breakglass_credential_deleted',
        'auth.session_revoked',
        'auth.logout',
        'auth.user_deactivated',
        'auth.user_reactivated',
        'auth.demo_residual_cleaned',
      ]) {
        expect(actions).toContain(action);
      }
      const locked = await db.query<{ data: Record<string, unknown> }>(
        `SELECT envelope->'data' AS data FROM auth.outbox WHERE envelope->'data'->>'action' = 'auth.breakglass_locked'`,
      );
      expect(locked.rows).toHaveLength(1);
      expect(locked.rows[0].data).toMatchObject({
        event_category: 'auth',
        actor_id: 'carol',
        resource_type: 'breakglass_credential',
        resource_id: 'carol',
        outcome: 'failure',
      });
      const logouts = actions.filter((a) => a === 'auth.logout');
      expect(logouts).toHaveLength(1);
      const outbox = (await db.query<{ envelope: unknown }>('SELECT envelope FROM auth.outbox')).rows;
      const text = JSON.stringify(outbox);
      for (const password of passwords) expect(text).not.toContain(password);
      expect(text).not.toContain('$scrypt$');
    });

    it('never returns a password, password hash, key hash, CSRF hash or session MAC in a body', async () => {
      const all = bodies.join('\n');
      for (const password of passwords) expect(all).not.toContain(password);
      const secrets = await db.query<{ value: string }>(
        `SELECT password_hash AS value FROM auth.breakglass_credentials
         UNION ALL SELECT key_hash FROM auth.api_keys
         UNION ALL SELECT csrf_token_hash FROM auth.sessions
         UNION ALL SELECT user_agent_hash FROM auth.sessions`,
      );
      expect(secrets.rows.length).toBeGreaterThan(5);
      for (const { value } of secrets.rows) expect(all).not.toContain(value);
      expect(all).not.toMatch(/\$scrypt\$|key_hash|password_hash|csrf_token_hash|session_cookie/);
      expect(all).not.toMatch(/v1\.[0-9a-f]{8}\.[0-9a-f]{32}\.[A-Za-z0-9_-]{43}/);
    });
  });
});

/** Demo mode (SERVICE_AUTH_TYPE=none) has nothing to clean up yet: the cleanup refuses with 503. */
describe('demo-residual cleanup in demo mode', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await startTestSystem('demo503', ['auth', 'api-gateway'], {
      SERVICE_AUTH_TYPE: 'none',
      SERVICE_DEMO_MODE_ACK: 'true',
    });
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('answers 503 demo_mode_active, and the runtime config says demo mode', async () => {
    const url = system.services['api-gateway'].url;
    const cleanup = await httpsRequest(`${url}/api/v1/auth/demo-residual/cleanup`, {
      method: 'POST',
      ca: system.ca,
    });
    expect(cleanup.status).toBe(503);
    expect(cleanup.json()).toMatchObject({ code: 'demo_mode_active' });
    const runtime = await httpsRequest(`${url}/api/v1/auth/runtime-config`, { ca: system.ca });
    expect(runtime.json()).toMatchObject({
      auth_type: 'none',
      demo_mode: true,
      breakglass: { enabled: false },
    });
  });
});
