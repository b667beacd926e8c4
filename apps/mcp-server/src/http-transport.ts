import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { ApiClient, ApiError } from '@certlane/api-client';
import { HttpSessions } from './http-sessions';
import type { HttpTransportConfig } from './mcp-config';

/** What the transport needs from the rest of the server. */
export interface HttpTransportDeps {
  /** An API client acting as `apiKey`, and how to close its connections. */
  connect(apiKey: string): { api: ApiClient; close(): void };
  /**
   * A new MCP server session calling the API with `api`; `refused` is called when the API
   * answers it 401 (the key was revoked, rotated or expired since the session opened).
   */
  serverFor(api: ApiClient, refused: () => void): Server;
  log(line: string): void;
}

export interface RunningHttpTransport {
  port: number;
  server: HttpsServer;
  /** New certificate and key (SIGHUP), still TLS 1.3 only. */
  reloadTls(tls: { cert: Buffer; key: Buffer }): void;
  close(): Promise<void>;
}

const MAX_INITIALIZE_BYTES = 64 * 1024;

/**
 * The Streamable HTTP transport at `https://host:port/mcp`, TLS 1.3 only. Every request carries
 * `Authorization: Bearer <Certlane API key>`: the key opens a session (checked against the API
 * first), the session calls the API as that key, and only that key may use the session after
 * (ADR 0054). Sessions are bounded and closed when idle or on DELETE.
 */
export async function serveMcpOverHttps(
  config: HttpTransportConfig,
  tls: { cert: Buffer; key: Buffer },
  deps: HttpTransportDeps,
): Promise<RunningHttpTransport> {
  const sessions = new HttpSessions<{
    close(): Promise<void>;
    transport: StreamableHTTPServerTransport;
    readonly keyRefused: boolean;
  }>(config.maxSessions, config.idleTimeoutMs);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (new URL(req.url ?? '/', 'https://mcp').pathname !== '/mcp')
      return refuse(res, 404, 'not found: the MCP endpoint is /mcp');
    // MCP Streamable HTTP: "Servers MUST validate the Origin header ... to prevent DNS rebinding
    // attacks"; a page's own Host cannot vouch for it, so only listed origins pass.
    const origin = req.headers.origin;
    if (origin !== undefined && !config.allowedOrigins.includes(origin))
      return refuse(res, 403, `the Origin ${origin} is not allowed (SERVICE_MCP_ALLOWED_ORIGINS)`);
    const key = bearerKey(req.headers.authorization);
    if (!key) return refuse(res, 401, 'send Authorization: Bearer <Certlane API key>');
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.find(sessionId, key);
      if (session === 'forbidden') return refuse(res, 403, 'this session was opened with another API key');
      if (!session) return refuse(res, 404, 'no such session: initialize a new one');
      await session.transport.handleRequest(req, res);
      // The API no longer takes the key: the answer said so, and the session ends with it, so the
      // next request gets 404 and a new initialize is checked (401) instead of running on.
      if (session.keyRefused) {
        deps.log('session closed: the API refused its key');
        await session.close();
      }
      return;
    }
    if (req.method !== 'POST') return refuse(res, 400, 'no Mcp-Session-Id: POST an initialize request first');
    const body = await readJson(req);
    if (body === undefined) return refuse(res, 400, 'the body is not JSON (or larger than 64 KiB)');
    if (!isInitializeRequest(body))
      return refuse(res, 400, 'no Mcp-Session-Id: POST an initialize request first');
    if (!sessions.reserve())
      return refuse(res, 503, `the server holds ${config.maxSessions} sessions: retry later`);
    await openSession(key, req, res, body);
  };

  const openSession = async (key: string, req: IncomingMessage, res: ServerResponse, body: unknown) => {
    const connection = deps.connect(key);
    try {
      await connection.api.call('getCheck', {});
    } catch (error) {
      sessions.release();
      connection.close();
      if (error instanceof ApiError && error.status === 401)
        return refuse(res, 401, 'the Certlane API does not accept this API key');
      deps.log(
        `session refused: the API check failed (${error instanceof Error ? error.message : String(error)})`,
      );
      return refuse(res, 502, 'the Certlane API could not check the key');
    }
    let keyRefused = false;
    const server = deps.serverFor(connection.api, () => {
      keyRefused = true;
    });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        const session = {
          transport,
          close: () => server.close(),
          get keyRefused() {
            return keyRefused;
          },
        };
        sessions.add(id, session, key);
        deps.log(`session opened (${sessions.size} open)`);
      },
    });
    server.onclose = () => {
      connection.close();
      if (!transport.sessionId) return;
      sessions.remove(transport.sessionId);
      deps.log(`session closed (${sessions.size} open)`);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    if (!transport.sessionId) {
      sessions.release();
      await server.close();
    }
  };

  const server = createServer({ ...tls, minVersion: 'TLSv1.3' }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      deps.log(`request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) refuse(res, 500, 'internal error');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    server,
    reloadTls: (next) => server.setSecureContext({ ...next, minVersion: 'TLSv1.3' }),
    close: async () => {
      await sessions.closeAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function bearerKey(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

/** A JSON-RPC error body, as the MCP transport answers refusals. */
function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    ...(status === 401 ? { 'www-authenticate': 'Bearer realm="certlane-mcp"' } : {}),
    ...(status === 503 ? { 'retry-after': '30' } : {}),
  });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_INITIALIZE_BYTES) return undefined;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}
