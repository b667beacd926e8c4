/** Field names whose values never reach a log line, whatever object they appear in. */
export const SECRET_FIELD_PATTERN =
  /pass(word|phrase)?|secret|token|api[-_]?key|private[-_]?key|key[-_]?pem|authorization|cookie|credential|key_hash|encryption[-_]?key|encryptionkey|named[-_]?keys/i;

const PRIVATE_KEY_BLOCK = /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?(-----END \1PRIVATE KEY-----|$)/g;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;

export const REDACTED = '[REDACTED]';

/** Scrubs secrets that hide inside free text: PEM private keys and Authorization header values. */
export function redactText(text: string): string {
  return text.replace(PRIVATE_KEY_BLOCK, `[REDACTED PRIVATE KEY]`).replace(BEARER, `$1 ${REDACTED}`);
}

/** Deep copy with secret-named fields replaced and free text scrubbed. Cycles are cut. */
export function redactValue(value: unknown, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  if (value instanceof Error) {
    return {
      type: value.name,
      message: redactText(value.message),
      stack: value.stack && redactText(value.stack),
    };
  }
  if (Array.isArray(value)) return value.map((item) => redactValue(item, seen));
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    copy[key] = SECRET_FIELD_PATTERN.test(key) ? REDACTED : redactValue(field, seen);
  }
  return copy;
}
