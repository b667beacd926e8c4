/** What is stored under an Idempotency-Key that a new attempt finds (ADR 0045). */
export interface StoredIdempotencyKey {
  fingerprint: string;
  /** The first attempt's answer status; null while no attempt has answered. */
  status: number | null;
  /** Whether the attempt without an answer still holds the key (its lease has not run out). */
  held: boolean;
}

/**
 * What a new attempt with a key already stored does (draft-ietf-httpapi-idempotency-key-header):
 * `reused` (another payload: 422), `replay` (answer the stored answer), `in-use` (the first attempt
 * is still running: 409), or `take-over` (the first attempt was lost without an answer: run again).
 */
export function idempotencyDecision(
  stored: StoredIdempotencyKey,
  fingerprint: string,
): 'reused' | 'replay' | 'in-use' | 'take-over' {
  if (stored.fingerprint !== fingerprint) return 'reused';
  if (stored.status !== null) return 'replay';
  return stored.held ? 'in-use' : 'take-over';
}
