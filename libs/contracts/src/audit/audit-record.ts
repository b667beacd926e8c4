/** Spec 6.1: every audit event belongs to one category; cert_lifecycle is the default. */
export const AUDIT_CATEGORIES = ['cert_lifecycle', 'auth', 'config'] as const;
export type AuditCategory = (typeof AUDIT_CATEGORIES)[number];

export const AUDIT_OUTCOMES = ['success', 'failure', 'denied'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/**
 * What a service records for one mutating operation. It travels in the service's outbox as the
 * event `<service>.v1.audit.recorded`; the auth service stores it in the append-only audit log.
 * `details` must never hold a secret (keys, hashes, passwords, private keys).
 */
export interface AuditRecord {
  /** Action code, e.g. `bootstrap.consume`, `auth.session_revoked`, `renewal_policy.created`. */
  action: string;
  event_category: AuditCategory;
  /** Who did it: the actor id of the request, or `system` for loops and startup work. */
  actor_id: string;
  /** Kind of the resource touched, e.g. `api_key`, `role`, `renewal_policy`. */
  resource_type: string;
  resource_id: string;
  outcome: AuditOutcome;
  /** The request id of the HTTP call that caused it, when there was one. */
  request_id?: string;
  details?: Record<string, unknown>;
}

/** An audit event as stored and served: the record plus its place in the hash chain. */
export interface AuditEventDto extends AuditRecord {
  /** Position in the chain, 1-based, strictly increasing. */
  seq: number;
  /** Id of the event envelope that carried it (deduplicates redeliveries). */
  event_id: string;
  /** Service that recorded it. */
  service: string;
  occurred_at: string;
  recorded_at: string;
  prev_hash: string;
  hash: string;
}
