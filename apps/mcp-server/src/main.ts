#!/usr/bin/env node
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ApiClient, HttpsJsonClient } from '@certlane/api-client';
import { createCertlaneMcpServer } from './certlane-mcp-server';
import { toolCatalogue } from './tool-catalogue';

/** The API description as built (dist/openapi/) or, from a checkout, as committed (docs/). */
function apiDescription(): Parameters<typeof toolCatalogue>[0] {
  const file = [
    join(__dirname, '../../../openapi/openapi.json'),
    join(__dirname, '../../../docs/openapi.json'),
  ].find((candidate) => existsSync(candidate));
  if (!file) throw new Error('the API description (openapi.json) is missing: run npm run build');
  return JSON.parse(readFileSync(file, 'utf8')) as Parameters<typeof toolCatalogue>[0];
}

/** The key from SERVICE_API_KEY_FILE or SERVICE_API_KEY: never from the command line. */
function apiKey(env: NodeJS.ProcessEnv): string {
  const file = env.SERVICE_API_KEY_FILE;
  const key = file ? readFileSync(file, 'utf8').trim() : env.SERVICE_API_KEY;
  if (!key) throw new Error('set SERVICE_API_KEY_FILE or SERVICE_API_KEY (an API key with the r-mcp role)');
  return key;
}

async function main(): Promise<void> {
  const env = process.env;
  const baseUrl = env.SERVICE_SERVER_URL;
  if (!baseUrl) throw new Error('set SERVICE_SERVER_URL (https://host:port of the Certlane API)');
  const caPath = env.SERVICE_SERVER_CA_BUNDLE_PATH;
  const http = new HttpsJsonClient({
    baseUrl,
    apiKey: apiKey(env),
    ...(caPath ? { caBundle: readFileSync(caPath, 'utf8') } : {}),
    userAgent: 'certlane-mcp-server',
  });
  const document = apiDescription();
  const server = createCertlaneMcpServer(new ApiClient(http), toolCatalogue(document), '2.0.0');
  await server.connect(new StdioServerTransport());
}

main().catch((error: unknown) => {
  process.stderr.write(`certlane-mcp-server: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(78);
});
