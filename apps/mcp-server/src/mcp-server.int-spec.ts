import { ChildProcess, spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { ApiClient, HttpsJsonClient, OPERATIONS } from '@certlane/api-client';
import {
  createTlsFixture,
  eventually,
  freePort,
  runToExit,
  startTestSystem,
  TestSystem,
  TlsFixture,
} from '@certlane/testing';
import { toolCatalogue } from './tool-catalogue';
import { toolSetOf } from './tool-sets';

const MAIN = join(__dirname, '../../../dist/apps/mcp-server/src/main.js');
const document = JSON.parse(readFileSync(join(__dirname, '../../../docs/openapi.json'), 'utf8'));

type Content = { type: string; text?: string; resource?: { uri: string; mimeType: string; blob: string } };
type ToolResult = { content: Content[]; isError?: boolean };
const result = (value: unknown) => value as ToolResult;
const textOf = (value: unknown) => result(value).content[0].text ?? '';

/** The MCP server over HTTP as its own process; resolves once it says where it listens. */
function startHttpServer(
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', SERVICE_MCP_TRANSPORT: 'http', SERVICE_MCP_PORT: '0', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /listening on (https:\/\/\S+\/mcp)/.exec(output);
      if (listening) resolve({ url: listening[1], child, output: () => output });
    });
    child.once('exit', (code) => reject(new Error(`the MCP server exited (${code}): ${output}`)));
  });
}

