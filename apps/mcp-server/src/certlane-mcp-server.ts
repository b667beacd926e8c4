import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ApiClient, ApiError, OPERATIONS, OperationId } from '@certlane/api-client';
import { CatalogueTool } from './tool-catalogue';

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

const text = (value: unknown, isError = false): ToolResult => ({
  content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }],
  ...(isError ? { isError: true } : {}),
});

/**
 * The MCP server (issue 17): lists one tool per operation of the API description and calls the
 * API for each with the typed client, as the caller's API key (role r-mcp). Input is checked
 * against the tool's schema before any request; API errors come back as tool errors with the
 * API's code and message.
 */
export function createCertlaneMcpServer(
  api: ApiClient,
  tools: readonly CatalogueTool[],
  version: string,
): Server {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const byName = new Map(
    tools.map((tool) => [tool.name as string, { tool, validate: ajv.compile(tool.inputSchema) }]),
  );
  const server = new Server({ name: 'certlane', version }, { capabilities: { tools: {} } });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as { type: 'object' },
      annotations: { destructiveHint: tool.destructive, readOnlyHint: tool.readOnly },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<ToolResult> => {
    const entry = byName.get(request.params.name);
    if (!entry) return text(`no tool ${request.params.name}`, true);
    const args = request.params.arguments ?? {};
    if (!entry.validate(args)) {
      const problems = (entry.validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
      return text(`invalid arguments: ${problems.join('; ')}`, true);
    }
    const operation = OPERATIONS[entry.tool.name];
    const pick = (names: readonly string[]) =>
      Object.fromEntries(names.filter((name) => args[name] !== undefined).map((name) => [name, args[name]]));
    try {
      const reply = await api.call(
        entry.tool.name as OperationId,
        {
          path: pick(operation.pathParams),
          query: pick(operation.queryParams),
          ...(args.body !== undefined ? { body: args.body } : {}),
        } as never,
      );
      return text(reply === undefined ? { ok: true } : reply);
    } catch (error) {
      if (error instanceof ApiError)
        return text({ status: error.status, code: error.code, message: error.message }, true);
      throw error;
    }
  });
  return server;
}
