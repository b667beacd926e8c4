import { readFileSync } from 'node:fs';
import type { ApiDescription, JsonSchema, OperationObject } from './api-description';
import { isNullable, resolveSchema, typeOf, withoutNull } from './api-description';
import { UsageError } from './exit-codes';

/** How a flag's text becomes a value. */
export type FlagKind = 'string' | 'number' | 'boolean' | 'list' | 'json';

/** One flag of an operation command: a query parameter or a top-level body field. */
export interface OperationFlag {
  /** `--per-page` without the dashes. */
  flag: string;
  /** The wire name (`per_page`). */
  key: string;
  source: 'query' | 'body';
  kind: FlagKind;
  choices?: readonly string[];
  description: string;
  /** A PEM field (`certificate_pem`, `csr`...): `@FILE` sends the file's text, as curl's `-d @FILE`. */
  fromFile?: boolean;
  /** A body field that takes `null` (`anyOf`/`type` with `null`): `--null FLAG` sends it. */
  nullable?: boolean;
}

const isPemName = (name: string) => /(^|_)(pem|csr)$/.test(name);

/** Flags the CLI itself owns; a field of the same name is set through `--filename` only. */
export const RESERVED_FLAGS = new Set([
  'output',
  'server',
  'context',
  'config',
  'api-key-file',
  'api-key-stdin',
  'ca-bundle',
  'body-file',
  'file',
  'all',
  'yes',
  'wait',
  'timeout',
  'help',
  'version',
  'null',
]);

const kebab = (name: string) => name.replace(/_/g, '-');

/** Query parameters named like a flag of the CLI itself (`GET /auth/sessions?all=`: every actor's). */
const QUERY_FLAG_RENAMES: Readonly<Record<string, string>> = { all: 'all-actors' };

const BOOLEAN_WORDS = new Set(['true', 'false', '1', '0']);

/** How a flag of this schema is read; exported for its tests. */
export function kindOf(schema: JsonSchema): FlagKind {
  // `anyOf: [T, {type: 'null'}]` (a field that takes null, ADR 0049): a flag's text is a T.
  const value = withoutNull(schema);
  if (value !== schema) return kindOf(value);
  // `oneOf: [date, date-time]` (the audit's `from`): text whichever it is; the server tells them apart.
  const branches = schema.oneOf ?? schema.anyOf;
  if (branches && branches.length > 0 && branches.every((branch) => kindOf(branch) === 'string'))
    return 'string';
  const values = schema.enum?.filter((value) => value !== null);
  if (values && values.length > 0 && values.every((value) => BOOLEAN_WORDS.has(String(value))))
    return 'boolean';
  const type = typeOf(schema);
  if (type === 'integer' || type === 'number') return 'number';
  if (type === 'boolean') return 'boolean';
  if (type === 'string') return 'string';
  if (
    type === 'array' &&
    schema.items &&
    ['string', 'number', 'integer'].includes(String(typeOf(schema.items)))
  )
    return 'list';
  return 'json';
}

function choicesOf(schema: JsonSchema): readonly string[] | undefined {
  if (kindOf(schema) === 'boolean') return undefined;
  const values = schema.enum?.filter((value): value is string => typeof value === 'string' && value !== '');
  return values && values.length > 0 ? values : undefined;
}

