import { createHash, createPublicKey, JsonWebKey, randomBytes, verify } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { startTestIdentityProvider, TestIdentityProvider } from './identity-provider';

const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
const CLIENT_ID = 'certlane-web';
const CLIENT_SECRET = 'test-client-secret';

interface Received {
  method: string;
  url: URL;
  body: string;
}

/** A tiny relying party: records every request to it; answers `logoutStatus` on /backchannel-logout, else 200. */
async function startRelyingParty(
  logoutStatus = 200,
): Promise<{ base: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: new URL(req.url ?? '/', 'http://127.0.0.1'), body });
      const status = req.url === '/backchannel-logout' ? logoutStatus : 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(String(status));
    });
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, received, server };
}

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  code_challenge_methods_supported: string[];
  backchannel_logout_supported: boolean;
  authorization_response_iss_parameter_supported: boolean;
}

async function getJson<T>(url: string): Promise<T> {
  return (await (await fetch(url)).json()) as T;
}

function decodeJwt(jwt: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [header, payload] = jwt.split('.');
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')),
    payload: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')),
  };
}

/** A fetch with manual redirects and a cookie jar (name -> value), like a browser without a UI. */
class Browser {
  readonly cookies = new Map<string, string>();

  async get(url: string): Promise<Response> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const setCookie of response.headers.getSetCookie()) {
      const [pair] = setCookie.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(setCookie) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** Follows redirects until one leaves `origin`; returns that final location. */
  async followUntilLeaving(url: string, origin: string): Promise<URL> {
    let current = new URL(url);
    for (let hop = 0; hop < 10; hop++) {
      const response = await this.get(current.href);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) {
        throw new Error(
          `expected a redirect from ${current.href}, got ${response.status}: ${await response.text()}`,
        );
      }
      current = new URL(location, current);
      if (current.origin !== origin) return current;
    }
    throw new Error('too many redirects');
  }
}

describe('test identity provider (oidc-provider in a child process)', () => {
  let idp: TestIdentityProvider;
  let rp: Awaited<ReturnType<typeof startRelyingParty>>;

  beforeAll(async () => {
    rp = await startRelyingParty();
    idp = await startTestIdentityProvider({
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          redirect_uris: [`${rp.base}/callback`],
          backchannel_logout_uri: `${rp.base}/backchannel-logout`,
          backchannel_logout_session_required: true,
        },
      ],
    });
  });

  afterAll(async () => {
    await idp?.stop();
    await new Promise((resolveClose) => rp?.server.close(resolveClose));
  });

  it('publishes discovery with PKCE S256, back-channel logout and the RFC 9207 iss parameter', async () => {
    const discovery = await getJson<Discovery>(`${idp.issuer}/.well-known/openid-configuration`);
    expect(discovery.issuer).toBe(idp.issuer);
    expect(discovery.code_challenge_methods_supported).toContain('S256');
    expect(discovery.backchannel_logout_supported).toBe(true);
    expect(discovery.authorization_response_iss_parameter_supported).toBe(true);
  });

  it('runs an authorization code flow with PKCE, then sends a back-channel logout', async () => {
    const discovery = await getJson<Discovery>(`${idp.issuer}/.well-known/openid-configuration`);
    await idp.nextLogin({
      sub: 'alice',
      email: 'alice@example.test',
      email_verified: true,
      name: 'Alice',
      groups: ['certlane-admins', 'pki-operators'],
    });

    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const state = randomBytes(16).toString('base64url');
    const nonce = randomBytes(16).toString('base64url');
    const authorize = new URL(discovery.authorization_endpoint);
    authorize.search = new URLSearchParams({
      client_id: CLIENT_ID,
      response_type: 'code',
      redirect_uri: `${rp.base}/callback`,
      scope: 'openid email profile groups',
      state,
      nonce,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }).toString();

    const browser = new Browser();
    const callback = await browser.followUntilLeaving(authorize.href, idp.issuer);
    expect(callback.origin + callback.pathname).toBe(`${rp.base}/callback`);
    expect(callback.searchParams.get('error')).toBeNull();
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('iss')).toBe(idp.issuer);
    const code = callback.searchParams.get('code');
    expect(code).toBeTruthy();

    const tokenResponse = await fetch(discovery.token_endpoint, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: code!,
        redirect_uri: `${rp.base}/callback`,
        code_verifier: verifier,
      }),
    });
    const tokens = (await tokenResponse.json()) as { id_token: string };
    expect(tokenResponse.status).toBe(200);
    const idToken = decodeJwt(tokens.id_token);
    expect(idToken.header.alg).toBe('RS256');
    expect(idToken.payload).toMatchObject({
      iss: idp.issuer,
      aud: CLIENT_ID,
      sub: 'alice',
      email: 'alice@example.test',
      email_verified: true,
      name: 'Alice',
      groups: ['certlane-admins', 'pki-operators'],
      nonce,
    });
    expect(typeof idToken.payload.sid).toBe('string');

    const sessions = await idp.sessions();
    expect(sessions).toContainEqual(
      expect.objectContaining({
        accountId: 'alice',
        authorizations: { [CLIENT_ID]: { sid: idToken.payload.sid } },
      }),
    );

    await expect(idp.backchannelLogout(CLIENT_ID, 'alice', idToken.payload.sid as string)).resolves.toEqual({
      ok: true,
    });
    const logout = rp.received.find((request) => request.url.pathname === '/backchannel-logout');
    expect(logout?.method).toBe('POST');
    const logoutToken = new URLSearchParams(logout!.body).get('logout_token');
    expect(logoutToken).toBeTruthy();
    const { header, payload } = decodeJwt(logoutToken!);
    expect(header.kid).toBe(idToken.header.kid);
    expect(payload.events).toEqual({ [BACKCHANNEL_LOGOUT_EVENT]: {} });
    expect(payload).toMatchObject({
      iss: idp.issuer,
      aud: CLIENT_ID,
      sub: 'alice',
      sid: idToken.payload.sid,
    });
    expect(typeof payload.jti).toBe('string');
    expect(typeof payload.iat).toBe('number');
    expect(payload).not.toHaveProperty('nonce');
  });

  it('signs crafted tokens with its own key, a foreign key, HS256 or none; rotates keys', async () => {
    const jwks = async () =>
      ((await (await fetch(`${idp.issuer}/jwks`)).json()) as { keys: { kid: string }[] }).keys.map(
        (k) => k.kid,
      );
    const published = await jwks();

    const own = decodeJwt(await idp.sign({ sub: 'alice' }, { header: { typ: 'logout+jwt' } }));
    expect(own.header).toMatchObject({ alg: 'RS256', typ: 'logout+jwt' });
    expect(published).toContain(own.header.kid);

    const foreign = decodeJwt(await idp.sign({ sub: 'alice' }, { useForeignKey: true }));
    expect(foreign.header.alg).toBe('RS256');
    expect(typeof foreign.header.kid).toBe('string');
    expect(published).not.toContain(foreign.header.kid);

    const hs256 = await idp.sign({ sub: 'alice' }, { alg: 'HS256', header: { _secret: CLIENT_SECRET } });
    expect(decodeJwt(hs256).header).toEqual({ alg: 'HS256', typ: 'JWT' });
    const none = await idp.sign({ sub: 'alice' }, { alg: 'none' });
    expect(none.endsWith('.')).toBe(true);

    const newKid = await idp.rotateKeys();
    expect(await jwks()).toEqual([newKid]);
    expect(decodeJwt(await idp.sign({})).header.kid).toBe(newKid);
  });
});

