import type { ApiDescription, OperationObject } from './api-description';
import { resolveSchema, typeOf, withoutNull } from './api-description';

/** Ids per call when a bulk command names many, so progress can be shown between calls. */
export const BULK_BATCH = 500;

/** The body field of a bulk operation that lists ids, and how many of them one call takes. */
export interface IdsField {
  key: string;
  batch: number;
}

/** Id-list fields of bulk bodies: certificates (`bulk revoke`), discovered certificates (`ids`). */
const ID_LIST_KEYS = ['certificate_ids', 'ids'];

/** The field `--ids-file` fills, from the operation's body schema; none when the body has no id list. */
export function idsFieldOf(document: ApiDescription, operation: OperationObject): IdsField | undefined {
  const body = resolveSchema(document, operation.requestBody?.content['application/json']?.schema);
  for (const key of ID_LIST_KEYS) {
    const raw = body.properties?.[key];
    const schema = raw && withoutNull(raw);
    if (typeOf(schema) !== 'array' || typeOf(schema?.items) !== 'string') continue;
    return { key, batch: Math.min(BULK_BATCH, schema!.maxItems ?? BULK_BATCH) };
  }
  return undefined;
}

const SUMMED = /^total_/;

/** The answers of several calls of one bulk operation as one: totals added, lists joined. */
export function mergeBulkReplies(
  merged: Readonly<Record<string, unknown>>,
  reply: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const next = { ...merged };
  for (const [key, value] of Object.entries(reply)) {
    if (typeof value === 'number' && SUMMED.test(key)) next[key] = ((next[key] as number) ?? 0) + value;
    else if (Array.isArray(value)) next[key] = [...((next[key] as unknown[]) ?? []), ...value];
    else if (typeof value === 'boolean') next[key] = Boolean(next[key]) || value;
    else next[key] = value;
  }
  return next;
}

/** A bulk call that failed after earlier calls were applied: what they did, and what was not sent. */
export class BulkInterrupted extends Error {
  constructor(
    readonly partial: Record<string, unknown>,
    readonly sent: number,
    readonly notSent: readonly string[],
    readonly failure: unknown,
  ) {
    super(`${sent} ids were sent before a call failed; ${notSent.length} were not`);
    this.name = 'BulkInterrupted';
  }
}

/**
 * Sends `ids` `field.batch` at a time, merging the answers. Batches already sent cannot be taken
 * back (a revocation), so a failure after the first throws `BulkInterrupted` with their results.
 */
export async function sendInBatches(
  ids: readonly string[],
  field: IdsField,
  send: (batch: string[]) => Promise<Record<string, unknown>>,
  onProgress: (sent: number) => void,
): Promise<Record<string, unknown>> {
  let merged: Record<string, unknown> = {};
  for (let start = 0; start < ids.length; start += field.batch) {
    let reply: Record<string, unknown>;
    try {
      reply = await send(ids.slice(start, start + field.batch));
    } catch (error) {
      if (start === 0) throw error;
      throw new BulkInterrupted(merged, start, ids.slice(start), error);
    }
    merged = mergeBulkReplies(merged, reply);
    onProgress(Math.min(start + field.batch, ids.length));
  }
  return merged;
}
