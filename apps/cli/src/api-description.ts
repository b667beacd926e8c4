import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type JsonSchema = {
  type?: string | string[];
  enum?: readonly unknown[];
  items?: JsonSchema;
  maxItems?: number;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
  $ref?: string;
  allOf?: JsonSchema[];
};

export interface ParameterObject {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema: JsonSchema;
}

export interface OperationObject {
  operationId: string;
  summary?: string;
  description?: string;
  parameters?: ParameterObject[];
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
}

export interface ApiDescription {
  info: { version: string };
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, JsonSchema> };
}

/** The API description as built (dist/openapi/) or, from a checkout, as committed (docs/). */
export function loadApiDescription(): ApiDescription {
  const file = [
    join(__dirname, '../../../openapi/openapi.json'),
    join(__dirname, '../../../docs/openapi.json'),
  ].find((candidate) => existsSync(candidate));
  if (!file) throw new Error('the API description (openapi.json) is missing: run npm run build');
  return JSON.parse(readFileSync(file, 'utf8')) as ApiDescription;
}

/** Every operation of the description by its operationId. */
export function operationsById(document: ApiDescription): Map<string, OperationObject> {
  const byId = new Map<string, OperationObject>();
  for (const item of Object.values(document.paths))
    for (const operation of Object.values(item)) byId.set(operation.operationId, operation);
  return byId;
}

/** A schema with its top-level `$ref`/`allOf` followed (one object's properties, merged). */
export function resolveSchema(document: ApiDescription, schema: JsonSchema | undefined): JsonSchema {
  if (!schema) return {};
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    return resolveSchema(document, document.components.schemas[name]);
  }
  if (schema.allOf) {
    // The schema's own properties count beside its parts (a request with per-kind `if`/`then`).
    const own = { ...schema, allOf: undefined };
    const parts = [own, ...schema.allOf.map((part) => resolveSchema(document, part))];
    return {
      type: 'object',
      properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})),
      required: parts.flatMap((part) => part.required ?? []),
    };
  }
  return schema;
}

const isNullSchema = (schema: JsonSchema) => schema.type === 'null';

/** Whether the schema takes `null`: `type: [T, 'null']` or a `null` branch of `anyOf`/`oneOf`. */
export function isNullable(schema: JsonSchema): boolean {
  if (Array.isArray(schema.type) && schema.type.includes('null')) return true;
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some(isNullSchema);
}

/** The schema with its `null` branch taken out: the one other branch itself, when one remains. */
export function withoutNull(schema: JsonSchema): JsonSchema {
  const key = schema.anyOf?.some(isNullSchema)
    ? 'anyOf'
    : schema.oneOf?.some(isNullSchema)
      ? 'oneOf'
      : undefined;
  if (!key) return schema;
  const rest = schema[key]!.filter((branch) => !isNullSchema(branch));
  if (rest.length === 1)
    return { ...(schema.description ? { description: schema.description } : {}), ...rest[0] };
  return { ...schema, [key]: rest };
}

/** The schema's one type other than `null` (`type: ['string', 'null']` is a string). */
export function typeOf(schema: JsonSchema | undefined): string | undefined {
  if (!schema) return undefined;
  return Array.isArray(schema.type) ? schema.type.find((type) => type !== 'null') : schema.type;
}
