import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  eventually,
  httpsRequest,
  HttpsResult,
  startTestIdentityProvider,
  startTestSystem,
  TestIdentityProvider,
  TestSystem,
} from '@certlane/testing';
import { Client } from 'pg';

const CLIENT_ID = 'certlane';
const CLIENT_SECRET = 'oidc-client-secret-never-shown-0001';
const UA = 'Mozilla/5.0 (oidc test browser)';
const uniformRefusal = { code: 'validation_failed', message: 'the logout token was not accepted' };
const BCL_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/**
 * OIDC sign-in (spec 4.10, 5.4, 5.5; ADR 0081) through a real gateway and auth service, against
 * a real OpenID Provider (panva's oidc-provider, certified) run by the test: the authorization
 * code flow with PKCE, state, nonce and the iss parameter, group mappings to roles, the email
 * allowlist, the single-use pre-login cookie, and back-channel logout with every check of
 * OpenID Connect Back-Channel Logout 1.0 2.6 and spec 5.5 refused one by one.
 */
describe('OIDC sign-in through gateway -> NATS -> auth against a real OpenID Provider', () => {
  let system: TestSystem;
  let idp: TestIdentityProvider;
  let gw: string;
  let adminKey: string;
  let providerId: string;
  let db: Client;

  const call = (
    method: string,
    path: string,
    options: { key?: string; cookie?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<HttpsResult> =>
    httpsRequest(`${gw}${path}`, {
      method,
      ca: system.ca,
      headers: {
        'user-agent': UA,
        ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
        ...(options.cookie ? { cookie: options.cookie } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });

  const setCookies = (response: HttpsResult): string[] => {
    const header = response.headers['set-cookie'];
    return Array.isArray(header) ? header : header ? [header] : [];
  };
  const cookieOf = (response: HttpsResult, name: string) =>
    setCookies(response).find((cookie) => cookie.startsWith(`${name}=`));

  /** Follows the IdP's redirects (plain HTTP on loopback) with its own cookie jar until it sends the browser back. */
  async function throughIdp(authorizeUrl: string): Promise<string> {
    const jar = new Map<string, string>();
    let url = authorizeUrl;
    for (let hop = 0; hop < 10; hop++) {
      const response = await fetch(url, {
        redirect: 'manual',
        headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), 'user-agent': UA },
      });
      for (const cookie of response.headers.getSetCookie()) {
        const [pair] = cookie.split(';');
        const at = pair.indexOf('=');
        jar.set(pair.slice(0, at), pair.slice(at + 1));
      }
      const location = response.headers.get('location');
      if (!location)
        throw new Error(`the IdP stopped at ${url} with ${response.status}: ${await response.text()}`);
      url = new URL(location, url).href;
      if (url.startsWith(`${gw}/auth/oidc/callback`)) return url;
    }
    throw new Error('too many redirects at the IdP');
  }

  /** Starts a sign-in and returns the pending cookie and the callback URL the IdP sends the browser to. */
  async function startSignIn(): Promise<{ pending: string; callback: string }> {
    const login = await call('GET', `/auth/oidc/login?provider=${providerId}`);
    expect(login.status).toBe(302);
    const pending = cookieOf(login, 'service_oidc_pending');
    expect(pending).toMatch(
      /^service_oidc_pending=pl-[\w-]{43}; Max-Age=600; Path=\/auth\/oidc\/; Secure; HttpOnly; SameSite=Lax$/,
    );
    const location = String(login.headers.location);
    expect(location.startsWith(`${idp.issuer}/`)).toBe(true);
    const authorize = new URL(location).searchParams;
    expect(authorize.get('code_challenge_method')).toBe('S256');
    expect(authorize.get('state')).toBeTruthy();
    expect(authorize.get('nonce')).toBeTruthy();
    return { pending: pending!.split(';')[0], callback: await throughIdp(location) };
  }

  async function finish(callback: string, pending: string, userAgent = UA): Promise<HttpsResult> {
    return call('GET', callback.slice(gw.length), { cookie: pending, headers: { 'user-agent': userAgent } });
  }

  const failureReason = (response: HttpsResult) => {
    expect(response.status).toBe(302);
    const location = String(response.headers.location);
    expect(location).toMatch(/^\/login\?error=oidc_failed&reason=/);
    return new URL(location, 'https://x').searchParams.get('reason');
  };

  async function signIn(account: { sub: string; email?: string; groups?: string[] }) {
    await idp.nextLogin({ email_verified: true, ...account });
    const { pending, callback } = await startSignIn();
    const done = await finish(callback, pending);
    return done;
  }

  const sessionCookie = (response: HttpsResult) => cookieOf(response, 'service_session')!.split(';')[0];

  const logoutToken = (claims: Record<string, unknown>) => ({
    iss: idp.issuer,
    aud: CLIENT_ID,
    iat: Math.floor(Date.now() / 1000),
    jti: randomUUID(),
    events: { [BCL_EVENT]: {} },
    ...claims,
  });

  const postLogout = (token: string) =>
    httpsRequest(`${gw}/auth/oidc/back-channel-logout`, {
      method: 'POST',
      ca: system.ca,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ logout_token: token }).toString(),
    });

  beforeAll(async () => {
    system = await startTestSystem('oidc', ['auth', 'api-gateway'], {
      SERVICE_AUTH_TYPE: 'oidc',
      SERVICE_TRUSTED_PROXIES: '127.0.0.1',
      SERVICE_SESSION_GC_INTERVAL: '1s',
    });
    gw = system.services['api-gateway'].url;
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    // The IdP posts back-channel logouts to the gateway over HTTPS: it must trust the test CA.
    const caFile = join(mkdtempSync(join(tmpdir(), 'oidc-ca-')), 'ca.pem');
    writeFileSync(caFile, system.ca);
    process.env.NODE_EXTRA_CA_CERTS = caFile;
    idp = await startTestIdentityProvider({
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          redirect_uris: [`${gw}/auth/oidc/callback`],
          backchannel_logout_uri: `${gw}/auth/oidc/back-channel-logout`,
          // Spec 5.5 accepts a logout token with exactly one of sub and sid; an IdP that must name
          // the session (session_required) sends both, and that token is refused (ADR 0081).
          backchannel_logout_session_required: false,
          // Where RP-initiated logout sends the browser back (the GUI's sign-in page).
          post_logout_redirect_uris: [`${gw}/login`],
        },
      ],
    });
    delete process.env.NODE_EXTRA_CA_CERTS;
    const root = await call('POST', '/api/v1/auth/api-keys', {
      key: system.env.SERVICE_AUTH_SECRET,
      body: { name: 'root-admin', actor_id: 'root-admin', admin: true, role_ids: ['r-admin'] },
    });
    expect(root.status).toBe(201);
    adminKey = (root.json() as { key: string }).key;
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await idp?.stop();
    await system?.stop();
  });

  describe('providers and group mappings', () => {
    it('tests an issuer without storing anything', async () => {
      const tested = await call('POST', '/api/v1/auth/oidc/test', {
        key: adminKey,
        body: { issuer: idp.issuer },
      });
      expect(tested.status).toBe(200);
      expect(tested.json()).toMatchObject({
        ok: true,
        problems: [],
        backchannel_logout_supported: true,
        authorization_response_iss_parameter_supported: true,
        code_challenge_methods_supported: ['S256'],
        usable_key_count: 1,
      });
      const unreachable = await call('POST', '/api/v1/auth/oidc/test', {
        key: adminKey,
        body: { issuer: 'http://127.0.0.1:9/nothing' },
      });
      expect(unreachable.json()).toMatchObject({ ok: false });
      expect((unreachable.json() as { problems: string[] }).problems).toHaveLength(1);
      expect((await db.query('SELECT 1 FROM auth.oidc_providers')).rowCount).toBe(0);
    });

    it('refuses a plain-http issuer off loopback and a redirect URI that is not the callback (400)', async () => {
      const base = { name: 'bad', client_id: CLIENT_ID, redirect_uri: `${gw}/auth/oidc/callback` };
      const http = await call('POST', '/api/v1/auth/oidc/providers', {
        key: adminKey,
        body: { ...base, issuer: 'http://idp.example.com' },
      });
      expect(http.status).toBe(400);
      expect(http.json()).toMatchObject({ code: 'oidc_provider_invalid', details: { field: 'issuer' } });
      const redirect = await call('POST', '/api/v1/auth/oidc/providers', {
        key: adminKey,
        body: { ...base, issuer: idp.issuer, redirect_uri: `${gw}/elsewhere` },
      });
      expect(redirect.status).toBe(400);
      expect(redirect.json()).toMatchObject({ details: { field: 'redirect_uri' } });
      const none = await call('POST', '/api/v1/auth/oidc/providers', {
        key: adminKey,
        body: { ...base, issuer: idp.issuer, id_token_signing_alg: 'none' },
      });
      expect(none.status).toBe(400);
    });

    it('creates a provider with a sealed client secret that no answer shows', async () => {
      const created = await call('POST', '/api/v1/auth/oidc/providers', {
        key: adminKey,
        body: {
          name: 'Test IdP',
          issuer: idp.issuer,
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          redirect_uri: `${gw}/auth/oidc/callback`,
          scopes: ['openid', 'email', 'profile', 'groups'],
          allowed_email_domains: ['example.test'],
        },
      });
      expect(created.status).toBe(201);
      const provider = created.json() as { id: string };
      providerId = provider.id;
      expect(provider).toMatchObject({
        name: 'Test IdP',
        has_client_secret: true,
        group_claim: 'groups',
        id_token_signing_alg: 'RS256',
        enabled: true,
        user_count: 0,
      });
      expect(created.text).not.toContain(CLIENT_SECRET);
      const listed = await call('GET', '/api/v1/auth/oidc/providers', { key: adminKey });
      expect(listed.json()).toMatchObject({ total: 1 });
      expect(listed.text).not.toContain(CLIENT_SECRET);
      const stored = await db.query<{ client_secret_sealed: string }>(
        'SELECT client_secret_sealed FROM auth.oidc_providers',
      );
      expect(stored.rows[0].client_secret_sealed).toMatch(/^v1\./);
      expect(stored.rows[0].client_secret_sealed).not.toContain(CLIENT_SECRET);
      const audit = await db.query<{ text: string }>(`SELECT envelope::text AS text FROM auth.outbox`);
      expect(audit.rows.map((row) => row.text).join('\n')).not.toContain(CLIENT_SECRET);
      const duplicate = await call('POST', '/api/v1/auth/oidc/providers', {
        key: adminKey,
        body: {
          name: 'Test IdP',
          issuer: idp.issuer,
          client_id: 'x',
          redirect_uri: `${gw}/auth/oidc/callback`,
        },
      });
      expect(duplicate.status).toBe(409);
      expect(duplicate.json()).toMatchObject({ code: 'oidc_provider_exists', details: { field: 'name' } });
    });

    it('refuses a second provider for the same client of the same issuer (409): a logout token could not tell them apart', async () => {
      const body = { issuer: idp.issuer, client_id: CLIENT_ID, redirect_uri: `${gw}/auth/oidc/callback` };
      const again = await call('POST', '/api/v1/auth/oidc/providers', {
        key: adminKey,
        body: { ...body, name: 'Same client' },
      });
      expect(again.status).toBe(409);
      expect(again.json()).toMatchObject({ code: 'oidc_provider_exists', details: { field: 'client_id' } });
      expect((again.json() as { message: string }).message).toContain('"Test IdP"');
      // Another client of the issuer is a provider of its own, but cannot be moved onto the first's.
      const other = await call('POST', '/api/v1/auth/oidc/providers', {
        key: adminKey,
        body: { ...body, name: 'Other client', client_id: 'another-client', enabled: false },
      });
      expect(other.status).toBe(201);
      const otherId = (other.json() as { id: string }).id;
      const moved = await call('PUT', `/api/v1/auth/oidc/providers/${otherId}`, {
        key: adminKey,
        body: { client_id: CLIENT_ID },
      });
      expect(moved.status).toBe(409);
      expect(moved.json()).toMatchObject({ details: { field: 'client_id' } });
      // Its other settings still change.
      const renamed = await call('PUT', `/api/v1/auth/oidc/providers/${otherId}`, {
        key: adminKey,
        body: { name: 'Other client, renamed' },
      });
      expect(renamed.status).toBe(200);
      expect((await call('DELETE', `/api/v1/auth/oidc/providers/${otherId}`, { key: adminKey })).status).toBe(
        204,
      );
    });

    it('reports the key set before and after a refresh', async () => {
      const before = await call('GET', `/api/v1/auth/oidc/providers/${providerId}/jwks-status`, {
        key: adminKey,
      });
      expect(before.json()).toMatchObject({ status: 'unknown', key_count: 0 });
      const refreshed = await call('POST', `/api/v1/auth/oidc/providers/${providerId}/refresh`, {
        key: adminKey,
      });
      expect(refreshed.status).toBe(200);
      expect(refreshed.json()).toMatchObject({
        status: 'ok',
        key_count: 1,
        usable_key_count: 1,
        jwks_uri: expect.stringContaining(idp.issuer),
        error: null,
      });
      const unknown = await call('GET', `/api/v1/auth/oidc/providers/${randomUUID()}/jwks-status`, {
        key: adminKey,
      });
      expect(unknown.status).toBe(404);
    });

    it('maps groups to roles; a non-admin may not map a role with permissions it lacks (403)', async () => {
      const mapped = await call('POST', '/api/v1/auth/oidc/group-mappings', {
        key: adminKey,
        body: { provider_id: providerId, group: 'pki-operators', role_id: 'r-operator' },
      });
      expect(mapped.status).toBe(201);
      expect(mapped.json()).toMatchObject({
        group: 'pki-operators',
        role_id: 'r-operator',
        created_by: 'root-admin',
      });
      const again = await call('POST', '/api/v1/auth/oidc/group-mappings', {
        key: adminKey,
        body: { provider_id: providerId, group: 'pki-operators', role_id: 'r-operator' },
      });
      expect(again.status).toBe(409);
      const role = await call('POST', '/api/v1/auth/roles', {
        key: adminKey,
        body: {
          id: 'r-oidc-editor',
          description: 'edits OIDC',
          permissions: ['auth.oidc.edit', 'auth.oidc.list'],
        },
      });
      expect(role.status).toBe(201);
      const editor = await call('POST', '/api/v1/auth/api-keys', {
        key: adminKey,
        body: { name: 'oidc-editor', actor_id: 'oidc-editor', role_ids: ['r-oidc-editor'] },
      });
      expect(editor.status).toBe(201);
      const editorKey = (editor.json() as { key: string }).key;
      const escalation = await call('POST', '/api/v1/auth/oidc/group-mappings', {
        key: editorKey,
        body: { provider_id: providerId, group: 'everyone', role_id: 'r-operator' },
      });
      expect(escalation.status).toBe(403);
      const admin = await call('POST', '/api/v1/auth/oidc/group-mappings', {
        key: editorKey,
        body: { provider_id: providerId, group: 'everyone', role_id: 'r-admin' },
      });
      expect(admin.status).toBe(403);
      const own = await call('POST', '/api/v1/auth/oidc/group-mappings', {
        key: editorKey,
        body: { provider_id: providerId, group: 'idp-admins', role_id: 'r-oidc-editor' },
      });
      expect(own.status).toBe(201);
      const list = await call('GET', `/api/v1/auth/oidc/group-mappings?provider_id=${providerId}`, {
        key: adminKey,
      });
      expect(list.json()).toMatchObject({ total: 2 });
      const removed = await call(
        'DELETE',
        `/api/v1/auth/oidc/group-mappings/${(own.json() as { id: string }).id}`,
        {
          key: adminKey,
        },
      );
      expect(removed.status).toBe(204);
    });
  });

  describe('sign-in', () => {
    it('signs in with the code flow and holds the roles its groups map to', async () => {
      const done = await signIn({
        sub: 'alice',
        email: 'alice@example.test',
        groups: ['pki-operators', 'strangers'],
      });
      expect(done.status).toBe(302);
      expect(done.headers.location).toBe('/');
      expect(cookieOf(done, 'service_oidc_pending')).toMatch(/^service_oidc_pending=; Max-Age=0/);
      const me = await call('GET', '/api/v1/auth/me', { cookie: sessionCookie(done) });
      expect(me.status).toBe(200);
      expect(me.json()).toMatchObject({
        actor_id: expect.stringMatching(/^oidc\.[0-9a-f]{24}$/),
        role_ids: ['r-operator'],
      });
      const actions = await db.query<{ action: string }>(
        `SELECT envelope->'data'->>'action' AS action FROM auth.outbox WHERE subject = 'auth.v1.audit.recorded'`,
      );
      expect(actions.rows.map((row) => row.action)).toEqual(
        expect.arrayContaining(['auth.oidc_login_succeeded', 'auth.oidc_login_unmapped_groups']),
      );
      const users = await call('GET', '/api/v1/auth/users', { key: adminKey });
      expect(users.text).toContain('"kind":"oidc"');
    });

    it('a pre-login cookie works once: the same callback again fails (prelogin_invalid)', async () => {
      await idp.nextLogin({
        sub: 'alice',
        email: 'alice@example.test',
        email_verified: true,
        groups: ['pki-operators'],
      });
      const { pending, callback } = await startSignIn();
      expect((await finish(callback, pending)).headers.location).toBe('/');
      expect(failureReason(await finish(callback, pending))).toBe('prelogin_invalid');
    });

    it('refuses a callback without the pending cookie, or from another browser (User-Agent)', async () => {
      await idp.nextLogin({
        sub: 'alice',
        email: 'alice@example.test',
        email_verified: true,
        groups: ['pki-operators'],
      });
      const first = await startSignIn();
      expect(failureReason(await finish(first.callback, 'service_oidc_pending=pl-forged'))).toBe(
        'prelogin_invalid',
      );
      await idp.nextLogin({
        sub: 'alice',
        email: 'alice@example.test',
        email_verified: true,
        groups: ['pki-operators'],
      });
      const second = await startSignIn();
      expect(failureReason(await finish(second.callback, second.pending, 'another browser'))).toBe(
        'prelogin_invalid',
      );
    });

    it('refuses a callback whose state was changed (token_invalid)', async () => {
      await idp.nextLogin({
        sub: 'alice',
        email: 'alice@example.test',
        email_verified: true,
        groups: ['pki-operators'],
      });
      const { pending, callback } = await startSignIn();
      const tampered = new URL(callback);
      tampered.searchParams.set('state', 'forged-state');
      expect(failureReason(await finish(tampered.href, pending))).toBe('token_invalid');
    });

    it('refuses a callback without the iss parameter (RFC 9207 2.4, the IdP announces it)', async () => {
      await idp.nextLogin({
        sub: 'alice',
        email: 'alice@example.test',
        email_verified: true,
        groups: ['pki-operators'],
      });
      const { pending, callback } = await startSignIn();
      const stripped = new URL(callback);
      stripped.searchParams.delete('iss');
      expect(failureReason(await finish(stripped.href, pending))).toBe('token_invalid');
    });

    it('refuses an email outside the allowlist, and an unverified one (email_not_allowed)', async () => {
      expect(
        failureReason(
          await signIn({ sub: 'mallory', email: 'mallory@example.test.evil.com', groups: ['pki-operators'] }),
        ),
      ).toBe('email_not_allowed');
      await idp.nextLogin({
        sub: 'eve',
        email: 'eve@example.test',
        email_verified: false,
        groups: ['pki-operators'],
      });
      const { pending, callback } = await startSignIn();
      expect(failureReason(await finish(callback, pending))).toBe('email_not_allowed');
    });

    it('refuses an identity no group maps to a role (no_role) and records no session', async () => {
      expect(
        failureReason(await signIn({ sub: 'carol', email: 'carol@example.test', groups: ['strangers'] })),
      ).toBe('no_role');
      const sessions = await db.query(
        `SELECT 1 FROM auth.sessions s JOIN auth.oidc_identities i ON i.actor_id = s.actor_id WHERE i.subject = 'carol'`,
      );
      expect(sessions.rowCount).toBe(0);
    });

    it('an unknown provider goes back to the sign-in page (provider_unknown)', async () => {
      expect(failureReason(await call('GET', `/auth/oidc/login?provider=${randomUUID()}`))).toBe(
        'provider_unknown',
      );
    });

    it('limits the sign-ins pending from one address (429 with Retry-After)', async () => {
      const from = { 'x-forwarded-for': '203.0.113.9' };
      let started = 0;
      let limited: HttpsResult | undefined;
      while (!limited && started <= 100) {
        const login = await call('GET', `/auth/oidc/login?provider=${providerId}`, { headers: from });
        if (login.status === 302) started += 1;
        else limited = login;
      }
      expect(started).toBe(100);
      expect(limited?.status).toBe(429);
      expect(limited?.headers['retry-after']).toBe('60');
      expect(limited?.json()).toMatchObject({ code: 'rate_limited' });
      const elsewhere = await call('GET', `/auth/oidc/login?provider=${providerId}`, {
        headers: { 'x-forwarded-for': '203.0.113.10' },
      });
      expect(elsewhere.status).toBe(302);
    });

    it('a provider with users cannot be deleted (409)', async () => {
      const refused = await call('DELETE', `/api/v1/auth/oidc/providers/${providerId}`, { key: adminKey });
      expect(refused.status).toBe(409);
      expect(refused.json()).toMatchObject({ code: 'oidc_provider_in_use' });
    });
  });

  describe('back-channel logout', () => {
    async function activeSession(sub: string) {
      const done = await signIn({ sub, email: `${sub}@example.test`, groups: ['pki-operators'] });
      expect(done.headers.location).toBe('/');
      const cookie = sessionCookie(done);
      expect((await call('GET', '/api/v1/auth/me', { cookie })).status).toBe(200);
      return cookie;
    }
    const stillSignedIn = async (cookie: string) =>
      (await call('GET', '/api/v1/auth/me', { cookie })).status === 200;

    it('the IdP logs a subject out: its sessions end', async () => {
      const cookie = await activeSession('dave');
      const sent = await idp.backchannelLogout(CLIENT_ID, 'dave');
      expect(sent).toEqual({ ok: true });
      await eventually(async () => !(await stillSignedIn(cookie)), 'the session is refused');
    });

    it('a logout token by sid ends only that IdP session', async () => {
      const first = await activeSession('grace');
      const second = await activeSession('grace');
      // This client does not ask for sid in ID tokens (see beforeAll); give the first session
      // the IdP session id an IdP that sends sid-only logout tokens would have named at sign-in.
      const sid = randomUUID();
      await db.query(
        `UPDATE auth.sessions SET oidc_sid = $1
          WHERE id = (SELECT id FROM auth.sessions WHERE oidc_subject = 'grace' ORDER BY created_at LIMIT 1)`,
        [sid],
      );
      const accepted = await postLogout(await idp.sign(logoutToken({ sid })));
      expect(accepted.status).toBe(200);
      await eventually(async () => !(await stillSignedIn(first)), 'the first session is refused');
      expect(await stillSignedIn(second)).toBe(true);
    });

    it('a logout token by sub ends every session of the subject; replaying it is refused (jti)', async () => {
      const cookie = await activeSession('erin');
      const token = await idp.sign(logoutToken({ sub: 'erin' }));
      const accepted = await postLogout(token);
      expect(accepted.status).toBe(200);
      expect(accepted.headers['cache-control']).toBe('no-store');
      await eventually(async () => !(await stillSignedIn(cookie)), 'the session is refused');
      const replayed = await postLogout(token);
      expect(replayed.status).toBe(400);
      expect(replayed.json()).toMatchObject(uniformRefusal);
    });

    // Each refusal: 400, the same body, and the session still valid.
    const refusals: [string, (issuer: string) => Promise<string>][] = [
      [
        'a key the provider does not publish (2.6 step 3)',
        () => idp.sign(logoutToken({ sub: 'frank' }), { useForeignKey: true }),
      ],
      ['alg none (2.6 step 3, downgrade)', () => idp.sign(logoutToken({ sub: 'frank' }), { alg: 'none' })],
      [
        'HS256 with the client secret (downgrade: only the configured RS256)',
        () => idp.sign(logoutToken({ sub: 'frank' }), { alg: 'HS256', header: { _secret: CLIENT_SECRET } }),
      ],
      ['another audience (2.6 step 4)', () => idp.sign(logoutToken({ sub: 'frank', aud: 'someone-else' }))],
      [
        'another issuer (2.6 step 4)',
        () => idp.sign(logoutToken({ sub: 'frank', iss: 'http://127.0.0.1:1' })),
      ],
      ['no logout event (2.6 step 6)', () => idp.sign(logoutToken({ sub: 'frank', events: {} }))],
      ['a nonce (2.6 step 7)', () => idp.sign(logoutToken({ sub: 'frank', nonce: 'n' }))],
      ['both sub and sid (spec 5.5: exactly one)', () => idp.sign(logoutToken({ sub: 'frank', sid: 'x' }))],
      ['neither sub nor sid (2.6 step 5)', () => idp.sign(logoutToken({}))],
      ['no jti (2.4)', () => idp.sign(logoutToken({ sub: 'frank', jti: undefined }))],
      [
        'an iat older than SERVICE_OIDC_BCL_MAX_AGE_SECONDS',
        () => idp.sign(logoutToken({ sub: 'frank', iat: Math.floor(Date.now() / 1000) - 3600 })),
      ],
      [
        'a typ of an access token (2.4)',
        () => idp.sign(logoutToken({ sub: 'frank' }), { header: { typ: 'at+jwt' } }),
      ],
    ];

    it.each(refusals)('refuses a logout token with %s', async (_name, make) => {
      const cookie = await activeSession('frank');
      const refused = await postLogout(await make(idp.issuer));
      expect(refused.status).toBe(400);
      expect(refused.json()).toMatchObject(uniformRefusal);
      expect(await stillSignedIn(cookie)).toBe(true);
    });

    it('refuses a body that is not a form with a logout_token (400)', async () => {
      const json = await call('POST', '/auth/oidc/back-channel-logout', { body: { logout_token: 'x' } });
      expect(json.status).toBe(400);
      expect(json.json()).toMatchObject(uniformRefusal);
    });
  });
  describe('RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0)', () => {
    /** GETs and POSTs at the IdP with one cookie jar, without following redirects. */
    const idpBrowser = () => {
      const jar = new Map<string, string>();
      return async (url: string, init: { method?: string; form?: Record<string, string> } = {}) => {
        const response = await fetch(url, {
          method: init.method ?? 'GET',
          redirect: 'manual',
          headers: {
            cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
            'user-agent': UA,
            ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          },
          body: init.form ? new URLSearchParams(init.form).toString() : undefined,
        });
        for (const cookie of response.headers.getSetCookie()) {
          const [pair] = cookie.split(';');
          const at = pair.indexOf('=');
          jar.set(pair.slice(0, at), pair.slice(at + 1));
        }
        return response;
      };
    };

    it('signing out of an OIDC session answers the IdP end-session URL, which the IdP accepts and sends back to /login', async () => {
      const done = await signIn({ sub: 'olga', email: 'olga@example.test', groups: ['pki-operators'] });
      const cookie = sessionCookie(done);
      const csrf = cookieOf(done, 'service_csrf')!.split(';')[0];
      const out = await call('POST', '/auth/logout', {
        cookie: `${cookie}; ${csrf}`,
        headers: { 'x-csrf-token': csrf.slice(csrf.indexOf('=') + 1) },
      });
      expect(out.status).toBe(200);
      const url = new URL((out.json() as { end_session_url: string }).end_session_url);
      const discovery = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as {
        end_session_endpoint: string;
      };
      expect(`${url.origin}${url.pathname}`).toBe(discovery.end_session_endpoint);
      expect(Object.fromEntries(url.searchParams)).toEqual({
        client_id: CLIENT_ID,
        post_logout_redirect_uri: `${gw}/login`,
      });
      expect(cookieOf(out, 'service_session')).toMatch(/^service_session=; /);
      expect((await call('GET', '/api/v1/auth/me', { cookie })).status).toBe(401);

      // The IdP takes it: its confirmation, confirmed, sends the browser back to the sign-in page.
      const browser = idpBrowser();
      const confirm = await browser(url.href);
      expect(confirm.status).toBe(200);
      const page = await confirm.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
      const xsrf = /name="xsrf" value="([^"]+)"/.exec(page)?.[1];
      expect(action && xsrf).toBeTruthy();
      const confirmed = await browser(new URL(action!.replace(/&amp;/g, '&'), url).href, {
        method: 'POST',
        form: { xsrf: xsrf!, logout: 'yes' },
      });
      expect(confirmed.status).toBe(303);
      expect(confirmed.headers.get('location')).toBe(`${gw}/login`);

      // What the IdP refuses: a redirect it was not given for this client.
      const foreign = new URL(url);
      foreign.searchParams.set('post_logout_redirect_uri', 'https://elsewhere.example/login');
      expect((await idpBrowser()(foreign.href)).status).toBe(400);
    });

    it('a session opened without OIDC (as break-glass opens them) signs out with 204 and no URL', async () => {
      // A session row without a provider, as break-glass opens them, ended through the same route.
      const done = await signIn({ sub: 'pavel', email: 'pavel@example.test', groups: ['pki-operators'] });
      await db.query(`UPDATE auth.sessions SET oidc_provider_id = NULL WHERE oidc_subject = 'pavel'`);
      const csrf = cookieOf(done, 'service_csrf')!.split(';')[0];
      const out = await call('POST', '/auth/logout', {
        cookie: `${sessionCookie(done)}; ${csrf}`,
        headers: { 'x-csrf-token': csrf.slice(csrf.indexOf('=') + 1) },
      });
      expect(out.status).toBe(204);
      expect(out.text).toBe('');
    });
  });

  describe('disabling the provider', () => {
    it('ends the sessions opened through it and refuses new sign-ins (provider_unknown)', async () => {
      const done = await signIn({ sub: 'heidi', email: 'heidi@example.test', groups: ['pki-operators'] });
      const cookie = sessionCookie(done);
      expect((await call('GET', '/api/v1/auth/me', { cookie })).status).toBe(200);
      const disabled = await call('PUT', `/api/v1/auth/oidc/providers/${providerId}`, {
        key: adminKey,
        body: { enabled: false },
      });
      expect(disabled.status).toBe(200);
      expect(disabled.json()).toMatchObject({ enabled: false, has_client_secret: true });
      await eventually(
        async () => (await call('GET', '/api/v1/auth/me', { cookie })).status === 401,
        'the session is refused',
      );
      expect(failureReason(await call('GET', `/auth/oidc/login?provider=${providerId}`))).toBe(
        'provider_unknown',
      );
    });
  });
});
