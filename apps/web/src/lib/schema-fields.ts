/**
 * Form fields from a JSON Schema object of the API description (a create request body), and
 * the request body from what was typed. Constraints become the HTML constraints that say the
 * same (required, pattern, lengths, bounds), so the browser refuses what the API would.
 */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  items?: JsonSchema;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  format?: string;
  description?: string;
  $ref?: string;
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  if?: JsonSchema;
  then?: JsonSchema;
  const?: unknown;
  writeOnly?: boolean;
}

export type FieldKind =
  'text' | 'multiline' | 'secret' | 'number' | 'boolean' | 'select' | 'multi' | 'list' | 'json';

/**
 * Text of several lines, which a text input would flatten: PEM (`certificate_pem`,
 * `trust_bundle_pem`, `csr`...) and descriptions.
 */
const isMultilineName = (name: string) => /(^|_)(pem|csr)$/.test(name) || name === 'description';
/** Secrets of several lines: private keys (an SSH target's `private_key`). */
const isMultilineSecretName = (name: string) => /(^|_)private_key(_pem)?$/.test(name);
/** Every `enabled` of the API is on when a create leaves it out. */
const DEFAULT_ON = new Set(['enabled']);

export interface FormField {
  name: string;
  kind: FieldKind;
  required: boolean;
  options?: string[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  integer?: boolean;
  description?: string;
  /** A secret whose value is a JSON object (a notifier's secrets): masked, parsed as JSON. */
  json?: boolean;
  /** A secret of several lines (an SSH private key): a masked text area. */
  multiline?: boolean;
  /** A list of numbers: each item is sent as one. */
  itemType?: 'integer' | 'number';
  /** A box the API ticks when the field is left out (`enabled`): shown ticked, and sent unticked as false. */
  defaultOn?: boolean;
  /** A date or date-time (RFC 3339): typed as text, read as UTC without an offset, which the form says. */
  dateTime?: boolean;
}

/** Spec 2.12: config keys whose names say they hold a secret are write-only and never shown. */
export function isSecretName(name: string): boolean {
  return /password|secret|token|key/i.test(name) && !/^key_(algorithm|size|usage)/i.test(name);
}

/** Follows `#/components/schemas/X` references within the document. */
export function resolveRef(
  schema: JsonSchema,
  document: { components?: { schemas?: Record<string, JsonSchema> } },
): JsonSchema {
  let current = schema;
  for (let hops = 0; current.$ref && hops < 10; hops++) {
    const name = current.$ref.replace('#/components/schemas/', '');
    current = document.components?.schemas?.[name] ?? {};
  }
  return current;
}

function typeOf(schema: JsonSchema): string | undefined {
  return Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
}

export function formFields(schema: JsonSchema): FormField[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const type = typeOf(property);
    const base = { name, required: required.has(name), description: property.description };
    // A nullable enum lists `null`, which the select's empty choice already sends as nothing.
    if (property.enum)
      return { ...base, kind: 'select', options: property.enum.filter((v) => v !== null).map(String) };
    if (type === 'boolean')
      return { ...base, kind: 'boolean', ...(DEFAULT_ON.has(name) ? { defaultOn: true } : {}) };
    if (type === 'integer' || type === 'number') {
      return {
        ...base,
        kind: 'number',
        minimum: property.minimum,
        maximum: property.maximum,
        integer: type === 'integer',
      };
    }
    if (type === 'array') {
      const items = property.items ?? {};
      if (items.enum) return { ...base, kind: 'multi', options: items.enum.map(String) };
      const itemType = typeOf(items);
      if (itemType === 'integer' || itemType === 'number') return { ...base, kind: 'list', itemType };
      if (itemType === 'string') return { ...base, kind: 'list' };
      return { ...base, kind: 'json' };
    }
    const textAlternatives =
      !type && property.oneOf?.every((alternative) => typeOf(alternative) === 'string');
    if (type === 'object' || (!type && !textAlternatives)) {
      // Spec 2.12: an object of secrets is typed into a masked field, never shown back.
      return isSecretName(name) ? { ...base, kind: 'secret', json: true } : { ...base, kind: 'json' };
    }
    return {
      ...base,
      kind:
        isSecretName(name) || property.writeOnly ? 'secret' : isMultilineName(name) ? 'multiline' : 'text',
      ...(isSecretName(name) && isMultilineSecretName(name) ? { multiline: true } : {}),
      ...([property, ...(property.oneOf ?? [])].some((p) => p.format === 'date-time')
        ? { dateTime: true }
        : {}),
      pattern: property.pattern,
      minLength: property.minLength,
      maxLength: property.maxLength,
    };
  }) as FormField[];
}

