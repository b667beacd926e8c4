#!/usr/bin/env node
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ApiClient, HttpsJsonClient } from '@certlane/api-client';
import { createCertlaneMcpServer } from './certlane-mcp-server';
import { CompiledTools } from './compiled-tools';
import { serveMcpOverHttps } from './http-transport';
import { mcpConfig, rereadApiKey } from './mcp-config';
import { toolCatalogue } from './tool-catalogue';

const VERSION = '2.0.0';

/** The API description as built (dist/openapi/) or, from a checkout, as committed (docs/). */
function apiDescription(): Parameters<typeof toolCatalogue>[0] {
  const file = [
    join(__dirname, '../../../openapi/openapi.json'),
    join(__dirname, '../../../docs/openapi.json'),
  ].find((candidate) => existsSync(candidate));
  if (!file) throw new Error('the API description (openapi.json) is missing: run npm run build');
  return JSON.parse(readFileSync(file, 'utf8')) as Parameters<typeof toolCatalogue>[0];
}

const log = (line: string) => process.stderr.write(`certlane-mcp-server: ${line}\n`);

async function main(): Promise<void> {
  const config = mcpConfig(process.env);
  const tools = new CompiledTools(toolCatalogue(apiDescription()), config.toolSets);
  const connect = (apiKey: string) => {
    const http = new HttpsJsonClient({
      baseUrl: config.serverUrl,
      apiKey,
      ...(config.caBundle ? { caBundle: config.caBundle } : {}),
      userAgent: 'certlane-mcp-server',
    });
    return { api: new ApiClient(http), close: () => http.close() };
  };
  if (config.transport === 'stdio') {
    let key = config.apiKey!;
    let connection = connect(key);
    // A key rotated since the start is read again from SERVICE_API_KEY_FILE when the API refuses
    // the one in use, so the assistant need not be restarted.
    const onUnauthorized = () => {
      const next = rereadApiKey(process.env);
      if (next === undefined || next === key) return undefined;
      // Calls still in flight on the old key finish (with their 401) before its sockets close.
      const old = connection;
      setTimeout(() => old.close(), 60_000).unref();
      key = next;
      connection = connect(key);
      log('the API refused the key: using the one now in SERVICE_API_KEY_FILE');
      return connection.api;
    };
    const server = createCertlaneMcpServer(connection.api, tools, VERSION, { onUnauthorized });
    // A line that is not a JSON-RPC message is dropped by the SDK; say so where the user looks.
    server.onerror = (error) => log(`ignored input: ${error.message}`);
    await server.connect(new StdioServerTransport());
    return;
  }
  const http = config.http!;
  const readTls = () => ({ cert: readFileSync(http.certPath), key: readFileSync(http.keyPath) });
  const running = await serveMcpOverHttps(http, readTls(), {
    connect,
    serverFor: (api, refused) =>
      createCertlaneMcpServer(api, tools, VERSION, {
        onUnauthorized: () => {
          refused();
          return undefined;
        },
      }),
    log,
  });
  log(`listening on https://${http.host}:${running.port}/mcp (${tools.listing.length} tools)`);
  process.on('SIGHUP', () => {
    running.reloadTls(readTls());
    log('TLS certificate reloaded');
  });
  const stop = () => void running.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  log(error instanceof Error ? error.message : String(error));
  process.exit(78);
});
