import { OPERATIONS, OperationId } from '@certlane/api-client';

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

/** One MCP tool: an operation of the API description. */
export interface CatalogueTool {
  name: OperationId;
  description: string;
  inputSchema: JsonSchema;
  destructive: boolean;
  readOnly: boolean;
}

/** Operations whose effect cannot be undone: they need `confirm: true` (issue 17). */
export function isDestructive(operationId: string, method: string): boolean {
  return method === 'DELETE' || /revoke|retire|bulk|delete/i.test(operationId);
}

const REF = '#/components/schemas/';

/**
 * The tools of the MCP server, one per JSON operation of the API description (file and stream
 * operations have no tool yet): the input schema holds the path parameters, the query
 * parameters and `body`, self-contained (`$defs` with every schema it reaches).
 */
export function toolCatalogue(document: OpenApiDocument): CatalogueTool[] {
  const operations = new Map<string, { method: string; operation: OpenApiOperation }>();
  for (const item of Object.values(document.paths))
    for (const [method, operation] of Object.entries(item))
      operations.set(operation.operationId, { method: method.toUpperCase(), operation });
  return (Object.keys(OPERATIONS) as OperationId[])
    .filter((id) =>
      (OPERATIONS[id].produces as readonly string[]).every((media) => media === 'application/json'),
    )
    .map((id) => {
      const found = operations.get(id);
      if (!found) throw new Error(`the operation ${id} is not in the API description`);
      const { method, operation } = found;
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
        description: `${operation.summary ?? id}. ${operation.description ?? ''}`.trim(),
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
