// The per-kind config schemas of targets and issuers for the API description (issue 18, spec
// 2.12): each kind's config keys, from the same field specs the services validate with
// (TARGET_TYPE_SPECS, ISSUER_TYPE_SPECS), as a JSON Schema component `<Prefix>Config_<kind>`, and
// the request schemas that carry a `config` beside the kind get one `if`/`then` per kind, so a
// client (the GUI's config forms) finds the config schema of the kind it chose. Secret-bearing
// keys (password, secret, token or key in the name) are `writeOnly` and `format: password`: they
// are accepted, never answered (responses carry `********`).

const SCHEMA_REF = '#/components/schemas/';
/** The longest config string the services accept. */
const MAX_STRING = 4096;
/** The longest command (deployment-dispatch's commandProblem). */
const MAX_COMMAND = 1024;

export function isSecretConfigKey(name) {
  return /password|secret|token|key/i.test(name);
}

function fieldSchema(name, field) {
  const string = { type: 'string', minLength: 1, maxLength: MAX_STRING };
  let schema;
  switch (field.type) {
    case 'integer':
      schema = { type: 'integer', minimum: field.min, maximum: field.max };
      break;
    case 'boolean':
      schema = { type: 'boolean' };
      break;
    case 'enum':
      schema = { type: 'string', enum: [...field.values] };
      break;
    case 'path':
      schema = { ...string, pattern: '^/', description: 'An absolute path without ".." segments.' };
      break;
    case 'https_url':
      schema = { ...string, format: 'uri', pattern: '^https://' };
      break;
    case 'http_url':
      schema = { ...string, format: 'uri', pattern: '^https?://' };
      break;
    case 'command':
      schema = {
        type: 'string',
        minLength: 1,
        maxLength: MAX_COMMAND,
        description: 'Run as argv, without a shell: no shell metacharacters.',
      };
      break;
    case 'fingerprint':
      schema = {
        type: 'string',
        pattern: '^SHA256:[A-Za-z0-9+/]{43}=?$',
        description: 'OpenSSH SHA256 fingerprint.',
      };
      break;
    default:
      schema = string;
  }
  if (field.description)
    schema = { ...schema, description: [schema.description, field.description].filter(Boolean).join(' ') };
  if (isSecretConfigKey(name)) schema = { ...schema, format: 'password', writeOnly: true };
  return JSON.parse(JSON.stringify(schema));
}

/** `{ <Prefix>Config_<kind>: schema }` for every kind of `specs` (`{ kind: { fields } }`). */
export function kindConfigSchemas(prefix, specs) {
  return Object.fromEntries(
    Object.entries(specs).map(([kind, spec]) => {
      const required = Object.entries(spec.fields)
        .filter(([, field]) => field.required)
        .map(([name]) => name);
      return [
        `${prefix}Config_${kind}`,
        {
          type: 'object',
          description: `The config of ${prefix === 'Issuer' ? 'an issuer' : 'a target'} of type ${kind}; secret-bearing keys are write-only.`,
          properties: Object.fromEntries(
            Object.entries(spec.fields).map(([name, field]) => [name, fieldSchema(name, field)]),
          ),
          ...(required.length > 0 ? { required } : {}),
          additionalProperties: false,
        },
      ];
    }),
  );
}

/**
 * The request schema with one `if` (the kind property is this kind) / `then` (config is that
 * kind's schema) per kind, in `allOf` beside its own properties.
 */
export function withConfigByKind(schema, kindProperty, prefix, kinds) {
  return {
    ...schema,
    allOf: kinds.map((kind) => ({
      if: { properties: { [kindProperty]: { const: kind } }, required: [kindProperty] },
      then: { properties: { config: { $ref: `${SCHEMA_REF}${prefix}Config_${kind}` } } },
    })),
  };
}
