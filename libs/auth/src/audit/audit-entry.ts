import { createHash } from 'node:crypto';
import {
  AUDIT_CATEGORIES,
  AUDIT_OUTCOMES,
  AuditAction,
  canonicalJson,
  EventEnvelope,
  SYSTEM_ACTOR,
  UnchainedAuditEvent,
} from '@certlane/contracts';

/** An event ready for the chain except for the time the store records it. */
export type AuditEntry = Omit<UnchainedAuditEvent, 'recorded_at'>;

const MAX_TEXT = 200;
const MAX_REQUEST_ID = 128;
/** Keeps every stored event well inside one export page and one NATS message. */
export const MAX_DETAILS_BYTES = 64 * 1024;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Text Postgres jsonb refuses (U+0000, unpaired surrogates), anywhere in keys or values. */
function holdsUnstorableText(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000') || LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.some(holdsUnstorableText);
  if (isPlainObject(value)) {
    return Object.entries(value).some(([key, item]) => holdsUnstorableText(key) || holdsUnstorableText(item));
  }
  return false;
}

/** Text of 1..max characters that Postgres can store. */
const isText = (value: unknown, max = MAX_TEXT): value is string =>
  typeof value === 'string' && value.length >= 1 && value.length <= max && !holdsUnstorableText(value);

/** A timestamp in the canonical form (UTC, milliseconds), or undefined when it is not one. */
export function canonicalTimestamp(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** What is wrong with an audit record that arrived on the bus; empty when nothing is. */
export function auditRecordProblems(data: unknown): string[] {
  if (!isPlainObject(data)) return ['the record is not an object'];
  const problems: string[] = [];
  for (const field of ['action', 'actor_id', 'resource_type', 'resource_id'] as const) {
    if (!isText(data[field])) problems.push(`${field} must be a string of 1 to ${MAX_TEXT} characters`);
  }
  if (!(AUDIT_CATEGORIES as readonly unknown[]).includes(data.event_category)) {
    problems.push(`event_category must be one of ${AUDIT_CATEGORIES.join(', ')}`);
  }
  if (!(AUDIT_OUTCOMES as readonly unknown[]).includes(data.outcome)) {
    problems.push(`outcome must be one of ${AUDIT_OUTCOMES.join(', ')}`);
  }
  if (data.request_id !== undefined && data.request_id !== null && !isText(data.request_id, MAX_REQUEST_ID)) {
    problems.push(`request_id must be a string of 1 to ${MAX_REQUEST_ID} characters`);
  }
  if (data.details !== undefined && data.details !== null && !isPlainObject(data.details)) {
    problems.push('details must be an object');
  } else if (holdsUnstorableText(data.details)) {
    // The record would be refused by Postgres on every redelivery and block the stream.
    problems.push('details must not contain U+0000 or unpaired surrogates');
  } else if (data.details && Buffer.byteLength(JSON.stringify(data.details)) > MAX_DETAILS_BYTES) {
    problems.push(`details must be at most ${MAX_DETAILS_BYTES} bytes of JSON`);
  }
  return problems;
}

/**
 * Turns an envelope from `<service>.v1.audit.recorded` into a store entry: the envelope id is
 * the event id (redeliveries share it) and the envelope's occurred_at is the event time. A
 * record that fails validation is not dropped and does not block the stream: it is stored as
 * `audit.record_rejected`, naming the problems (not the record, which may hold anything).
 */
export function auditEntryFromEnvelope(
  service: string,
  envelope: EventEnvelope<unknown>,
  now: Date = new Date(),
): AuditEntry {
  // Without a usable id, one derived from the content keeps redeliveries recognisable.
  const eventId = isText(envelope.id)
    ? envelope.id
    : `invalid-${createHash('sha256').update(canonicalJson(envelope)).digest('hex').slice(0, 40)}`;
  const occurredAt = canonicalTimestamp(envelope.occurred_at);
  const problems = auditRecordProblems(envelope.data);
  if (!occurredAt) problems.push('the envelope occurred_at is not a timestamp');
  if (!isText(envelope.id)) problems.push('the envelope id must be a string of 1 to 200 characters');
  if (problems.length > 0) {
    return {
      event_id: eventId,
      service,
      action: AuditAction.RecordRejected,
      event_category: 'auth',
      actor_id: SYSTEM_ACTOR,
      resource_type: 'audit_event',
      resource_id: eventId,
      outcome: 'failure',
      details: { subject: isText(envelope.subject) ? envelope.subject : '', problems },
      occurred_at: occurredAt ?? now.toISOString(),
    };
  }
  const record = envelope.data as Record<string, unknown>;
  return {
    event_id: eventId,
    service,
    action: record.action as string,
    event_category: record.event_category as AuditEntry['event_category'],
    actor_id: record.actor_id as string,
    resource_type: record.resource_type as string,
    resource_id: record.resource_id as string,
    outcome: record.outcome as AuditEntry['outcome'],
    ...(typeof record.request_id === 'string' ? { request_id: record.request_id } : {}),
    // A JSON round trip: what is hashed now is exactly what jsonb gives back later.
    details: record.details ? (JSON.parse(JSON.stringify(record.details)) as Record<string, unknown>) : {},
    occurred_at: occurredAt as string,
  };
}
