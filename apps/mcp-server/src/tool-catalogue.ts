import { OPERATIONS, OperationId } from '@certlane/api-client';
import { isTextMedia } from './tool-results';
import { ToolSet, toolSetOf } from './tool-sets';

type JsonSchema = Record<string, unknown>;

interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, JsonSchema> };
}

interface OpenApiOperation {
  operationId: string;
  summary?: string;
  description?: string;
  parameters?: { name: string; in: string; required?: boolean; schema: JsonSchema }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
}

/** How a tool's answer reaches the assistant: JSON text, a text file (PEM, NDJSON, YAML) or a blob. */
export type AnswerKind = 'json' | 'text' | 'binary';

/** The kind of an operation's answers: JSON only, else text when every file form is text, else binary. */
export function answerKindOf(produces: readonly string[]): AnswerKind {
  const files = produces.filter((media) => media !== 'application/json');
  if (files.length === 0) return 'json';
  return files.every(isTextMedia) ? 'text' : 'binary';
}

const ANSWER_NOTE: Record<AnswerKind, string> = {
  json: '',
  text: ' Answers the file as text (NDJSON cut at a whole line when too long).',
  binary: ' Answers the file as a base64 resource blob.',
};

/** One MCP tool: an operation of the API description. */
export interface CatalogueTool {
  name: OperationId;
  set: ToolSet;
  answer: AnswerKind;
  description: string;
  inputSchema: JsonSchema;
  destructive: boolean;
  readOnly: boolean;
}

const DESTRUCTIVE_VERBS = new Set(['revoke', 'retire', 'bulk', 'delete']);

/**
 * Operations whose effect cannot be undone: they need `confirm: true` (issue 17). The verbs are
 * whole words of the camelCase id, so `listRetiredAgents` (a read) is not one.
 */
export function isDestructive(operationId: string, method: string): boolean {
  const words = operationId.split(/(?=[A-Z])/).map((word) => word.toLowerCase());
  return method === 'DELETE' || words.some((word) => DESTRUCTIVE_VERBS.has(word));
}

const REF = '#/components/schemas/';

/**
 * The tools of the MCP server, one per operation of the API description, in its set (main or
 * EST): the input schema holds the path parameters, the query parameters and `body`,
 * self-contained (`$defs` with every schema it reaches). File and stream operations answer text
 * or a base64 blob (see answerKindOf).
 */
export function toolCatalogue(document: OpenApiDocument): CatalogueTool[] {
  const operations = new Map<string, { method: string; operation: OpenApiOperation }>();
  for (const item of Object.values(document.paths))
    for (const [method, operation] of Object.entries(item))
      operations.set(operation.operationId, { method: method.toUpperCase(), operation });
  return (Object.keys(OPERATIONS) as OperationId[]).map((id) => {
    const found = operations.get(id);
    if (!found) throw new Error(`the operation ${id} is not in the API description`);
    const { method, operation } = found;
    const answer = answerKindOf(OPERATIONS[id].produces);
    const destructive = isDestructive(id, method);
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const parameter of operation.parameters ?? []) {
      properties[parameter.name] = { ...parameter.schema, description: `${parameter.in} parameter` };
      if (parameter.required) required.push(parameter.name);
    }
    const body = operation.requestBody?.content['application/json']?.schema;
    if (body) {
      properties.body = body;
      if (operation.requestBody?.required) required.push('body');
    }
    if (destructive) {
      properties.confirm = { const: true, description: 'Must be true: this operation cannot be undone.' };
      required.push('confirm');
    }
    const schema: JsonSchema = { type: 'object', properties, required, additionalProperties: false };
    return {
      name: id,
      set: toolSetOf(OPERATIONS[id]),
      answer,
      description: `${operation.summary ?? id}. ${operation.description ?? ''}`.trim() + ANSWER_NOTE[answer],
      inputSchema: withDefinitions(schema, document.components.schemas),
      destructive,
      readOnly: method === 'GET',
    };
  });
}

/** The schema with `$defs` holding every component it reaches, its references pointing there. */
function withDefinitions(schema: JsonSchema, components: Record<string, JsonSchema>): JsonSchema {
  const reached = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(REF)) {
        const name = value.slice(REF.length);
        if (!reached.has(name)) {
          reached.add(name);
          visit(components[name]);
        }
      } else visit(value);
    }
  };
  visit(schema);
  const defs = Object.fromEntries([...reached].sort().map((name) => [name, components[name]]));
  const text = JSON.stringify(reached.size > 0 ? { ...schema, $defs: defs } : schema);
  return JSON.parse(text.replaceAll(`"${REF}`, '"#/$defs/')) as JsonSchema;
}
