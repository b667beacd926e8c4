import { createHash } from 'node:crypto';
import { AuditEventDto } from './audit-record';

/**
 * The hash chain of the audit store (docs/decisions/0016-audit-store.md). Pure functions, so the
 * auth service, the tests and anyone holding an NDJSON export compute the same hashes.
 *
 *   hash = hex(SHA-256(prev_hash + "\n" + canonical(event)))
 *
 * where canonical(event) is the JSON array, without whitespace, of
 * `["certlane-audit-v1", seq, event_id, service, action, event_category, actor_id,
 *   resource_type, resource_id, outcome, request_id | null, details, occurred_at, recorded_at]`,
 * `details` with its object keys sorted (recursively) and the timestamps in the
 * `toISOString()` form (UTC, milliseconds). The first event's prev_hash is 64 zeros.
 */
export const AUDIT_GENESIS_HASH = '0'.repeat(64);
export const AUDIT_CHAIN_VERSION = 'certlane-audit-v1';

/** An event before it is chained: everything but its place in the chain. */
export type UnchainedAuditEvent = Omit<AuditEventDto, 'seq' | 'prev_hash' | 'hash'>;

/** What canonical() covers: every field except the hashes. */
export type HashedAuditFields = Omit<AuditEventDto, 'prev_hash' | 'hash'>;

/** The last link of a chain, or undefined for an empty chain. */
export interface AuditChainHead {
  seq: number;
  hash: string;
}

/** JSON with object keys sorted at every depth; arrays keep their order; undefined members dropped. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    return text === undefined ? 'null' : text;
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  const entries = Object.keys(value)
    .sort()
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}

/** The canonical serialization of an event's fields (see the module comment). */
export function canonicalAuditEvent(event: HashedAuditFields): string {
  return canonicalJson([
    AUDIT_CHAIN_VERSION,
    event.seq,
    event.event_id,
    event.service,
    event.action,
    event.event_category,
    event.actor_id,
    event.resource_type,
    event.resource_id,
    event.outcome,
    event.request_id ?? null,
    event.details ?? {},
    event.occurred_at,
    event.recorded_at,
  ]);
}

export function auditEventHash(prevHash: string, event: HashedAuditFields): string {
  return createHash('sha256')
    .update(`${prevHash}\n${canonicalAuditEvent(event)}`, 'utf8')
    .digest('hex');
}

/** Gives events their seq, prev_hash and hash after `head` (the chain's last event, if any). */
export function chainAuditEvents(
  head: AuditChainHead | undefined,
  events: UnchainedAuditEvent[],
): AuditEventDto[] {
  let seq = head?.seq ?? 0;
  let prevHash = head?.hash ?? AUDIT_GENESIS_HASH;
  return events.map((event) => {
    seq += 1;
    const fields: HashedAuditFields = { ...event, seq };
    const hash = auditEventHash(prevHash, fields);
    const chained: AuditEventDto = { ...fields, prev_hash: prevHash, hash };
    prevHash = hash;
    return chained;
  });
}

export type AuditChainBreakReason = 'seq_gap' | 'prev_hash_mismatch' | 'hash_mismatch';

export interface AuditChainBreak {
  seq: number;
  event_id: string;
  reason: AuditChainBreakReason;
}

/** The answer of GET /api/v1/audit/verify. */
export interface AuditChainVerification {
  ok: boolean;
  /** Events checked, up to and including the first broken one. */
  checked: number;
  first_broken?: AuditChainBreak;
}

/**
 * Checks a chain fed one event at a time in seq order, so a caller can stream the table in
 * batches and never hold it: seq must continue without gap from 1, prev_hash must be the previous
 * event's hash (64 zeros for the first), and hash must be recomputable from the fields.
 */
export class AuditChainVerifier {
  private expectedSeq = 1;
  private prevHash = AUDIT_GENESIS_HASH;
  private count = 0;
  private broken?: AuditChainBreak;

  /** Checks the next event; returns the break when this event is the first broken link. */
  push(event: AuditEventDto): AuditChainBreak | undefined {
    if (this.broken) return undefined;
    this.count += 1;
    const reason = this.reasonFor(event);
    this.expectedSeq = event.seq + 1;
    this.prevHash = event.hash;
    if (reason) this.broken = { seq: event.seq, event_id: event.event_id, reason };
    return this.broken;
  }

  private reasonFor(event: AuditEventDto): AuditChainBreakReason | undefined {
    if (event.seq !== this.expectedSeq) return 'seq_gap';
    if (event.prev_hash !== this.prevHash) return 'prev_hash_mismatch';
    if (auditEventHash(event.prev_hash, event) !== event.hash) return 'hash_mismatch';
    return undefined;
  }

  get done(): boolean {
    return this.broken !== undefined;
  }

  result(): AuditChainVerification {
    return this.broken
      ? { ok: false, checked: this.count, first_broken: this.broken }
      : { ok: true, checked: this.count };
  }
}
