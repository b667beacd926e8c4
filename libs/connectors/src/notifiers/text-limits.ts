import { createHash } from 'node:crypto';

/**
 * Bounds for what a receiver refuses when it is too long (ADR 0056, amendment "sizes the
 * receivers accept"). Lengths are JavaScript string lengths (UTF-16 code units), which is what
 * the vendors' Java and JavaScript APIs count.
 */

const ELLIPSIS = '…';

/** Whether position `end` of `text` falls between the two halves of a surrogate pair. */
function splitsPair(text: string, end: number): boolean {
  const code = text.charCodeAt(end - 1);
  return end > 0 && end < text.length && code >= 0xd800 && code <= 0xdbff;
}

/**
 * `text` in at most `max` characters: cut with an ellipsis when longer, never between the two
 * halves of a surrogate pair (half a character is not valid UTF-8 on the wire).
 */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  let end = max - ELLIPSIS.length;
  if (splitsPair(text, end)) end -= 1;
  return `${text.slice(0, Math.max(0, end))}${ELLIPSIS}`;
}

/**
 * An identifier (an alert's alias or dedup key) in at most `max` characters. A longer one keeps
 * its start and ends with a hash of the whole, so two keys stay two and the same key always gives
 * the same bounded one (the alert opened is the alert closed).
 */
export function boundedKey(key: string, max: number): string {
  if (key.length <= max) return key;
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 16);
  let end = max - hash.length - 1;
  if (splitsPair(key, end)) end -= 1;
  return `${key.slice(0, end)}#${hash}`;
}

/**
 * The longest length `cap` such that values cut to `cap` fit `budget` in total: short values stay
 * whole and only the longest are cut, to one common length (water filling).
 */
function fairCap(lengths: readonly number[], budget: number): number {
  const sorted = [...lengths].sort((a, b) => a - b);
  let left = budget;
  for (let i = 0; i < sorted.length; i++) {
    const share = Math.floor(left / (sorted.length - i));
    if (sorted[i] > share) return share;
    left -= sorted[i];
  }
  return Number.POSITIVE_INFINITY;
}

/**
 * Details whose text values, with their keys, take at most `budget` characters in all. Keys are
 * cut to `maxKey`; entries whose key no longer fits are left out; text values are cut fairly
 * (the short ones whole, the longest to a common length). Numbers and nulls are kept as they are
 * and count by their printed length.
 */
export function fitDetails<V extends string | number | null>(
  details: Readonly<Record<string, V>>,
  budget: number,
  maxKey = 128,
): Record<string, V | string> {
  const entries: [string, V][] = [];
  let left = budget;
  for (const [rawKey, value] of Object.entries(details)) {
    const key = cut(rawKey, maxKey);
    const fixed = key.length + (typeof value === 'string' ? 0 : String(value).length);
    if (fixed > left) continue;
    left -= fixed;
    entries.push([key, value]);
  }
  const texts = entries.filter(([, value]) => typeof value === 'string').map(([, value]) => value as string);
  const cap = fairCap(
    texts.map((text) => text.length),
    left,
  );
  return Object.fromEntries(
    entries.map(([key, value]) => [key, typeof value === 'string' ? cut(value, cap) : value]),
  );
}

/**
 * A JSON body of at most `maxBytes` bytes, built by `body` from details fitted to a character
 * budget: the budget is halved until the serialised body fits (escapes and UTF-8 make a character
 * up to 6 bytes).
 */
export function fitJson<V extends string | number | null>(
  details: Readonly<Record<string, V>>,
  maxBytes: number,
  body: (fitted: Record<string, V | string>) => unknown,
): string {
  for (let budget = maxBytes; ; budget = Math.floor(budget / 2)) {
    const json = JSON.stringify(body(fitDetails(details, budget)));
    if (Buffer.byteLength(json) <= maxBytes || budget === 0) return json;
  }
}
