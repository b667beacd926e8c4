// A real OpenID Provider (panva/oidc-provider v9) for integration tests, run as a child process:
//   node identity-provider-process.mjs '<json config>'   (or env OIDC_TEST_CONFIG)
// Config: { port?: number (0 = free port), clients: [...], signing?: 'RS256' | 'ES256' }.
// Listens on 127.0.0.1 over plain HTTP and prints `READY <issuer>` once it accepts requests.
// Driven from jest through ./identity-provider.ts; the control endpoints live under /__test/.
import { createHmac, generateKeyPairSync, randomBytes, randomUUID, sign as cryptoSign } from 'node:crypto';
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const SCOPE = 'openid email profile groups';
const DEFAULT_ACCOUNT = {
  sub: 'test-user',
  email: 'test-user@example.test',
  email_verified: true,
  name: 'Test User',
  groups: [],
};

function readConfig() {
  const raw = process.argv[2] ?? process.env.OIDC_TEST_CONFIG;
  if (!raw) throw new Error('missing configuration: pass JSON as argv[2] or env OIDC_TEST_CONFIG');
  const config = JSON.parse(raw);
  const signing = config.signing ?? 'RS256';
  if (signing !== 'RS256' && signing !== 'ES256') throw new Error(`unsupported signing alg ${signing}`);
  if (!Array.isArray(config.clients) || config.clients.length === 0)
    throw new Error('config.clients must be a non-empty array');
  return { port: config.port ?? 0, clients: config.clients, signing };
}

const config = readConfig();

// ---------------------------------------------------------------- keys and JWS

function generateSigningKey(alg) {
  const { privateKey } =
    alg === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomUUID();
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid, alg, use: 'sig' };
  return { alg, kid, privateKey, jwk };
}

const base64url = (input) => Buffer.from(input).toString('base64url');

/** Compact JWS by hand, so tests can craft tokens oidc-provider would never issue. */
function signCompact(payload, header, { alg, key, secret }) {
  const publicHeader = { ...header };
  delete publicHeader._secret;
  const signingInput = `${base64url(JSON.stringify(publicHeader))}.${base64url(JSON.stringify(payload))}`;
  let signature;
  switch (alg) {
    case 'none':
      signature = '';
      break;
    case 'HS256':
      if (!secret) throw new Error('HS256 needs the secret in header field _secret');
      signature = createHmac('sha256', secret).update(signingInput).digest('base64url');
      break;
    case 'RS256':
      signature = cryptoSign('sha256', Buffer.from(signingInput), key).toString('base64url');
      break;
    case 'ES256':
      signature = cryptoSign('sha256', Buffer.from(signingInput), {
        key,
        dsaEncoding: 'ieee-p1363',
      }).toString('base64url');
      break;
    default:
      throw new Error(`unsupported alg ${alg}`);
  }
  return `${signingInput}.${signature}`;
}

// ---------------------------------------------------------------- state

const accounts = new Map([[DEFAULT_ACCOUNT.sub, DEFAULT_ACCOUNT]]);
let nextLogin;
/** session uid -> { accountId, sessionId, authorizations: { [clientId]: { sid } } } */
const sessions = new Map();
let signingKey = generateSigningKey(config.signing);
const cookieKeys = [randomBytes(32).toString('base64url'), randomBytes(32).toString('base64url')];
let provider;
let providerCallback;

function clientMetadata(client) {
  const { client_secret: secret, ...rest } = client;
  return {
    grant_types: ['authorization_code'],
    response_types: ['code'],
    id_token_signed_response_alg: config.signing,
    ...rest,
    ...(secret
      ? {
          client_secret: secret,
          token_endpoint_auth_method: rest.token_endpoint_auth_method ?? 'client_secret_basic',
        }
      : { token_endpoint_auth_method: 'none' }),
  };
}

function createProvider(issuer) {
  const instance = new Provider(issuer, {
    clients: config.clients.map(clientMetadata),
    jwks: { keys: [signingKey.jwk] },
    cookies: { keys: cookieKeys },
    scopes: ['openid', 'email', 'profile', 'groups'],
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name'],
      groups: ['groups'],
    },
    // Put the scope claims into the ID Token even though an access token is issued too.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      backchannelLogout: { enabled: true },
      rpInitiatedLogout: { enabled: true },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    ttl: {
      IdToken: 300,
      AccessToken: 300,
      AuthorizationCode: 60,
      Interaction: 300,
      Session: 3600,
      Grant: 3600,
    },
    // oidc-provider's outgoing requests (back-channel logout) refuse special-use addresses such as
    // 127.0.0.1 (SSRF protection via an undici dispatcher); the test RPs live on loopback.
    fetch: (url, options) => {
      delete options.dispatcher;
      return globalThis.fetch(url, options);
    },
    findAccount: async (_ctx, sub) => {
      const account = accounts.get(sub) ?? { sub };
      return {
        accountId: sub,
        claims: async () => ({ ...account, sub }),
      };
    },
    renderError: async (ctx, out) => {
      ctx.type = 'json';
      ctx.body = out;
    },
  });
  instance.on('session.saved', (session) => {
    const authorizations = {};
    for (const [clientId, { sid }] of Object.entries(session.authorizations ?? {}))
      authorizations[clientId] = { sid };
    sessions.set(session.uid, { accountId: session.accountId, sessionId: session.jti, authorizations });
  });
  instance.on('session.destroyed', (session) => sessions.delete(session.uid));
  instance.on('server_error', (_ctx, error) =>
    process.stderr.write(`oidc-provider server_error: ${error.stack}\n`),
  );
  return instance;
}