export type FormValues = Record<string, string | boolean | string[]>;

/**
 * The schema of `property` given the values chosen so far: a request that types a property per
 * kind carries one `if` (a property has this value) / `then` (the property's schema) per kind in
 * `allOf` (the API description does so for a target's or an issuer's `config`, by `type`).
 */
export function conditionalProperty(
  schema: JsonSchema,
  property: string,
  values: Readonly<Record<string, unknown>>,
  document: { components?: { schemas?: Record<string, JsonSchema> } },
): JsonSchema | undefined {
  for (const branch of schema.allOf ?? []) {
    const conditions = Object.entries(branch.if?.properties ?? {});
    const then = branch.then?.properties?.[property];
    if (!then || conditions.length === 0) continue;
    if (
      conditions.every(
        ([name, condition]) => condition.const !== undefined && values[name] === condition.const,
      )
    ) {
      return resolveRef(then, document);
    }
  }
  return undefined;
}

/**
 * The request body: empty fields are left out (the API's defaults apply); lists are split on
 * commas; numbers and JSON are parsed. A value that does not parse is a field error.
 */
export function requestBody(
  fields: readonly FormField[],
  values: FormValues,
): { body: Record<string, unknown>; errors: Record<string, string> } {
  const body: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const value = values[field.name];
    if (field.kind === 'boolean') {
      if (value === true) body[field.name] = true;
      else if (field.defaultOn) body[field.name] = false;
      continue;
    }
    if (field.kind === 'multi') {
      if (Array.isArray(value) && value.length > 0) body[field.name] = value;
      continue;
    }
    const text = typeof value === 'string' ? value.trim() : '';
    if (text === '') continue;
    if (field.kind === 'number') {
      const number = Number(text);
      if (Number.isNaN(number)) errors[field.name] = 'must be a number';
      else body[field.name] = number;
    } else if (field.kind === 'list') {
      // Commas or lines: a column pasted from elsewhere is a list too.
      const items = text
        .split(/[,\n]/)
        .map((item) => item.trim())
        .filter(Boolean);
      if (field.itemType) {
        const numbers = items.map(Number);
        const integer = field.itemType === 'integer';
        if (numbers.some((n) => !Number.isFinite(n) || (integer && !Number.isInteger(n))))
          errors[field.name] = integer ? 'must be whole numbers' : 'must be numbers';
        else body[field.name] = numbers;
      } else body[field.name] = items;
    } else if (field.kind === 'json' || field.json) {
      try {
        body[field.name] = JSON.parse(text);
      } catch {
        errors[field.name] = 'must be JSON';
      }
    } else body[field.name] = typeof value === 'string' && field.kind === 'secret' ? value : text;
  }
  return { body, errors };
}

/**
 * The API's errors by field: `details.fields` of a 400 `validation_failed`, or the one
 * `details.field` of another refusal (a reference that does not exist, an id taken) with its
 * message.
 */
export function fieldErrors(details: unknown, message = '', within?: string): Record<string, string> {
  const { fields, field } = (details ?? {}) as {
    fields?: { field?: string; message?: string }[];
    field?: unknown;
  };
  const errors: Record<string, string> = {};
  if (typeof field === 'string' && message) errors[field] = message;
  for (const entry of Array.isArray(fields) ? fields : []) {
    if (!entry.field || !entry.message) continue;
    // A refusal of a nested object names its keys alone (a config's `cert_path`): both the
    // object's field and the key's own field show it.
    const path = within ? `${within}.${entry.field}` : entry.field;
    errors[path.split('.')[0]] = entry.message;
    errors[path] = entry.message;
  }
  return errors;
}

/**
 * A schema pattern as an HTML `pattern` attribute. Browsers compile `pattern` with the `v` flag,
 * where a class such as `[a-z._-]` is a syntax error and the constraint is silently dropped; the
 * characters `v` reserves inside a class are escaped, and a pattern not anchored at both ends may
 * match anywhere. Undefined when it still does not compile.
 */
