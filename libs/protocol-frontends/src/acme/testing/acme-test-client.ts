import { execFileSync } from 'node:child_process';
import { createServer, Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, FlattenedSign, generateKeyPair, JWK, KeyLike } from 'jose';

export interface AcmeAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body as it came (a DER certificate is no text). */
  bytes: Buffer;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** One HTTPS exchange with the test CA, the body read whole. */
export function exchange(
  method: string,
  url: string,
  ca: string,
  body?: string,
  contentType = 'application/jose+json',
  extraHeaders: Record<string, string> = {},
): Promise<AcmeAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method,
        ca,
        agent: false,
        headers: { ...extraHeaders, ...(body === undefined ? {} : { 'content-type': contentType }) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          const text = bytes.toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, bytes, json });
        });
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

/**
 * A deliberately plain ACME client for the negative tests: it signs whatever header it is told
 * to, so each test can break exactly one rule. The happy path is covered by certbot and lego.
 */
export class TestAcmeClient {
  kid?: string;
  /** Sent as X-Forwarded-For (a server trusting 127.0.0.1 as proxy takes it as the client address). */
  forwardedFor?: string;
  private constructor(
    readonly directoryUrl: string,
    readonly ca: string,
    readonly alg: string,
    readonly privateKey: KeyLike,
    readonly jwk: JWK,
  ) {}

  static async create(directoryUrl: string, ca: string, alg = 'ES256'): Promise<TestAcmeClient> {
    const { privateKey, publicKey } = await generateKeyPair(alg);
    return new TestAcmeClient(directoryUrl, ca, alg, privateKey, await exportJWK(publicKey));
  }

  /** This client's key and account at another server (a replica): the account URL on its origin. */
  at(directoryUrl: string): TestAcmeClient {
    const moved = new TestAcmeClient(directoryUrl, this.ca, this.alg, this.privateKey, this.jwk);
    if (this.kid) moved.kid = new URL(new URL(this.kid).pathname, directoryUrl).href;
    return moved;
  }

  async directory(): Promise<Record<string, string>> {
    return (await exchange('GET', this.directoryUrl, this.ca, undefined, undefined, this.headers())).json;
  }

  async nonce(): Promise<string> {
    const answer = await exchange(
      'HEAD',
      (await this.directory()).newNonce,
      this.ca,
      undefined,
      undefined,
      this.headers(),
    );
    return answer.headers['replay-nonce'] as string;
  }

  thumbprint(): Promise<string> {
    return calculateJwkThumbprint(this.jwk);
  }

  async sign(
    url: string,
    payload: unknown,
    header: { nonce?: string | null; url?: string; useJwk?: boolean; kid?: string } = {},
  ): Promise<string> {
    const nonce = header.nonce === undefined ? await this.nonce() : header.nonce;
    const key =
      header.useJwk || !(header.kid ?? this.kid) ? { jwk: this.jwk } : { kid: header.kid ?? this.kid };
    const bytes = payload === '' ? new Uint8Array() : new TextEncoder().encode(JSON.stringify(payload));
    const jws = await new FlattenedSign(bytes)
      .setProtectedHeader({
        alg: this.alg,
        url: header.url ?? url,
        ...(nonce === null ? {} : { nonce }),
        ...key,
      })
      .sign(this.privateKey);
    return JSON.stringify(jws);
  }

  async post(
    url: string,
    payload: unknown,
    header: { nonce?: string | null; url?: string; useJwk?: boolean; kid?: string } = {},
    http: { accept?: string } = {},
  ): Promise<AcmeAnswer> {
    return exchange('POST', url, this.ca, await this.sign(url, payload, header), undefined, {
      ...this.headers(),
      ...(http.accept ? { accept: http.accept } : {}),
    });
  }

  private headers(): Record<string, string> {
    return this.forwardedFor ? { 'x-forwarded-for': this.forwardedFor } : {};
  }

