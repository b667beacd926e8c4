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
  queryString,
} from '@certlane/api-client';
import { CompiledTools } from './compiled-tools';
import { CatalogueTool } from './tool-catalogue';
import { fileResult, MAX_FILE_BYTES, secretResult, textResult, ToolResult } from './tool-results';

/** How a server session reacts when the API refuses its key (401). */
export interface KeyRefusal {
  /**
   * A client holding a newer key to retry the call with once (stdio: the key file was rotated),
   * or undefined: the call answers the 401 as a tool error (HTTP: the session is then closed).
   */
  onUnauthorized(): ApiClient | undefined;
}

/**
 * One MCP server session (issue 17): lists the tools of the chosen sets and calls the API for
 * each with the typed client, as the API key `api` holds. Input is checked against the tool's
 * schema before any request; API errors come back as tool errors with the API's code, message and
 * details, and so does an API that could not be reached, so that the model sees it (MCP tools,
 * "Error Handling"). An unknown tool or a cursor are protocol errors (-32602): the list is one page.
 */
export function createCertlaneMcpServer(
  api: ApiClient,
  tools: CompiledTools,
  version: string,
  refusal?: KeyRefusal,
): Server {
  let current = api;
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
    const badPath = OPERATIONS[entry.tool.name].pathParams.find((name) => !isPathSegment(args[name]));
    if (badPath !== undefined)
      return textResult(`invalid arguments: /${badPath} must be a non-empty name other than . and ..`, true);
    try {
      return await callOperation(current, entry.tool, args);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401 && refusal)) return errorResult(error);
      const renewed = refusal.onUnauthorized();
      if (!renewed) return errorResult(error);
      current = renewed;
      // A 401 is answered before anything is done, so the call is made again with the new key.
      return callOperation(current, entry.tool, args).catch(errorResult);
    }
  });
  return server;
}

/**
 * A path parameter is one segment: an empty one cannot be sent, and `.` or `..` would be resolved
 * away by the URL (`/api/v1/teams/..` is `/api/v1/`), calling another route than the tool's.
 */
const isPathSegment = (value: unknown): boolean =>
  typeof value === 'string' && value !== '' && value !== '.' && value !== '..';

async function callOperation(
  api: ApiClient,
  tool: CatalogueTool,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  const id = tool.name;
  const operation = OPERATIONS[id];
  const pick = (names: readonly string[]) =>
    Object.fromEntries(names.filter((name) => args[name] !== undefined).map((name) => [name, args[name]]));
  const input = {
    path: pick(operation.pathParams) as Record<string, string>,
    query: pick(operation.queryParams),
    ...(args.body !== undefined ? { body: args.body } : {}),
  };
  if (tool.answer === 'json') {
    const reply = await api.call(id, input as never);
    if (reply === undefined) return textResult({ ok: true });
    return tool.secrets.length > 0 ? secretResult(reply, tool.secrets) : textResult(reply);
  }
  const answer = await api.download(id, input as never, { maxBytes: MAX_FILE_BYTES });
  const uri = `certlane:${expandPath(operation.path, input.path)}${queryString(input.query as never)}`;
  return fileResult(answer, uri);
}

/** A failed call as a tool error the model sees: the API's status, code, message and details. */
function errorResult(error: unknown): ToolResult {
  if (error instanceof ApiError)
    return textResult(
      {
        status: error.status,
        code: error.code,
        message: error.reason,
        ...(error.details ? { details: error.details } : {}),
        ...(error.requestId ? { request_id: error.requestId } : {}),
      },
      true,
    );
  if (error instanceof ApiNetworkError)
    return textResult(
      { code: 'api_unreachable', message: `the Certlane API gave no answer: ${error.message}` },
      true,
    );
  throw error;
}
