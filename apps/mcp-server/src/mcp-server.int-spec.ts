import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ApiClient, HttpsJsonClient, OPERATIONS } from '@certlane/api-client';
import { startTestSystem, TestSystem } from '@certlane/testing';
import { toolCatalogue } from './tool-catalogue';

const MAIN = join(__dirname, '../../../dist/apps/mcp-server/src/main.js');
const document = JSON.parse(readFileSync(join(__dirname, '../../../docs/openapi.json'), 'utf8'));

type TextResult = { content: { type: string; text: string }[]; isError?: boolean };
const textOf = (result: unknown) => (result as TextResult).content[0].text;

describe('the MCP server', () => {
  it('has one tool per JSON operation of the API description, and no tool without one', () => {
    const tools = toolCatalogue(document).map((tool) => tool.name as string);
    const jsonOperations = Object.entries(OPERATIONS)
      .filter(([, op]) => (op.produces as readonly string[]).every((media) => media === 'application/json'))
      .map(([id]) => id);
    expect(tools.sort()).toEqual(jsonOperations.sort());
    expect(tools.length).toBeGreaterThanOrEqual(121);
  });

  describe('over stdio, against a running system, as an r-mcp key', () => {
    let system: TestSystem;
    let client: Client;
    let dir: string;

    beforeAll(async () => {
      system = await startTestSystem('mcp', ['auth', 'issuance', 'api-gateway']);
      const gateway = system.services['api-gateway'].url;
      dir = mkdtempSync(join(tmpdir(), 'mcp-'));
      writeFileSync(join(dir, 'ca.pem'), system.ca);
      const admin = new HttpsJsonClient({
        baseUrl: gateway,
        apiKey: system.env.SERVICE_AUTH_SECRET!,
        caBundle: system.ca,
      });
      const minted = await new ApiClient(admin).call('createApiKey', {
        body: { name: 'mcp', role_ids: ['r-mcp'] },
      });
      admin.close();
      writeFileSync(join(dir, 'key'), (minted as { key: string }).key, { mode: 0o600 });
      client = new Client({ name: 'certlane-test', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [MAIN],
          env: {
            PATH: process.env.PATH ?? '',
            SERVICE_SERVER_URL: gateway,
            SERVICE_API_KEY_FILE: join(dir, 'key'),
            SERVICE_SERVER_CA_BUNDLE_PATH: join(dir, 'ca.pem'),
          },
        }),
      );
    }, 60_000);

    afterAll(async () => {
      await client?.close();
      await system?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('lists the tools with their input schemas and destructive annotations', async () => {
      const { tools } = await client.listTools();
      expect(tools.length).toBe(toolCatalogue(document).length);
      const revoke = tools.find((tool) => tool.name === 'revokeManagedCertificate');
      expect(revoke?.annotations?.destructiveHint).toBe(true);
      expect(revoke?.inputSchema.required).toEqual(expect.arrayContaining(['id', 'confirm']));
      expect(tools.find((tool) => tool.name === 'listRenewalPolicies')?.annotations?.readOnlyHint).toBe(true);
    });

    it('calls a write tool and a read tool through the API', async () => {
      const created = await client.callTool({
        name: 'createRenewalPolicy',
        arguments: { body: { name: 'from-mcp', max_retries: 1 } },
      });
      expect((created as TextResult).isError).toBeUndefined();
      const policy = JSON.parse(textOf(created)) as { id: string; name: string };
      expect(policy.name).toBe('from-mcp');
      const read = await client.callTool({ name: 'getRenewalPolicy', arguments: { id: policy.id } });
      expect(JSON.parse(textOf(read))).toMatchObject({ id: policy.id, name: 'from-mcp' });
    });

    it('maps a refusal of the API (403) to a tool error with the code', async () => {
      const refused = await client.callTool({ name: 'createApiKey', arguments: { body: { name: 'nope' } } });
      expect((refused as TextResult).isError).toBe(true);
      expect(JSON.parse(textOf(refused))).toMatchObject({ status: 403, code: 'forbidden' });
    });

    it('refuses bad input and a destructive call without confirm before any request', async () => {
      const bad = await client.callTool({
        name: 'createRenewalPolicy',
        arguments: { body: { max_retries: 'x' } },
      });
      expect((bad as TextResult).isError).toBe(true);
      expect(textOf(bad)).toMatch(/^invalid arguments: /);
      const unconfirmed = await client.callTool({
        name: 'revokeManagedCertificate',
        arguments: { id: 'c-1', body: { reason: 'keyCompromise' } },
      });
      expect((unconfirmed as TextResult).isError).toBe(true);
      expect(textOf(unconfirmed)).toMatch(/confirm/);
    });
  });
});