describe('test identity provider with ES256 and a public client', () => {
  let idp: TestIdentityProvider;
  let rp: Awaited<ReturnType<typeof startRelyingParty>>;

  beforeAll(async () => {
    rp = await startRelyingParty(400);
    idp = await startTestIdentityProvider({
      signing: 'ES256',
      clients: [
        {
          client_id: 'certlane-cli',
          redirect_uris: [`${rp.base}/callback`],
          backchannel_logout_uri: `${rp.base}/backchannel-logout`,
        },
      ],
    });
  });

  afterAll(async () => {
    await idp?.stop();
    await new Promise((resolveClose) => rp?.server.close(resolveClose));
  });

  it('logs the default account in, issues ES256 tokens verifiable with the JWKS, reports RP refusals', async () => {
    const discovery = await getJson<Discovery>(`${idp.issuer}/.well-known/openid-configuration`);
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL(discovery.authorization_endpoint);
    authorize.search = new URLSearchParams({
      client_id: 'certlane-cli',
      response_type: 'code',
      redirect_uri: `${rp.base}/callback`,
      scope: 'openid email',
      state: 'state-1',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    const callback = await new Browser().followUntilLeaving(authorize.href, idp.issuer);
    expect(callback.searchParams.get('iss')).toBe(idp.issuer);

    const tokenResponse = await fetch(discovery.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: 'certlane-cli',
        code: callback.searchParams.get('code') ?? '',
        redirect_uri: `${rp.base}/callback`,
        code_verifier: verifier,
      }),
    });
    expect(tokenResponse.status).toBe(200);
    const { id_token } = (await tokenResponse.json()) as { id_token: string };
    const { header, payload } = decodeJwt(id_token);
    expect(header.alg).toBe('ES256');
    expect(payload).toMatchObject({ sub: 'test-user', email: 'test-user@example.test' });
    expect(payload).not.toHaveProperty('groups');

    const { keys } = await getJson<{ keys: (JsonWebKey & { kid: string })[] }>(`${idp.issuer}/jwks`);
    const verifies = (jwt: string) => {
      const [h, p, signature] = jwt.split('.');
      const jwk = keys.find((key) => key.kid === decodeJwt(jwt).header.kid);
      if (!jwk) return false;
      return verify(
        'sha256',
        Buffer.from(`${h}.${p}`),
        { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
        Buffer.from(signature, 'base64url'),
      );
    };
    expect(verifies(id_token)).toBe(true);
    expect(verifies(await idp.sign({ sub: 'test-user' }))).toBe(true);
    expect(verifies(await idp.sign({ sub: 'test-user' }, { useForeignKey: true }))).toBe(false);

    const refused = await idp.backchannelLogout('certlane-cli', 'test-user');
    expect(refused).toMatchObject({ ok: false, status: 400 });
    expect(rp.received.filter((request) => request.url.pathname === '/backchannel-logout')).toHaveLength(1);
  });
});

describe('startTestIdentityProvider', () => {
  it("rejects with the child's stderr when the provider cannot start", async () => {
    await expect(startTestIdentityProvider({ clients: [] })).rejects.toThrow(
      /exited before READY[\s\S]*config\.clients must be a non-empty array/,
    );
  });
});