const stopProcess = (child: ChildProcess | undefined) =>
  new Promise<void>((resolve) => {
    if (!child || child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/** A raw HTTPS request to the MCP endpoint (not an API route, so not through httpsRequest). */
function rawRequest(
  url: string,
  ca: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: init.method ?? 'POST', headers: init.headers, ca, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

/** How a TLS handshake with `url` at most `maxVersion` ends: the protocol and certificate, or the error. */
function handshake(url: string, ca: string[], maxVersion: 'TLSv1.2' | 'TLSv1.3'): Promise<string> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve) => {
    const socket = tlsConnect(
      { host: hostname, port: Number(port), ca, maxVersion, servername: 'localhost' },
      () => {
        resolve(`${socket.getProtocol()} ${socket.getPeerX509Certificate()?.fingerprint256}`);
        socket.end();
      },
    );
    socket.once('error', (error) => resolve(`refused: ${error.message}`));
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('the MCP server', () => {
  it('has one tool per operation: the main set every non-EST operation, the EST set the EST ones', () => {
    const tools = toolCatalogue(document);
    const ids = (set: 'main' | 'est') =>
      Object.entries(OPERATIONS)
        .filter(([, op]) => toolSetOf(op) === set)
        .map(([id]) => id)
        .sort();
    const named = (set: 'main' | 'est') =>
      tools
        .filter((tool) => tool.set === set)
        .map((tool) => tool.name as string)
        .sort();
    expect(named('main')).toEqual(ids('main'));
    expect(named('est')).toEqual(ids('est'));
    expect(tools).toHaveLength(Object.keys(OPERATIONS).length);
    expect(named('main').length).toBeGreaterThanOrEqual(121);
    expect(named('est')).toContain('estBulkRevokeCertificates');
    const fileTools = tools.filter((tool) => tool.answer !== 'json').map((tool) => [tool.name, tool.answer]);
    expect(fileTools).toEqual(
      expect.arrayContaining([
        ['exportAudit', 'text'],
        ['exportCertificatePem', 'text'],
        ['getApiDescriptionYaml', 'text'],
        ['exportCertificatePkcs12', 'binary'],
        ['getIssuerCrl', 'binary'],
        ['getOcspResponse', 'binary'],
      ]),
    );
  });

  it('refuses an http:// Certlane URL at startup, over both transports', async () => {
    for (const transport of ['stdio', 'http']) {
      const run = await runToExit('mcp-server', {
        SERVICE_SERVER_URL: 'http://127.0.0.1:8443',
        SERVICE_API_KEY: 'k'.repeat(40),
        SERVICE_MCP_TRANSPORT: transport,
        SERVICE_MCP_TLS_CERT_PATH: '/nonexistent.crt',
        SERVICE_MCP_TLS_KEY_PATH: '/nonexistent.key',
      });
      expect(run.code).toBe(78);
      expect(run.stderr).toMatch(/uses http:\/\//);
    }
  });

  describe('against a running system', () => {
    let system: TestSystem;
    let dir: string;
    let tls: TlsFixture;
    let mcpKey: string;
    let adminKey: string;
    let httpServer: { url: string; child: ChildProcess; output: () => string };
    const clients: Record<'stdio' | 'http', Client> = {} as never;
    let dispatcher: Agent;

    const httpClient = async (key: string, url = httpServer.url) => {
      const client = new Client({ name: 'certlane-test', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
        fetch: ((input: string | URL, init?: RequestInit) =>
          undiciFetch(input, { ...(init as object), dispatcher })) as never,
      });
      await client.connect(transport as never);
      return { client, transport };
    };

    beforeAll(async () => {
      system = await startTestSystem('mcp', ['auth', 'issuance', 'api-gateway'], {
        SERVICE_KEYGEN_MODE: 'server',
      });
      const gateway = system.services['api-gateway'].url;
      dir = mkdtempSync(join(tmpdir(), 'mcp-'));
      tls = await createTlsFixture();
      writeFileSync(join(dir, 'ca.pem'), system.ca);
      dispatcher = new Agent({ connect: { ca: tls.certPem } });
      adminKey = system.env.SERVICE_AUTH_SECRET!;
      const admin = new HttpsJsonClient({ baseUrl: gateway, apiKey: adminKey, caBundle: system.ca });
      const minted = await new ApiClient(admin).call('createApiKey', {
        body: { name: 'mcp', role_ids: ['r-mcp'] },
      });
      admin.close();
      mcpKey = (minted as { key: string }).key;
      writeFileSync(join(dir, 'key'), mcpKey, { mode: 0o600 });
      const common = { SERVICE_SERVER_URL: gateway, SERVICE_SERVER_CA_BUNDLE_PATH: join(dir, 'ca.pem') };
      clients.stdio = new Client({ name: 'certlane-test', version: '1.0.0' });
      await clients.stdio.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [MAIN],
          env: { PATH: process.env.PATH ?? '', ...common, SERVICE_API_KEY_FILE: join(dir, 'key') },
        }),
      );
      httpServer = await startHttpServer({
        ...common,
        SERVICE_MCP_TLS_CERT_PATH: tls.certPath,
        SERVICE_MCP_TLS_KEY_PATH: tls.keyPath,
        SERVICE_MCP_MAX_SESSIONS: '3',
      });
      clients.http = (await httpClient(mcpKey)).client;
    }, 90_000);

    afterAll(async () => {
      await clients.stdio?.close();
      await clients.http?.close();
      await stopProcess(httpServer?.child);
      await dispatcher?.close();
      await system?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
      if (tls) rmSync(tls.dir, { recursive: true, force: true });
    });

    describe.each(['stdio', 'http'] as const)('over %s, as an r-mcp key', (transport) => {
      const client = () => clients[transport];

      it('lists the tools of both sets with their input schemas and destructive annotations', async () => {
        const { tools } = await client().listTools();
        expect(tools.length).toBe(toolCatalogue(document).length);
        const revoke = tools.find((tool) => tool.name === 'revokeManagedCertificate');
        expect(revoke?.annotations?.destructiveHint).toBe(true);
        expect(revoke?.inputSchema.required).toEqual(expect.arrayContaining(['id', 'confirm']));
        expect(tools.find((tool) => tool.name === 'listRenewalPolicies')?.annotations?.readOnlyHint).toBe(
          true,
        );
        // A read whose name holds "Retired" is not destructive, and needs no confirm.
        const retired = tools.find((tool) => tool.name === 'listRetiredAgents');
        expect([retired?.annotations?.readOnlyHint, retired?.annotations?.destructiveHint]).toEqual([
          true,
          false,
        ]);
        expect(retired?.inputSchema.required ?? []).not.toContain('confirm');
        expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['estBulkRevokeCertificates']));
      });

      it('calls a write tool and a read tool through the API', async () => {
        const created = await client().callTool({
          name: 'createRenewalPolicy',
          arguments: { body: { name: `from-mcp-${transport}`, max_retries: 1 } },
        });
        expect(result(created).isError).toBeUndefined();
        const policy = JSON.parse(textOf(created)) as { id: string; name: string };
        expect(policy.name).toBe(`from-mcp-${transport}`);
        const read = await client().callTool({ name: 'getRenewalPolicy', arguments: { id: policy.id } });
        expect(JSON.parse(textOf(read))).toMatchObject({ id: policy.id, name: `from-mcp-${transport}` });
      });

      it('maps a refusal of the API (403) to a tool error with the code', async () => {
        const refused = await client().callTool({
          name: 'createApiKey',
          arguments: { body: { name: 'nope' } },
        });
        expect(result(refused).isError).toBe(true);
        expect(JSON.parse(textOf(refused))).toMatchObject({ status: 403, code: 'forbidden' });
      });

      it('refuses bad input and a destructive call without confirm before any request', async () => {
        const bad = await client().callTool({
          name: 'createRenewalPolicy',
          arguments: { body: { max_retries: 'x' } },
        });
        expect(result(bad).isError).toBe(true);
        expect(textOf(bad)).toMatch(/^invalid arguments: /);
        const unconfirmed = await client().callTool({
          name: 'revokeManagedCertificate',
          arguments: { id: 'c-1', body: { reason: 'keyCompromise' } },
        });
        expect(result(unconfirmed).isError).toBe(true);
        expect(textOf(unconfirmed)).toMatch(/confirm/);
      });

      it('MCP tools "Error Handling": an unknown tool and a list cursor are protocol errors (-32602)', async () => {
        await expect(client().callTool({ name: 'noSuchTool', arguments: {} })).rejects.toMatchObject({
          code: -32602,
          message: expect.stringContaining('Unknown tool: noSuchTool'),
        });
        // MCP pagination: "Invalid cursors SHOULD result in an error with code -32602"; there is one page.
        await expect(client().listTools({ cursor: 'garbage' })).rejects.toMatchObject({ code: -32602 });
      });

      it('answers file tools: the PEM export as text, the PKCS#12 export as a base64 blob', async () => {
        const id = `mcp-${transport}`;
        const created = await client().callTool({
          name: 'createCertificate',
          arguments: { body: { id, common_name: `${id}.example.com`, key_algorithm: 'ECDSA-P256' } },
        });
        expect(result(created).isError).toBeUndefined();
        const pem = await client().callTool({
          name: 'exportCertificatePem',
          arguments: { id, download: 'true' },
        });
        expect(result(pem).isError).toBeUndefined();
        expect(textOf(pem)).toMatch(/^-----BEGIN CERTIFICATE-----\n[\s\S]+-----END CERTIFICATE-----\n$/);
        expect(textOf(pem).match(/BEGIN CERTIFICATE/g)!.length).toBeGreaterThanOrEqual(2);
        const p12 = result(
          await client().callTool({
            name: 'exportCertificatePkcs12',
            arguments: { id, body: { password: 'mcp-test-pw' } },
          }),
        );
        expect(p12.isError).toBeUndefined();
        const blob = p12.content[0].resource!;
        expect(blob).toMatchObject({
          uri: `certlane:/api/v1/certificates/${id}/export/pkcs12`,
          mimeType: 'application/x-pkcs12',
        });
        expect(Buffer.from(blob.blob, 'base64')[0]).toBe(0x30); // a DER SEQUENCE
      });
    });

    it('MCP tools "Error Handling": an API that gives no answer is a tool error the model sees, not a protocol error', async () => {
      const unreachable = new Client({ name: 'certlane-test', version: '1.0.0' });
      await unreachable.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [MAIN],
          env: {
            PATH: process.env.PATH ?? '',
            SERVICE_SERVER_URL: `https://127.0.0.1:${await freePort()}`,
            SERVICE_API_KEY: mcpKey,
          },
        }),
      );
      try {
        const answer = result(await unreachable.callTool({ name: 'listRenewalPolicies', arguments: {} }));
        expect(answer.isError).toBe(true);
        expect(JSON.parse(answer.content[0].text!)).toMatchObject({ code: 'api_unreachable' });
      } finally {
        await unreachable.close();
      }
    });

    describe('the HTTP transport', () => {
      it('Streamable HTTP: "Servers MUST validate the Origin header": an Origin not listed is 403, a listed one is served', async () => {
        const withOrigins = await startHttpServer({
          SERVICE_SERVER_URL: system.services['api-gateway'].url,
          SERVICE_SERVER_CA_BUNDLE_PATH: join(dir, 'ca.pem'),
          SERVICE_MCP_TLS_CERT_PATH: tls.certPath,
          SERVICE_MCP_TLS_KEY_PATH: tls.keyPath,
          SERVICE_MCP_ALLOWED_ORIGINS: 'https://console.example',
        });
        try {
          const initialize = (origin: string) =>
            rawRequest(withOrigins.url, tls.certPem, {
              headers: { ...JSON_HEADERS, authorization: `Bearer ${mcpKey}`, origin },
              body: INITIALIZE,
            });
          const refused = await initialize('https://evil.example');
          expect([refused.status, JSON.parse(refused.text).error.message]).toEqual([
            403,
            expect.stringContaining('https://evil.example'),
          ]);
          const served = await initialize('https://console.example');
          expect(served.status).toBe(200);
          expect(served.headers['mcp-session-id']).toEqual(expect.any(String));
          // The server started without the setting (the other tests) takes no browser origin at all.
          const { status } = await rawRequest(httpServer.url, tls.certPem, {
            headers: {
              ...JSON_HEADERS,
              authorization: `Bearer ${mcpKey}`,
              origin: 'https://console.example',
            },
            body: INITIALIZE,
          });
          expect(status).toBe(403);
        } finally {
          await stopProcess(withOrigins.child);
        }
      });

      it('refuses a TLS 1.2 client', async () => {
        expect(await handshake(httpServer.url, [tls.certPem], 'TLSv1.3')).toMatch(/^TLSv1\.3 /);
        expect(await handshake(httpServer.url, [tls.certPem], 'TLSv1.2')).toMatch(
          /^refused: .*(protocol version|alert)/i,
        );
      });

      it('refuses a request without a key, and an initialize with a key the API does not know', async () => {
        const anonymous = await rawRequest(httpServer.url, tls.certPem, {
          headers: JSON_HEADERS,
          body: INITIALIZE,
        });
        expect(anonymous.status).toBe(401);
        expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer/);
        const unknown = await rawRequest(httpServer.url, tls.certPem, {
          headers: { ...JSON_HEADERS, authorization: `Bearer ${'0'.repeat(64)}` },
          body: INITIALIZE,
        });
        expect(unknown.status).toBe(401);
      });

      it('acts as the key of each session: an admin session exports the audit log, the r-mcp one is refused', async () => {
        const admin = await httpClient(adminKey);
        try {
          const exported = result(
            await admin.client.callTool({ name: 'exportAudit', arguments: { limit: 5 } }),
          );
          expect(exported.isError).toBeUndefined();
          const lines = exported.content[0].text!.trim().split('\n');
          expect(lines.length).toBeGreaterThanOrEqual(1);
          expect(JSON.parse(lines[0])).toMatchObject({
            event_id: expect.anything(),
            hash: expect.any(String),
          });
        } finally {
          await admin.transport.terminateSession();
          await admin.client.close();
        }
        const refused = result(await clients.http.callTool({ name: 'exportAudit', arguments: { limit: 5 } }));
        expect(refused.isError).toBe(true);
        expect(JSON.parse(refused.content[0].text!)).toMatchObject({ status: 403 });
      });

      it('lets only the key that opened a session use it, and closes it on DELETE', async () => {
        const opened = await httpClient(mcpKey);
        const sessionId = opened.transport.sessionId!;
        expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
        const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        const session = {
          ...JSON_HEADERS,
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-06-18',
        };
        const stolen = await rawRequest(httpServer.url, tls.certPem, {
          headers: { ...session, authorization: `Bearer ${adminKey}` },
          body: list,
        });
        expect(stolen.status).toBe(403);
        await opened.transport.terminateSession();
        const after = await rawRequest(httpServer.url, tls.certPem, {
          headers: { ...session, authorization: `Bearer ${mcpKey}` },
          body: list,
        });
        expect(after.status).toBe(404);
        await opened.client.close();
      });

      it('holds a bounded number of sessions and refuses one more with 503', async () => {
        // The shared r-mcp session is open; two more reach the bound of 3.
        const more = [await httpClient(mcpKey), await httpClient(mcpKey)];
        try {
          const refused = await rawRequest(httpServer.url, tls.certPem, {
            headers: { ...JSON_HEADERS, authorization: `Bearer ${mcpKey}` },
            body: INITIALIZE,
          });
          expect(refused.status).toBe(503);
          expect(refused.headers['retry-after']).toBe('30');
        } finally {
          for (const { transport, client } of more) {
            await transport.terminateSession();
            await client.close();
          }
        }
        const again = await httpClient(mcpKey);
        expect(again.transport.sessionId).toBeDefined();
        await again.transport.terminateSession();
        await again.client.close();
      });

      // Last: clients trusting only the first certificate cannot open new connections after it.
      it('serves a new certificate after SIGHUP, still TLS 1.3 only', async () => {
        const next = await createTlsFixture();
        try {
          writeFileSync(tls.certPath, readFileSync(next.certPath));
          writeFileSync(tls.keyPath, readFileSync(next.keyPath));
          httpServer.child.kill('SIGHUP');
          await eventually(() => httpServer.output().includes('TLS certificate reloaded'), 'the reload');
          const served = await handshake(httpServer.url, [next.certPem], 'TLSv1.3');
          expect(served).toBe(`TLSv1.3 ${new X509Certificate(next.certPem).fingerprint256}`);
          expect(await handshake(httpServer.url, [next.certPem], 'TLSv1.2')).toMatch(/^refused: /);
        } finally {
          rmSync(next.dir, { recursive: true, force: true });
        }
      });
    });
  });
});
