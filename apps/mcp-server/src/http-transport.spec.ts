import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { ApiClient, ApiError } from '@certlane/api-client';
import { createTlsFixture, TlsFixture } from '@certlane/testing';
import { createCertlaneMcpServer } from './certlane-mcp-server';
import { CompiledTools } from './compiled-tools';
import { RunningHttpTransport, serveMcpOverHttps } from './http-transport';
import { toolCatalogue } from './tool-catalogue';

const document = JSON.parse(readFileSync(join(__dirname, '../../../docs/openapi.json'), 'utf8'));
const tools = new CompiledTools(toolCatalogue(document), ['main']);

describe('the HTTP transport with a key the API stops accepting', () => {
  let tls: TlsFixture;
  let running: RunningHttpTransport;
  let dispatcher: Agent;
  const revoked = new Set<string>();
  const lines: string[] = [];

  beforeAll(async () => {
    tls = await createTlsFixture();
    dispatcher = new Agent({ connect: { ca: tls.certPem } });
    running = await serveMcpOverHttps(
      {
        host: '127.0.0.1',
        port: 0,
        certPath: tls.certPath,
        keyPath: tls.keyPath,
        maxSessions: 4,
        idleTimeoutMs: 60_000,
        allowedOrigins: [],
      },
      { cert: readFileSync(tls.certPath), key: readFileSync(tls.keyPath) },
      {
        connect: (apiKey) => {
          const call = async () => {
            if (revoked.has(apiKey))
              throw new ApiError({ status: 401, code: 'unauthenticated', reason: 'invalid API key' });
            return { items: [] };
          };
          return { api: { call } as unknown as ApiClient, close: () => undefined };
        },
        serverFor: (api, refused) =>
          createCertlaneMcpServer(api, tools, 'test', {
            onUnauthorized: () => {
              refused();
              return undefined;
            },
          }),
        log: (line) => lines.push(line),
      },
    );
  });

  afterAll(async () => {
    await running?.close();
    await dispatcher?.close();
    if (tls) rmSync(tls.dir, { recursive: true, force: true });
  });

  const open = async (key: string) => {
    const client = new Client({ name: 'spec', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`https://localhost:${running.port}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      fetch: ((input: string | URL, init?: RequestInit) =>
        undiciFetch(input, { ...(init as object), dispatcher })) as never,
    });
    await client.connect(transport as never);
    return client;
  };

  it('ends the session once the API answers 401, so the client has to present a key again', async () => {
    const key = 'a'.repeat(40);
    const client = await open(key);
    expect((await client.callTool({ name: 'listRenewalPolicies', arguments: {} })).isError).toBeUndefined();
    revoked.add(key);
    const refused = (await client.callTool({ name: 'listRenewalPolicies', arguments: {} })) as {
      isError?: boolean;
    };
    expect(refused.isError).toBe(true);
    // The session is gone: its next request is 404 (MCP: initialize a new session), which the API
    // then refuses (401) while the key stays revoked.
    await expect(client.listTools()).rejects.toMatchObject({
      code: 404,
      message: expect.stringMatching(/no such session/),
    });
    await client.close();
    await expect(open(key)).rejects.toMatchObject({ code: 401 });
    expect(lines.join('\n')).not.toContain(key);
  });
});