/** The flags of an operation, from its query parameters and its JSON body's top-level fields. */
export function operationFlags(document: ApiDescription, operation: OperationObject): OperationFlag[] {
  const flags: OperationFlag[] = [];
  const taken = new Set<string>();
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== 'query') continue;
    const flag = RESERVED_FLAGS.has(kebab(parameter.name))
      ? (QUERY_FLAG_RENAMES[parameter.name] ?? `query-${kebab(parameter.name)}`)
      : kebab(parameter.name);
    taken.add(flag);
    flags.push({
      flag,
      key: parameter.name,
      source: 'query',
      kind: kindOf(parameter.schema),
      choices: choicesOf(parameter.schema),
      description: parameter.description ?? `query ${parameter.name}`,
    });
  }
  const body = resolveSchema(document, operation.requestBody?.content['application/json']?.schema);
  for (const [key, raw] of Object.entries(body.properties ?? {})) {
    const flag = kebab(key);
    if (taken.has(flag) || RESERVED_FLAGS.has(flag)) continue;
    const nullable = isNullable(raw);
    const schema = resolveSchema(document, withoutNull(raw));
    const kind = kindOf(schema);
    const fromFile = kind === 'string' && isPemName(key);
    flags.push({
      flag,
      key,
      source: 'body',
      kind,
      choices: choicesOf(schema),
      description:
        (schema.description ?? `body field ${key}`) +
        (kind === 'list'
          ? ' (repeat the flag for more)'
          : kind === 'json'
            ? ' (JSON)'
            : fromFile
              ? ' (or @FILE: the PEM file)'
              : ''),
      ...(fromFile ? { fromFile } : {}),
      ...(nullable ? { nullable } : {}),
    });
  }
  return flags;
}

/** The text of a flag as the value its kind says; a bad value is a usage error. */
export function parseFlagValue(flag: OperationFlag, text: string | boolean): unknown {
  if (flag.kind === 'boolean') {
    if (text === true || text === 'true' || text === '1') return true;
    if (text === 'false' || text === '0') return false;
    throw new UsageError(`--${flag.flag} takes true or false, not "${String(text)}"`);
  }
  const value = String(text);
  if (flag.choices && !flag.choices.includes(value))
    throw new UsageError(`--${flag.flag} must be one of ${flag.choices.join(', ')} (got "${value}")`);
  if (flag.kind === 'number') {
    const number = Number(value);
    if (value.trim() === '' || !Number.isFinite(number))
      throw new UsageError(`--${flag.flag} takes a number, not "${value}"`);
    return number;
  }
  if (flag.kind === 'json') {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      throw new UsageError(`--${flag.flag} takes JSON, and "${value}" is not JSON`);
    }
  }
  return value;
}

/** Query and body from the flags given (list flags collected), layered over a body file. */
export function inputFromFlags(
  flags: readonly OperationFlag[],
  given: Readonly<Record<string, unknown>>,
  bodyFile: Record<string, unknown> | undefined,
  readText: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): { query: Record<string, unknown>; body: Record<string, unknown> | undefined } {
  const query: Record<string, unknown> = {};
  let body = bodyFile ? { ...bodyFile } : undefined;
  for (const flag of flags) {
    let raw = given[camel(flag.flag)];
    if (raw === undefined) continue;
    if (flag.fromFile && typeof raw === 'string' && raw.startsWith('@')) {
      const path = raw.slice(1);
      try {
        raw = readText(path);
      } catch (error) {
        throw new UsageError(`--${flag.flag} @${path}: ${(error as Error).message}`);
      }
    }
    const value = Array.isArray(raw)
      ? raw.map((item) => parseFlagValue({ ...flag, kind: 'string' }, item as string))
      : parseFlagValue(flag, raw as string | boolean);
    if (flag.source === 'query') query[flag.key] = value;
    else (body ??= {})[flag.key] = value;
  }
  const nulls = given.null;
  for (const name of Array.isArray(nulls) ? (nulls as string[]) : []) {
    const flag = flags.find((candidate) => candidate.source === 'body' && candidate.flag === name);
    if (!flag?.nullable) {
      const known = flags.filter((candidate) => candidate.nullable).map((candidate) => candidate.flag);
      throw new UsageError(
        `--null ${name}: ${known.length > 0 ? `takes one of ${known.join(', ')}` : 'no field of this command takes null'}`,
      );
    }
    if (given[camel(flag.flag)] !== undefined)
      throw new UsageError(`--${flag.flag} and --null ${flag.flag} contradict each other`);
    (body ??= {})[flag.key] = null;
  }
  return { query, body };
}

/** commander's property name for a flag: `per-page` -> `perPage`. */
export function camel(flag: string): string {
  return flag.replace(/-([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}
