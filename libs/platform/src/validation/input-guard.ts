import { parse as parseQueryString } from 'node:querystring';
import { CertlaneError, ErrorCode } from '@certlane/contracts';

/**
 * The shape bounds every request body, query string, path and bus payload is held to before it
 * reaches validation or a handler (ADR 0040). Validation (class-transformer) recurses per level
 * and is quadratic in an object's key count, and Postgres refuses NUL in text: both are refused
 * here, in one linear walk, with a 400 that names the rule.
 */
export const INPUT_LIMITS = Object.freeze({
  /** Nesting of objects and arrays; the deepest real payload (an issuer config) has 4. */
  maxDepth: 32,
  /** Keys of one object; the widest real object (tags, config maps) has a few dozen. */
  maxKeysPerObject: 1_000,
  /** Keys of all objects together. Array items are not counted: a bulk id list holds 100,000. */
  maxKeysTotal: 10_000,
  /** Characters of one string or key: the largest accepted PEM (256 KiB). */
  maxStringLength: 262_144,
});

export type InputLimits = typeof INPUT_LIMITS;

/** Where the refused input came from, named in the error's details. */
export type InputLocation = 'body' | 'query' | 'path' | 'payload';

/** Keys that reach object prototypes in class-transformer and in naive merges. */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** A container still to visit, with the way back to the root for the error's `field`. */
interface Pending {
  value: object;
  depth: number;
  parent: Pending | undefined;
  key: string | number;
}

/**
 * Throws a coded 400 when `value` (parsed JSON or a parsed query string) breaks a bound of
 * INPUT_LIMITS, holds a NUL character in a string or key, or uses a prototype key. Iterative, so
 * depth cannot overflow the stack, and it stops at the first problem.
 */
export function assertSafeInput(
  value: unknown,
  location: InputLocation,
  limits: InputLimits = INPUT_LIMITS,
): void {
  if (typeof value === 'string') return assertSafeString(value, location, undefined, undefined, limits);
  if (value === null || typeof value !== 'object') return;
  const stack: Pending[] = [{ value, depth: 1, parent: undefined, key: '' }];
  let keysTotal = 0;
  while (stack.length > 0) {
    const pending = stack.pop() as Pending;
    if (pending.depth > limits.maxDepth) {
      throw refused(
        ErrorCode.InputTooDeep,
        `the ${location} is nested more than ${limits.maxDepth} levels deep`,
        location,
        pending,
        { limit: limits.maxDepth },
      );
    }
    const visit = (child: unknown, key: string | number) => {
      if (typeof child === 'string') assertSafeString(child, location, pending, key, limits);
      else if (child !== null && typeof child === 'object') {
        stack.push({ value: child, depth: pending.depth + 1, parent: pending, key });
      }
    };
    if (Array.isArray(pending.value)) {
      const items = pending.value as unknown[];
      for (let i = 0; i < items.length; i++) visit(items[i], i);
      continue;
    }
    const record = pending.value as Record<string, unknown>;
    const keys = Object.keys(record);
    keysTotal += keys.length;
    if (keys.length > limits.maxKeysPerObject || keysTotal > limits.maxKeysTotal) {
      const perObject = keys.length > limits.maxKeysPerObject;
      throw refused(
        ErrorCode.InputTooWide,
        perObject
          ? `an object of the ${location} has more than ${limits.maxKeysPerObject} keys`
          : `the ${location} has more than ${limits.maxKeysTotal} keys in all`,
        location,
        pending,
        { limit: perObject ? limits.maxKeysPerObject : limits.maxKeysTotal },
      );
    }
    for (const key of keys) {
      if (FORBIDDEN_KEYS.has(key)) {
        throw refused(
          ErrorCode.InputKeyForbidden,
          `the key ${JSON.stringify(key)} is not accepted`,
          location,
          pending,
          {},
          key,
        );
      }
      assertSafeString(key, location, pending, key, limits);
      visit(record[key], key);
    }
  }
}

/**
 * Throws input_nul_byte when the raw request target holds a percent-encoded NUL (`%00`) in its
 * path or query: both are percent-decoded once, so this is the only spelling that becomes NUL.
 */
export function assertSafeUrl(url: string): void {
  const nul = url.indexOf('%00');
  if (nul < 0) return;
  const query = url.indexOf('?');
  const location: InputLocation = query >= 0 && query < nul ? 'query' : 'path';
  throw new CertlaneError(ErrorCode.InputNulByte, `the ${location} holds a NUL character (%00)`, {
    in: location,
  });
}

function assertSafeString(
  text: string,
  location: InputLocation,
  parent: Pending | undefined,
  key: string | number | undefined,
  limits: InputLimits,
): void {
  if (text.length > limits.maxStringLength) {
    throw refused(
      ErrorCode.InputStringTooLong,
      `a string of the ${location} is longer than ${limits.maxStringLength} characters`,
      location,
      parent,
      { limit: limits.maxStringLength },
      key,
    );
  }
  if (text.includes('\0')) {
    throw refused(
      ErrorCode.InputNulByte,
      `a string of the ${location} holds a NUL character`,
      location,
      parent,
      {},
      key,
    );
  }
}

/** The error, with `field` as the dotted path to the offending place (empty at the root). */
function refused(
  code: ErrorCode,
  message: string,
  location: InputLocation,
  at: Pending | undefined,
  extra: Record<string, unknown>,
  key?: string | number,
): CertlaneError {
  const parts: string[] = key === undefined ? [] : [String(key)];
  for (let node = at; node?.parent; node = node.parent) parts.push(String(node.key));
  const field = parts.reverse().join('.');
  // The path is the client's own text: bounded, so a hostile key does not fill the response.
  return new CertlaneError(code, message, {
    in: location,
    field: field.length > 200 ? `${field.slice(0, 200)}...` : field,
    ...extra,
  });
}

/**
 * The query-string parser of every listener: Express's `simple` parser (Node's querystring, at
 * most 1000 keys) with the parsed values held to the input bounds.
 */
export function parseQuery(text: string): Record<string, unknown> {
  const query = parseQueryString(text);
  assertSafeInput(query, 'query');
  return query;
}
