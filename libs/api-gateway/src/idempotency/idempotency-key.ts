import { createHash } from 'node:crypto';
import { CertlaneError, ErrorCode } from '@certlane/contracts';

const MAX_KEY_LENGTH = 255;
/** An sf-string (RFC 8941 3.3.3): printable ASCII in quotes, `"` and `\` escaped. */
const SF_STRING = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;
/** Leniency for clients that send the key unquoted, as many do: visible ASCII, no quotes or spaces. */
const BARE = /^[\x21\x23-\x7e]+$/;

const invalid = (why: string) => new CertlaneError(ErrorCode.IdempotencyKeyInvalid, `Idempotency-Key ${why}`);

/**
 * The key of an `Idempotency-Key` header (draft-ietf-httpapi-idempotency-key-header: an sf-string,
 * `"8e03978e-40d5-43e8-bc93-6894a57f9324"`; an unquoted token is accepted too). 400
 * idempotency_key_invalid for a repeated header, an empty or over-long key, or one that is neither.
 */
export function parseIdempotencyKey(header: string | string[]): string {
  if (Array.isArray(header)) throw invalid('must be sent once');
  const value = header.trim();
  const quoted = SF_STRING.exec(value);
  const key = quoted ? quoted[1].replace(/\\(["\\])/g, '$1') : BARE.test(value) ? value : undefined;
  if (key === undefined) throw invalid('must be a quoted string (RFC 8941) of printable ASCII');
  if (key.length === 0 || key.length > MAX_KEY_LENGTH)
    throw invalid(`must be 1 to ${MAX_KEY_LENGTH} characters`);
  return key;
}

/** JSON with object keys sorted, so the same payload always gives the same text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** SHA-256 (hex) of what a request asks: its query and its body, whatever their key order. */
export function requestFingerprint(query: unknown, body: unknown): string {
  return createHash('sha256')
    .update(canonicalJson({ query: query ?? {}, body: body ?? null }))
    .digest('hex');
}

/**
 * The id a create with an Idempotency-Key and no client-chosen id gets: derived from the actor and
 * the key, so an attempt run again after the first was lost without an answer meets the resource
 * the first one made instead of making a second.
 */
export function idempotentResourceId(prefix: string, actorId: string, key: string): string {
  return `${prefix}-${createHash('sha256').update(`${actorId}\n${key}`).digest('hex').slice(0, 24)}`;
}
