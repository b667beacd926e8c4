import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ApiClient, ApiError } from '@certlane/api-client';
import { createCertlaneMcpServer, KeyRefusal } from './certlane-mcp-server';
import { CompiledTools } from './compiled-tools';
import { SECRETS_SHOWN_ONCE, toolCatalogue } from './tool-catalogue';
import { SECRET_PLACEHOLDER } from './tool-results';

const document = JSON.parse(readFileSync(join(__dirname, '../../../docs/openapi.json'), 'utf8'));
const tools = new CompiledTools(toolCatalogue(document), ['main', 'est']);

type Call = jest.Mock;
const fakeApi = (call: Call) => ({ call, download: jest.fn() }) as unknown as ApiClient;
type Content = { type: string; text: string; annotations?: { audience?: string[] } };
type Result = { content: Content[]; isError?: boolean };

/** The server as a third-party client sees it: the SDK's own Client over an in-memory pair. */
async function connected(api: ApiClient, refusal?: KeyRefusal): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createCertlaneMcpServer(api, tools, 'test', refusal).connect(serverSide);
  const client = new Client({ name: 'spec', version: '1' });
  await client.connect(clientSide);
  return client;
}

describe('the MCP server as a client sees it', () => {
  it('lists input schemas without $ref, each valid for a draft-07 validator as well as 2020-12', async () => {
    const client = await connected(fakeApi(jest.fn()));
    const { tools: listed } = await client.listTools();
    // Clients that hand the schema to a model API as it is cannot resolve references.
    const withRefs = listed.filter((tool) => /"\$ref"|"\$defs"/.test(JSON.stringify(tool.inputSchema)));
    expect(withRefs.map((tool) => tool.name)).toEqual([]);
    const draft07 = new Ajv({ strict: false, validateFormats: false });
    for (const tool of listed) expect(() => draft07.compile(tool.inputSchema)).not.toThrow();
    const update = listed.find((tool) => tool.name === 'updateCertificate')!;
    expect(update.inputSchema.properties?.body).toMatchObject({
      type: 'object',
      properties: { owner_id: { type: ['string', 'null'] } },
    });
    await client.close();
  });

  it('annotates as the MCP specification means: destructive unless only additive, PUT and DELETE idempotent', async () => {
    const client = await connected(fakeApi(jest.fn()));
    const { tools: listed } = await client.listTools();
    const hints = (name: string) => {
      const tool = listed.find((candidate) => candidate.name === name)!;
      const { readOnlyHint, destructiveHint, idempotentHint } = tool.annotations ?? {};
      return {
        readOnlyHint,
        destructiveHint,
        idempotentHint,
        confirm: tool.inputSchema.required?.includes('confirm'),
      };
    };
    const [read, add, update, remove] = [
      { readOnlyHint: true, destructiveHint: false, idempotentHint: false, confirm: false },
      { readOnlyHint: false, destructiveHint: false, idempotentHint: false, confirm: false },
      { readOnlyHint: false, destructiveHint: true, idempotentHint: true, confirm: false },
      { readOnlyHint: false, destructiveHint: true, idempotentHint: true, confirm: true },
    ];
    expect(hints('listRetiredAgents')).toEqual(read);
    expect(hints('createRenewalPolicy')).toEqual(add);
    expect(hints('updateCertificate')).toEqual(update);
    expect(hints('deleteTeam')).toEqual(remove);
    // A state change is not additive, though it needs no confirm.
    expect(hints('cancelJob')).toMatchObject({ destructiveHint: true, confirm: false });
    // Cannot be undone: the deactivated ACME account, the rotated key's old secret, the demo cleanup.
    for (const name of ['acmeDeactivateAccount', 'rotateApiKey', 'cleanupDemoResidual'])
      expect(hints(name)).toMatchObject({ destructiveHint: true, confirm: true });
    await client.close();
  });

  it('refuses an empty, . or .. path parameter before any request (the URL would resolve it to another route)', async () => {
    const call: Call = jest.fn(async () => ({}));
    const client = await connected(fakeApi(call));
    for (const id of ['..', '.', '']) {
      const answer = (await client.callTool({ name: 'updateTeam', arguments: { id, body: {} } })) as Result;
      expect(answer.isError).toBe(true);
      expect(answer.content[0].text).toMatch(/invalid arguments: \/id/);
    }
    expect(call).not.toHaveBeenCalled();
    await client.close();
  });

  it('answers an API error with its code, message and details (which field), as a tool error', async () => {
    const call: Call = jest.fn(async () => {
      throw new ApiError({
        status: 400,
        code: 'validation_failed',
        reason: 'owner is unknown',
        details: { fields: { owner: ['unknown owner'] } } as never,
        requestId: 'req-1',
        request: 'PUT /api/v1/teams/t-1',
      });
    });
    const client = await connected(fakeApi(call));
    const answer = (await client.callTool({
      name: 'updateTeam',
      arguments: { id: 't-1', body: {} },
    })) as Result;
    expect(answer.isError).toBe(true);
    expect(JSON.parse(answer.content[0].text)).toEqual({
      status: 400,
      code: 'validation_failed',
      message: 'owner is unknown',
      details: { fields: { owner: ['unknown owner'] } },
      request_id: 'req-1',
    });
    await client.close();
  });

  it('gives a secret shown once to the user, not the model', async () => {
    const key = 'k'.repeat(40);
    const call: Call = jest.fn(async () => ({ id: 'key-1', name: 'ci', key }));
    const client = await connected(fakeApi(call));
    const answer = (await client.callTool({
      name: 'createApiKey',
      arguments: { body: { name: 'ci' } },
    })) as Result;
    expect(answer.isError).toBeUndefined();
    const forModel = answer.content.filter(
      (block) => !block.annotations?.audience?.every((a) => a === 'user'),
    );
    expect(forModel.map((block) => block.text).join('')).not.toContain(key);
    expect(JSON.parse(forModel[0].text)).toEqual({ id: 'key-1', name: 'ci', key: SECRET_PLACEHOLDER });
    const forUser = answer.content.find((block) => block.annotations?.audience?.[0] === 'user');
    expect(forUser?.text).toContain(`key: ${key}`);
    await client.close();
  });

  it('names secret fields that the answers of the API description hold', () => {
    const responses = new Map<string, string>();
    for (const item of Object.values(document.paths) as Record<string, { operationId: string }>[])
      for (const operation of Object.values(item))
        responses.set(operation.operationId, JSON.stringify(operation));
    const schemas = document.components.schemas as Record<string, { properties?: Record<string, unknown> }>;
    for (const [id, fields] of Object.entries(SECRETS_SHOWN_ONCE)) {
      const ref = /"\$ref":"#\/components\/schemas\/(\w+)"/.exec(
        JSON.stringify(
          JSON.parse(responses.get(id)!).responses['200'] ?? JSON.parse(responses.get(id)!).responses['201'],
        ),
      )![1];
      for (const field of fields!)
        expect([id, Object.keys(schemas[ref].properties ?? {})]).toEqual([
          id,
          expect.arrayContaining([field]),
        ]);
    }
  });

  it('on a 401 retries once with the key the refusal hands over (a rotated key file), else answers the 401', async () => {
    const refused = new ApiError({ status: 401, code: 'unauthenticated', reason: 'invalid API key' });
    const oldCall: Call = jest.fn(async () => {
      throw refused;
    });
    const newCall: Call = jest.fn(async () => ({ items: [] }));
    const onUnauthorized = jest.fn().mockReturnValueOnce(fakeApi(newCall)).mockReturnValue(undefined);
    const client = await connected(fakeApi(oldCall), { onUnauthorized });
    const first = (await client.callTool({ name: 'listRenewalPolicies', arguments: {} })) as Result;
    expect(first.isError).toBeUndefined();
    expect(JSON.parse(first.content[0].text)).toEqual({ items: [] });
    await client.callTool({ name: 'listRenewalPolicies', arguments: {} });
    expect([oldCall.mock.calls.length, newCall.mock.calls.length]).toEqual([1, 2]);
    newCall.mockImplementation(async () => {
      throw refused;
    });
    const after = (await client.callTool({ name: 'listRenewalPolicies', arguments: {} })) as Result;
    expect(after.isError).toBe(true);
    expect(JSON.parse(after.content[0].text)).toMatchObject({ status: 401, code: 'unauthenticated' });
    expect(onUnauthorized).toHaveBeenCalledTimes(2);
    await client.close();
  });
});
