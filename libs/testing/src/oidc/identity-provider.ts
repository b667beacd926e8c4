// A real OpenID Provider (oidc-provider, ESM-only) for integration tests, run in a child process
// (./identity-provider-process.mjs) and driven over HTTP: the jest side never imports oidc-provider.
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const SCRIPT = join(__dirname, 'identity-provider-process.mjs');
const READY_TIMEOUT_MS = 15_000;

export interface TestOidcClient {
  client_id: string;
  /** Absent: a public client (token_endpoint_auth_method `none`). Present: client_secret_basic. */
  client_secret?: string;
  redirect_uris: string[];
  backchannel_logout_uri?: string;
  backchannel_logout_session_required?: boolean;
  /** Defaults to the provider's signing alg. */
  id_token_signed_response_alg?: string;
  /** Any further client metadata (post_logout_redirect_uris, token_endpoint_auth_method, ...). */
  [metadata: string]: unknown;
}

export interface TestIdentityProviderConfig {
  /** 0 (default) picks a free port. */
  port?: number;
  clients: TestOidcClient[];
  /** Algorithm of the provider's one signing key. Default RS256. */
  signing?: 'RS256' | 'ES256';
}

export interface TestAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
}

export interface SignOptions {
  /** Extra/overriding JOSE header fields; for HS256 put the HMAC secret in `_secret` (not encoded). */
  header?: Record<string, unknown>;
  /** RS256 | ES256 (must match the provider's key unless useForeignKey) | HS256 | none. */
  alg?: string;
  /** Sign with a fresh key the provider does not publish in its JWKS. */
  useForeignKey?: boolean;
}

export type BackchannelLogoutResult =
  | { ok: true }
  /** `status` is what the RP answered (absent when it could not be reached). */
  | { ok: false; error: string; status?: number };

export interface TestSession {
  accountId: string;
  sessionId: string;
  /** client_id -> the `sid` issued to that client. */
  authorizations: Record<string, { sid: string }>;
}

export interface TestIdentityProvider {
  /** `http://127.0.0.1:<port>`, also the base URL of every endpoint. */
  issuer: string;
  /** The account the next interaction logs in (once; afterwards the default `test-user`). */
  nextLogin(account: TestAccount): Promise<void>;
  /** A compact JWS over `payload`, by default with the provider's current signing key and its kid. */
  sign(payload: Record<string, unknown>, options?: SignOptions): Promise<string>;
  /** Makes the provider POST a real logout_token to the client's backchannel_logout_uri. */
  backchannelLogout(clientId: string, sub: string, sid?: string): Promise<BackchannelLogoutResult>;
  /** Replaces the signing key (the JWKS then publishes only the new one); returns the new kid. */
  rotateKeys(): Promise<string>;
  /** The provider's live sessions. */
  sessions(): Promise<TestSession[]>;
  /** Everything the child printed so far (stdout and stderr). */
  output(): string;
  /** Kills the child and waits for its exit. */
  stop(): Promise<void>;
}

export function startTestIdentityProvider(config: TestIdentityProviderConfig): Promise<TestIdentityProvider> {
  const child = spawn(process.execPath, [SCRIPT], {
    env: { ...process.env, OIDC_TEST_CONFIG: JSON.stringify({ port: 0, ...config }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolveExit) => {
    if (child.exitCode !== null || child.signalCode !== null) resolveExit();
    else child.once('exit', () => resolveExit());
  });

  return new Promise((resolveStart, reject) => {
    const fail = (reason: string) => {
      cleanup();
      child.kill('SIGKILL');
      reject(new Error(`test identity provider ${reason}\n${stderr}`));
    };
    const onData = () => {
      const match = /^READY (\S+)$/m.exec(stdout);
      if (!match) return;
      cleanup();
      resolveStart(harness(match[1], child, exited, () => output));
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      fail(`exited before READY (code ${code}, signal ${signal})`);
    const onError = (error: Error) => fail(`could not start: ${error.message}`);
    const timer = setTimeout(() => fail(`not READY after ${READY_TIMEOUT_MS} ms`), READY_TIMEOUT_MS);
    function cleanup() {
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
    }
    child.stdout.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

function harness(
  issuer: string,
  child: ChildProcess,
  exited: Promise<void>,
  output: () => string,
): TestIdentityProvider {
  async function control<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<[number, T]> {
    const response = await fetch(`${issuer}/__test/${path}`, {
      method,
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return [response.status, (await response.json()) as T];
  }
  async function expectOk<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const [status, result] = await control<T & { error?: string }>(method, path, body);
    if (status !== 200) throw new Error(`test identity provider ${path}: ${status} ${result.error ?? ''}`);
    return result;
  }

  return {
    issuer,
    output,
    async nextLogin(account) {
      await expectOk('POST', 'next-login', account);
    },
    async sign(payload, options = {}) {
      const { jwt } = await expectOk<{ jwt: string }>('POST', 'sign', {
        payload,
        header: options.header,
        alg: options.alg,
        use_foreign_key: options.useForeignKey,
      });
      return jwt;
    },
    async backchannelLogout(clientId, sub, sid) {
      const [status, result] = await control<{ ok?: true; error?: string; status?: number }>(
        'POST',
        'backchannel-logout',
        { client_id: clientId, sub, sid },
      );
      if (status === 200) return { ok: true };
      return { ok: false, error: result.error ?? `HTTP ${status}`, status: result.status };
    },
    async rotateKeys() {
      const { kid } = await expectOk<{ kid: string }>('POST', 'rotate-keys', {});
      return kid;
    },
    async sessions() {
      const { sessions } = await expectOk<{ sessions: TestSession[] }>('GET', 'sessions');
      return sessions;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