export function htmlPattern(pattern: string | undefined): string | undefined {
  if (!pattern) return undefined;
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') {
      out += char + (pattern[i + 1] ?? '');
      i++;
    } else if (!inClass && char === '[') {
      inClass = true;
      out += char;
      if (pattern[i + 1] === '^') out += pattern[++i];
    } else if (inClass && char === ']') {
      inClass = false;
      out += char;
    } else if (inClass && '()[{}/|'.includes(char)) {
      out += '\\' + char;
    } else if (inClass && char === '-' && (/[[^]$/.test(out.slice(-1)) || pattern[i + 1] === ']')) {
      out += '\\-';
    } else out += char;
  }
  // JSON Schema patterns search the value, HTML ones match all of it: an unanchored one
  // (`^/`, a path) may match anywhere.
  if (!(out.startsWith('^') && out.endsWith('$') && !out.endsWith('\\$'))) out = `.*(?:${out}).*`;
  try {
    new RegExp(out, 'v');
    return out;
  } catch {
    return undefined;
  }
}

/** The form values a create form starts from: the boxes the API ticks when left out. */
export function createValues(fields: readonly FormField[]): FormValues {
  return Object.fromEntries(fields.filter((field) => field.defaultOn).map((field) => [field.name, true]));
}

/** The API's redaction of a stored secret inside an answered object (spec 2.12). */
const API_REDACTION = '********';

/**
 * The form values of an existing record, for an edit form: scalars and lists as typed text, a
 * JSON object as indented JSON (so one setting can be changed without retyping the others), never
 * a secret-named field or an object holding a redacted value (sent back, it would overwrite the
 * stored secret).
 */
export function initialValues(fields: readonly FormField[], record: Record<string, unknown>): FormValues {
  const values: FormValues = {};
  for (const field of fields) {
    const value = record[field.name];
    if (value === null || value === undefined || field.kind === 'secret') continue;
    if (field.kind === 'json') {
      const text = JSON.stringify(value, null, 2);
      if (!text.includes(API_REDACTION)) values[field.name] = text;
      continue;
    }
    if (field.kind === 'boolean') values[field.name] = value === true;
    else if (field.kind === 'multi') values[field.name] = Array.isArray(value) ? value.map(String) : [];
    else if (field.kind === 'list')
      values[field.name] = Array.isArray(value) ? value.join(', ') : String(value);
    else values[field.name] = String(value);
  }
  return values;
}

/**
 * Only what changed from the initial values: an edit sends no field it did not touch. The body
 * leaves empty fields and unticked boxes out, which an update reads as "keep", so what was
 * emptied is sent as emptied: a box as `false`, a list as `[]`, an object as `{}`, a number as
 * `null`, text as `""`
 * (which an update that reads `null` as "keep" still applies; the API refuses, naming the field,
 * what may not be empty).
 */
export function changedOnly(
  body: Record<string, unknown>,
  initialBody: Record<string, unknown>,
  fields: readonly FormField[] = [],
): Record<string, unknown> {
  const kinds = new Map(fields.map((field) => [field.name, field.kind]));
  const cleared = Object.keys(initialBody)
    .filter((key) => !(key in body))
    .map((key) => {
      if (typeof initialBody[key] === 'boolean') return [key, false];
      const kind = kinds.get(key);
      if (kind === 'list' || kind === 'multi' || Array.isArray(initialBody[key])) return [key, []];
      if (typeof initialBody[key] === 'object') return [key, {}];
      return [key, typeof initialBody[key] === 'number' ? null : ''];
    });
  return Object.fromEntries([
    ...Object.entries(body).filter(
      ([key, value]) => JSON.stringify(value) !== JSON.stringify(initialBody[key]),
    ),
    ...cleared,
  ]);
}

/**
 * Whether a record holds a value for a secret field, never shown: the (redacted) value itself,
 * or a `<name>_set` or `has_<name>` flag where the API answers only that (a SCEP challenge
 * password, an OIDC provider's client secret).
 */
export function secretStored(field: FormField, record: Record<string, unknown>): boolean {
  if (field.kind !== 'secret') return false;
  // A notifier answers the names of its stored secrets (`secret_fields`), never their values.
  const storedNames = field.name === 'secrets' ? record.secret_fields : undefined;
  return (
    record[field.name] !== undefined ||
    record[`${field.name}_set`] === true ||
    record[`has_${field.name}`] === true ||
    (Array.isArray(storedNames) && storedNames.length > 0)
  );
}