/** Key rotation swaps the Provider instance; sessions survive (the memory adapter's store is module-wide). */
function useProvider(instance) {
  provider = instance;
  providerCallback = instance.callback();
}

// ---------------------------------------------------------------- HTTP

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : {};
}

function sendJson(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function handleInteraction(req, res) {
  const account = nextLogin ?? DEFAULT_ACCOUNT;
  nextLogin = undefined;
  const details = await provider.interactionDetails(req, res);
  const clientId = details.params.client_id;
  const grant = new provider.Grant({ accountId: account.sub, clientId });
  grant.addOIDCScope(SCOPE);
  const grantId = await grant.save();
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId: account.sub }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}

const controlHandlers = {
  'POST /__test/next-login': async (body) => {
    if (typeof body.sub !== 'string' || body.sub === '') return [400, { error: 'sub is required' }];
    const account = { ...body };
    accounts.set(account.sub, account);
    nextLogin = account;
    return [200, { ok: true }];
  },
  'POST /__test/sign': async (body) => {
    const alg = body.alg ?? signingKey.alg;
    const header = { alg, typ: 'JWT', ...(body.header ?? {}) };
    if (alg === 'none' || alg === 'HS256')
      return [200, { jwt: signCompact(body.payload ?? {}, header, { alg, secret: header._secret }) }];
    let key;
    if (body.use_foreign_key) {
      const foreign = generateSigningKey(alg);
      key = foreign.privateKey;
      header.kid = body.header?.kid ?? foreign.kid;
    } else {
      if (alg !== signingKey.alg)
        return [400, { error: `provider signs with ${signingKey.alg}, not ${alg}` }];
      key = signingKey.privateKey;
      header.kid = body.header?.kid ?? signingKey.kid;
    }
    return [200, { jwt: signCompact(body.payload ?? {}, header, { alg, key }) }];
  },
  'POST /__test/backchannel-logout': async (body) => {
    const client = await provider.Client.find(String(body.client_id));
    if (!client) return [404, { error: `unknown client ${body.client_id}` }];
    if (!client.backchannelLogoutUri)
      return [400, { error: `client ${body.client_id} has no backchannel_logout_uri` }];
    try {
      await client.backchannelLogout(String(body.sub), body.sid);
      return [200, { ok: true }];
    } catch (error) {
      return [502, { error: error.message, status: error.response?.status }];
    }
  },
  'POST /__test/rotate-keys': async () => {
    signingKey = generateSigningKey(config.signing);
    useProvider(createProvider(provider.issuer));
    return [200, { ok: true, kid: signingKey.kid }];
  },
  'GET /__test/sessions': async () => [200, { sessions: [...sessions.values()] }],
};

async function handle(req, res) {
  const { pathname } = new URL(req.url, 'http://127.0.0.1');
  if (pathname.startsWith('/__test/')) {
    const handler = controlHandlers[`${req.method} ${pathname}`];
    if (!handler) return sendJson(res, 404, { error: `no control endpoint ${req.method} ${pathname}` });
    const [status, body] = await handler(req.method === 'POST' ? await readJson(req) : {});
    return sendJson(res, status, body);
  }
  if (req.method === 'GET' && /^\/interaction\/[^/]+$/.test(pathname)) return handleInteraction(req, res);
  return providerCallback(req, res);
}

const server = createServer((req, res) => {
  handle(req, res).catch((error) => {
    process.stderr.write(`identity provider: ${req.method} ${req.url} failed: ${error.stack}\n`);
    if (!res.headersSent) sendJson(res, 500, { error: error.message });
    else res.destroy();
  });
});

server.listen(config.port, '127.0.0.1', () => {
  const { port } = server.address();
  useProvider(createProvider(`http://127.0.0.1:${port}`));
  process.stdout.write(`READY ${provider.issuer}\n`);
});

const shutdown = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
