import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import {
  ApiClient,
  ApiError,
  ApiNetworkError,
  expandPath,
  OPERATIONS,
  OperationId,
  queryString,
} from '@certlane/api-client';
import { CompiledTools } from './compiled-tools';
import { fileResult, MAX_FILE_BYTES, textResult, ToolResult } from './tool-results';

/**
 * One MCP server session (issue 17): lists the tools of the chosen sets and calls the API for
 * each with the typed client, as the API key `api` holds. Input is checked against the tool's
 * schema before any request; API errors come back as tool errors with the API's code and message,
 * and so does an API that could not be reached, so that the model sees it (MCP tools, "Error
 * Handling"). An unknown tool or a cursor are protocol errors (-32602): the list is one page.
 */
export function createCertlaneMcpServer(api: ApiClient, tools: CompiledTools, version: string): Server {
  const server = new Server({ name: 'certlane', version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    if (request.params?.cursor !== undefined)
      throw new McpError(ErrorCode.InvalidParams, 'invalid cursor: the tool list is a single page');
    return { tools: tools.listing };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const entry = tools.get(request.params.name);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const args = request.params.arguments ?? {};
    if (!entry.validate(args)) {
      const problems = (entry.validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
      return textResult(`invalid arguments: ${problems.join('; ')}`, true);
    }
    return callOperation(api, entry.tool.name, entry.tool.answer === 'json', args);
  });
  return server;
}

async function callOperation(
  api: ApiClient,
  id: OperationId,
  json: boolean,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  const operation = OPERATIONS[id];
  const pick = (names: readonly string[]) =>
    Object.fromEntries(names.filter((name) => args[name] !== undefined).map((name) => [name, args[name]]));
  const input = {
    path: pick(operation.pathParams) as Record<string, string>,
    query: pick(operation.queryParams),
    ...(args.body !== undefined ? { body: args.body } : {}),
  };
  try {
    if (json) {
      const reply = await api.call(id, input as never);
      return textResult(reply === undefined ? { ok: true } : reply);
    }
    const answer = await api.download(id, input as never, { maxBytes: MAX_FILE_BYTES });
    const uri = `certlane:${expandPath(operation.path, input.path)}${queryString(input.query as never)}`;
    return fileResult(answer, uri);
  } catch (error) {
    if (error instanceof ApiError)
      return textResult({ status: error.status, code: error.code, message: error.message }, true);
    if (error instanceof ApiNetworkError)
      return textResult(
        { code: 'api_unreachable', message: `the Certlane API gave no answer: ${error.message}` },
        true,
      );
    throw error;
  }
}
