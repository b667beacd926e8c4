// Which request body properties accept `null` (ADR 0049 amendment). class-validator's
// @IsOptional skips every rule of a property whose value is null or undefined, so the API accepts
// `null` there: an update reads it as "clear" (`sni`, `expected_fingerprint`, `basic_username`)
// or as "keep", a create as "not given". The document says so, or typed clients and the MCP
// tools refuse what the API takes. Found by asking the validator itself, per property, with the
// options the services validate with (validateDto): whatever the decorators (@IsOptional,
// @ValidateIf, inheritance) make of null is what the document says.

/** Validation options of validateDto (libs/platform/src/validation/validate-dto.ts). */
const VALIDATE_OPTIONS = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true };

/** Whether `cls` accepts `{ [property]: null }` as far as `property` goes. */
export function acceptsNull(cls, property, { validateSync, plainToInstance }) {
  const instance = plainToInstance(cls, { [property]: null }, { exposeDefaultValues: false });
  const errors = validateSync(instance, VALIDATE_OPTIONS);
  return !errors.some((error) => error.property === property);
}

/** `schema` that also allows null: `type: [T, 'null']` where it has one type, else `anyOf`. */
export function nullable(schema) {
  if (typeof schema.type === 'string' && !schema.$ref) {
    return {
      ...schema,
      type: [schema.type, 'null'],
      ...(Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {}),
    };
  }
  if (Array.isArray(schema.type))
    return schema.type.includes('null') ? schema : { ...schema, type: [...schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/** The names of `roots` and of every request schema they reach by `$ref`. */
export function reachable(roots, schemas, refPrefix) {
  const found = new Set();
  const visit = (node) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(refPrefix))
        add(value.slice(refPrefix.length));
      else visit(value);
    }
  };
  const add = (name) => {
    if (found.has(name) || !schemas[name]) return;
    found.add(name);
    visit(schemas[name]);
  };
  roots.forEach(add);
  return found;
}

/**
 * The request schemas with each property of a body schema that accepts null made nullable.
 * `classes` maps a schema name to its DTO class; query schemas are left alone (a query string
 * has no null).
 */
export function withNullableBodies(schemas, bodyNames, classes, validator) {
  const result = { ...schemas };
  for (const name of bodyNames) {
    const cls = classes.get(name);
    const schema = schemas[name];
    if (!cls || !schema?.properties) continue;
    const properties = Object.fromEntries(
      Object.entries(schema.properties).map(([property, propertySchema]) => [
        property,
        acceptsNull(cls, property, validator) ? nullable(propertySchema) : propertySchema,
      ]),
    );
    result[name] = { ...schema, properties };
  }
  return result;
}
