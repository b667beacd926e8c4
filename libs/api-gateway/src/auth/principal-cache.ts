import { createHash } from 'node:crypto';
import { Principal } from '@certlane/contracts';

interface Entry {
  principal: Principal;
  /** Sessions only: the SHA-256 (hex) of the session's CSRF token. */
  csrfTokenHash?: string;
  expiresAt: number;
}

/**
 * Recently authenticated API keys and session cookies, keyed by the SHA-256 of the credential
 * (the credential itself is not kept), for a few seconds: most requests then skip the round
 * trip to the auth service. A deleted or rotated key, or a revoked session, is dropped when its
 * revocation event arrives, and at the latest after the TTL. An entry never outlives the
 * credential: a key with `expires_at` is refused from that millisecond on, whatever the TTL.
 *
 * Agent keys (actor `agent.<id>` holding only r-agent, never admin) live longer (`agentTtlMs`):
 * an agent comes back every 20-30 s, past the short TTL, so a fleet would otherwise ask auth on
 * every request. Their revocation (retirement deletes the key) arrives as the same event.
 */
export class PrincipalCache {
  private revocations = 0;
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs = 5000,
    private readonly maxEntries = 100_000,
    private readonly agentTtlMs = ttlMs,
  ) {}

  static keyOf(token: string): string {
    return createHash('sha256').update(token, 'utf8').digest('hex');
  }

  get(keyHash: string, now = Date.now()): Principal | undefined {
    return this.lookup(keyHash, now)?.principal;
  }

  /** The principal and, for a session, its CSRF token hash. */
  lookup(keyHash: string, now = Date.now()): Omit<Entry, 'expiresAt'> | undefined {
    const entry = this.entries.get(keyHash);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(keyHash);
      return undefined;
    }
    return { principal: entry.principal, csrfTokenHash: entry.csrfTokenHash };
  }

  /**
   * Counts the revocations this cache has been told of. An answer the auth service gave before a
   * revocation event arrived may be about the revoked credential: `set` with the epoch read
   * before asking does not cache it (else a revoked agent key would live on for the agent TTL).
   */
  get epoch(): number {
    return this.revocations;
  }

  /** Forgets a revoked session. */
  dropSession(sessionId: string): void {
    this.revocations++;
    for (const [hash, entry] of this.entries) {
      if (entry.principal.session_id === sessionId) this.entries.delete(hash);
    }
  }

  /** Forgets every entry of a stored key (after it was deleted or rotated). */
  dropKey(keyId: string): void {
    this.revocations++;
    for (const [hash, entry] of this.entries) {
      if (entry.principal.key_id === keyId) this.entries.delete(hash);
    }
  }

  /** Forgets every entry of an actor (its grants changed). */
  dropActor(actorId: string): void {
    this.revocations++;
    for (const [hash, entry] of this.entries) {
      if (entry.principal.actor_id === actorId) this.entries.delete(hash);
    }
  }

  /** Forgets everything (a role's permissions changed). */
  clear(): void {
    this.revocations++;
    this.entries.clear();
  }

  /**
   * Caches the principal for the TTL, or until its credential expires if that comes first.
   * Returns false, caching nothing, when the credential has already expired: the caller must not
   * use the principal either (it was valid when the auth service looked, not any more). With
   * `askedAtEpoch` (the epoch read before asking the auth service), an answer overtaken by a
   * revocation event is not cached: it serves its own request only, as if answered just before
   * the revocation, and the next request asks again.
   */
  set(
    keyHash: string,
    principal: Principal,
    now = Date.now(),
    csrfTokenHash?: string,
    askedAtEpoch?: number,
  ): boolean {
    // Re-inserted at the end, so eviction takes the entry set longest ago.
    this.entries.delete(keyHash);
    const credentialExpiresAt = credentialExpiry(principal);
    if (credentialExpiresAt <= now) return false;
    if (askedAtEpoch !== undefined && askedAtEpoch !== this.revocations) return true;
    const ttl = isAgentPrincipal(principal) ? this.agentTtlMs : this.ttlMs;
    const expiresAt = Math.min(now + ttl, credentialExpiresAt);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(keyHash, { principal, csrfTokenHash, expiresAt });
    return true;
  }
}

/** The instant (ms) the principal's credential expires: Infinity when it does not expire. */
function credentialExpiry(principal: Principal): number {
  if (principal.expires_at === undefined) return Infinity;
  const expiry = Date.parse(principal.expires_at);
  // Fail closed: an unreadable expiry counts as already past, never as "no expiry".
  return Number.isNaN(expiry) ? -Infinity : expiry;
}

/** An agent's own key: the agent actor convention (ADR 0026) with nothing but the agent role. */
export function isAgentPrincipal(principal: Principal): boolean {
  return (
    principal.actor_type === 'api-key' &&
    principal.actor_id.startsWith('agent.') &&
    !principal.admin &&
    principal.role_ids.length === 1 &&
    principal.role_ids[0] === 'r-agent' &&
    Object.keys(principal.scoped_permissions ?? {}).length === 0
  );
}
