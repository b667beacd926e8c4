import { ChildProcess, spawn } from 'node:child_process';
import { KeyObject, randomBytes, verify } from 'node:crypto';
import { once } from 'node:events';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** One local stand-in: its base URL, what it was asked, and how to stop it. */
export interface StandIn {
  url: string;
  /** Every request line and its verdict, for assertions (no secrets). */
  log: string[];
  close(): Promise<void>;
}

const body = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

const send = (res: ServerResponse, status: number, json: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(json));
};

async function listen(handler: (req: IncomingMessage, res: ServerResponse, log: string[]) => Promise<void>) {
  const log: string[] = [];
  const server: Server = createServer((req, res) => void handler(req, res, log));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** AWS Secrets Manager + ACM, verifying SigV4 with botocore (aws-stand-in.py). */
export async function startAwsStandIn(options: {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  dataFile: string;
}): Promise<StandIn> {
  const child: ChildProcess = spawn(
    'python3',
    [
      join(__dirname, 'aws-stand-in.py'),
      options.accessKeyId,
      options.secretAccessKey,
      options.region,
      options.dataFile,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (c: Buffer) => resolve(c.toString().trim()));
    child.once('exit', (code) => reject(new Error(`aws-stand-in exited ${code}: ${stderr}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    log: [],
    close: async () => {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

/**
 * Entra ID's token endpoint (OAuth 2.0 client credentials: client id and secret checked) and a
 * Key Vault that answers only the token it issued: certificate list (two pages) and get (`cer`).
 */
export async function startAzureStandIn(options: {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  certificates: { name: string; der: Buffer }[];
}): Promise<StandIn> {
  const issued = new Set<string>();
  let self = '';
  const standIn = await listen(async (req, res, log) => {
    const url = new URL(req.url!, self);
    if (req.method === 'POST' && url.pathname === `/${options.tenantId}/oauth2/v2.0/token`) {
      const form = new URLSearchParams(await body(req));
      const ok =
        form.get('grant_type') === 'client_credentials' &&
        form.get('client_id') === options.clientId &&
        form.get('client_secret') === options.clientSecret &&
        form.get('scope') === 'https://vault.azure.net/.default';
      log.push(`token ${ok ? 'issued' : 'refused'}`);
      if (!ok) return send(res, 401, { error: 'invalid_client' });
      const token = randomBytes(24).toString('hex');
      issued.add(token);
      return send(res, 200, { token_type: 'Bearer', expires_in: 3599, access_token: token });
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !issued.has(bearer) || url.searchParams.get('api-version') !== '7.4') {
      log.push(`vault refused ${url.pathname}`);
      return send(res, 401, { error: { code: 'Unauthorized' } });
    }
    if (url.pathname === '/certificates') {
      const page = Number(url.searchParams.get('page') ?? 0);
      const item = options.certificates[page];
      const more = page + 1 < options.certificates.length;
      return send(res, 200, {
        value: item ? [{ id: `${self}/certificates/${item.name}` }] : [],
        nextLink: more ? `${self}/certificates?api-version=7.4&page=${page + 1}` : null,
      });
    }
    const name = /^\/certificates\/([^/]+)$/.exec(url.pathname)?.[1];
    const certificate = options.certificates.find((c) => c.name === name);
    if (!certificate) return send(res, 404, { error: { code: 'CertificateNotFound' } });
    return send(res, 200, { id: `${self}/certificates/${name}`, cer: certificate.der.toString('base64') });
  });
  self = standIn.url;
  return standIn;
}

/**
 * Google's token endpoint (JWT bearer grant: the assertion's RS256 signature verified with the
 * service account's public key, and its iss, aud, scope and lifetime checked) and a Secret Manager
 * that answers only the token it issued: secrets list (pageToken) and `versions/latest:access`.
 */
export async function startGcpStandIn(options: {
  clientEmail: string;
  publicKey: KeyObject;
  project: string;
  secrets: { id: string; data: string | null }[];
}): Promise<StandIn> {
  const issued = new Set<string>();
  let self = '';
  const standIn = await listen(async (req, res, log) => {
    const url = new URL(req.url!, self);
    if (req.method === 'POST' && url.pathname === '/token') {
      const form = new URLSearchParams(await body(req));
      const [header, claims, signature] = (form.get('assertion') ?? '').split('.');
      let ok = false;
      try {
        const parsed = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8'));
        const now = Math.floor(Date.now() / 1000);
        ok =
          form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer' &&
          JSON.parse(Buffer.from(header, 'base64url').toString('utf8')).alg === 'RS256' &&
          verify(
            'sha256',
            Buffer.from(`${header}.${claims}`),
            options.publicKey,
            Buffer.from(signature, 'base64url'),
          ) &&
          parsed.iss === options.clientEmail &&
          parsed.aud === `${self}/token` &&
          parsed.scope === 'https://www.googleapis.com/auth/cloud-platform' &&
          parsed.exp > now &&
          parsed.exp - parsed.iat <= 3600;
      } catch {
        ok = false;
      }
      log.push(`token ${ok ? 'issued' : 'refused'}`);
      if (!ok) return send(res, 400, { error: 'invalid_grant' });
      const token = randomBytes(24).toString('hex');
      issued.add(token);
      return send(res, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !issued.has(bearer))
      return send(res, 401, { error: { code: 401, status: 'UNAUTHENTICATED' } });
    const prefix = `/v1/projects/${options.project}/secrets`;
    if (url.pathname === prefix) {
      const page = Number(url.searchParams.get('pageToken') || 0);
      const secret = options.secrets[page];
      const more = page + 1 < options.secrets.length;
      return send(res, 200, {
        secrets: secret ? [{ name: `projects/${options.project}/secrets/${secret.id}` }] : [],
        ...(more ? { nextPageToken: String(page + 1) } : {}),
      });
    }
    const id = new RegExp(`^${prefix}/([^/]+)/versions/latest:access$`).exec(url.pathname)?.[1];
    const secret = options.secrets.find((s) => s.id === id);
    if (!secret) return send(res, 404, { error: { code: 404, status: 'NOT_FOUND' } });
    if (secret.data === null) return send(res, 400, { error: { code: 400, status: 'FAILED_PRECONDITION' } });
    return send(res, 200, {
      name: `projects/${options.project}/secrets/${secret.id}/versions/1`,
      payload: { data: Buffer.from(secret.data).toString('base64') },
    });
  });
  self = standIn.url;
  return standIn;
}
