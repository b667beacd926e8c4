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
  /** Cannot be undone: the call needs `confirm: true` (issue 17). */
  confirm: boolean;
  /** MCP `destructiveHint`: it may change or remove what exists (not only add). */
  destructive: boolean;
  readOnly: boolean;
  /** MCP `idempotentHint`: PUT and DELETE, repeated with the same arguments, change nothing more. */
  idempotent: boolean;
  /** Fields of the answer holding a secret the API shows once (see secretResult). */
  secrets: readonly string[];
}

/** The answers that carry a secret shown this once, and its fields. */
export const SECRETS_SHOWN_ONCE: Partial<Record<OperationId, readonly string[]>> = {
  bootstrap: ['key'],
  createApiKey: ['key'],
  rotateApiKey: ['key'],
  registerAgent: ['api_key'],
  acmeCreateEabKey: ['hmac_key'],
  estCreateKeyEncryptionKey: ['secret_key'],
};

const SECRET_NOTE =
  ' The secret in its answer is shown once: it is given to the user (content for audience "user") and replaced by a placeholder in what the model reads.';

const IRREVERSIBLE_VERBS = new Set(['revoke', 'retire', 'bulk', 'delete', 'deactivate', 'rotate', 'cleanup']);

/** Verbs of operations that only add (a record, a test run, an export, a renewal as a new version). */
const ADDITIVE_VERBS = new Set([
  'create',
  'register',
  'grant',
  'install',
  'bootstrap',
  'breakglass',
  'heartbeat',
  'push',
  'submit',
  'report',
  'renew',
  'claim',
  'requeue',
  'acknowledge',
  'mark',
  'send',
  'test',
  'run',
  'trigger',
  'evaluate',
  'export',
  'release',
]);

const words = (operationId: string) => operationId.split(/(?=[A-Z])/).map((word) => word.toLowerCase());

/**
 * Operations whose effect cannot be undone: they need `confirm: true` (issue 17). The verbs are
 * whole words of the camelCase id, so `listRetiredAgents` (a read) is not one.
 */
export function isDestructive(operationId: string, method: string): boolean {
  return method === 'DELETE' || words(operationId).some((word) => IRREVERSIBLE_VERBS.has(word));
}

/**
 * The MCP tool annotations of an operation. The specification's `destructiveHint` is true for a
 * tool that "may perform destructive updates" and false only when it "performs only additive
 * updates" (its default is true), so an update (PUT, a state change such as approve or cancel)
 * is destructive even when it needs no `confirm`.
 */
export function toolHints(
  operationId: string,
  method: string,
): { readOnly: boolean; destructive: boolean; idempotent: boolean; confirm: boolean } {
  const readOnly = method === 'GET';
  const confirm = isDestructive(operationId, method);
  const additive = method === 'POST' && words(operationId).some((word) => ADDITIVE_VERBS.has(word));
  return {
    readOnly,
    confirm,
    destructive: !readOnly && (confirm || !additive),
    idempotent: method === 'PUT' || method === 'DELETE',
  };
}

const REF = '#/components/schemas/';

/**
 * The tools of the MCP server, one per operation of the API description, in its set (main or
 * EST): the input schema holds the path parameters, the query parameters and `body`,
 * self-contained (every component it reaches inlined, no `$ref`). File and stream operations answer text
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
    const hints = toolHints(id, method);
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
    if (hints.confirm) {
      properties.confirm = { const: true, description: 'Must be true: this operation cannot be undone.' };
      required.push('confirm');
    }
    const schema: JsonSchema = { type: 'object', properties, required, additionalProperties: false };
    return {
      name: id,
      set: toolSetOf(OPERATIONS[id]),
      answer,
      description:
        `${operation.summary ?? id}. ${operation.description ?? ''}`.trim() +
        ANSWER_NOTE[answer] +
        (SECRETS_SHOWN_ONCE[id] ? SECRET_NOTE : ''),
      inputSchema: inlined(schema, document.components.schemas),
      ...hints,
      secrets: SECRETS_SHOWN_ONCE[id] ?? [],
    };
  });
}

/**
 * The schema with every component reference replaced by the component itself, so that no `$ref`
 * or `$defs` is left: several MCP clients (and the model APIs behind them) take a tool's input
 * schema as it is and cannot resolve references. The components hold no cycle (a cycle throws).
 */
function inlined(schema: JsonSchema, components: Record<string, JsonSchema>): JsonSchema {
  const expand = (node: unknown, path: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => expand(item, path));
    if (!node || typeof node !== 'object') return node;
    const { $ref, ...rest } = node as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    if (typeof $ref === 'string') {
      if (!$ref.startsWith(REF)) throw new Error(`the reference ${$ref} is not to a component`);
      const name = $ref.slice(REF.length);
      if (path.includes(name)) throw new Error(`the component ${name} refers to itself`);
      const component = components[name];
      if (!component) throw new Error(`the component ${name} is not in the API description`);
      Object.assign(out, expand(component, [...path, name]));
    }
    for (const [key, value] of Object.entries(rest)) out[key] = expand(value, path);
    return out;
  };
  return expand(schema, []) as JsonSchema;
}