  /** The inner JWS of a key change (RFC 8555 7.3.5): signed by this key, with its jwk, no nonce. */
  async innerJws(
    url: string,
    payload: unknown,
  ): Promise<{ protected: string; payload: string; signature: string }> {
    const jws = await new FlattenedSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: this.alg, jwk: this.jwk, url })
      .sign(this.privateKey);
    return { protected: jws.protected!, payload: jws.payload, signature: jws.signature };
  }

  async register(): Promise<AcmeAnswer> {
    const answer = await this.post(
      (await this.directory()).newAccount,
      { termsOfServiceAgreed: true, contact: ['mailto:ops@example.com'] },
      { useJwk: true },
    );
    this.kid = answer.headers.location as string;
    return answer;
  }

  async keyAuthorization(token: string): Promise<string> {
    return `${token}.${await this.thumbprint()}`;
  }
}

/**
 * A DER CSR (base64url) for the names, made by the openssl CLI with a fresh P-256 (or RSA 2048)
 * key, or `keyPem`; `subject` replaces the `/CN=<cn>` subject, `extensions` are more `-addext`s.
 */
export function csrFor(names: {
  dns?: string[];
  ip?: string[];
  cn?: string;
  key?: 'rsa';
  subject?: string;
  extensions?: string[];
  keyPem?: string;
}): string {
  const dir = mkdtempSync(join(tmpdir(), 'certlane-acme-csr-'));
  try {
    if (names.keyPem) writeFileSync(join(dir, 'given.pem'), names.keyPem);
    const san = [...(names.dns ?? []).map((d) => `DNS:${d}`), ...(names.ip ?? []).map((i) => `IP:${i}`)].join(
      ',',
    );
    execFileSync('openssl', [
      'req',
      '-new',
      ...(names.keyPem
        ? ['-key', join(dir, 'given.pem')]
        : [
            '-newkey',
            ...(names.key === 'rsa' ? ['rsa:2048'] : ['ec', '-pkeyopt', 'ec_paramgen_curve:P-256']),
            '-nodes',
            '-keyout',
            join(dir, 'key.pem'),
          ]),
      '-subj',
      names.subject ?? (names.cn ? `/CN=${names.cn}` : '/'),
      ...(san ? ['-addext', `subjectAltName=${san}`] : []),
      ...(names.extensions ?? []).flatMap((extension) => ['-addext', extension]),
      '-outform',
      'DER',
      '-out',
      join(dir, 'csr.der'),
    ]);
    return readFileSync(join(dir, 'csr.der')).toString('base64url');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The http-01 responder of a client: serves key authorizations and counts the fetches. */
export class Http01Responder {
  readonly answers = new Map<string, string>();
  readonly fetches = new Map<string, number>();
  /** Tokens whose next fetch has its connection dropped (a transient failure). */
  readonly dropOnce = new Set<string>();
  /** Token (or other path) -> Location: answered with a 302 instead. */
  readonly redirects = new Map<string, string>();
  /** Token -> milliseconds the answer waits (a slow server). */
  readonly delays = new Map<string, number>();
  private constructor(private readonly server: Server) {}

  static async start(port: number): Promise<Http01Responder> {
    const server = createServer();
    const responder = new Http01Responder(server);
    server.on('request', (req, res) => {
      const token = (req.url ?? '').replace('/.well-known/acme-challenge/', '');
      responder.fetches.set(token, (responder.fetches.get(token) ?? 0) + 1);
      const answer = responder.answers.get(token);
      if (responder.dropOnce.delete(token)) {
        req.socket.destroy();
        return;
      }
      const redirect = responder.redirects.get(token);
      const respond = () => {
        if (redirect !== undefined) res.writeHead(302, { location: redirect }).end();
        else if (answer === undefined) res.writeHead(404).end();
        else res.writeHead(200, { 'content-type': 'text/plain' }).end(answer);
      };
      setTimeout(respond, responder.delays.get(token) ?? 0);
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return responder;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
