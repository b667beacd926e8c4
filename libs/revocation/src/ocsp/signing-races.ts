interface InFlight {
  signatures: number;
  revocations: number;
}

/**
 * Revocations that arrive while a response about the same serial is being signed. Such a
 * signature may have read the status before the revocation, so it must be signed again rather
 * than cached. Only the serials with a signature in flight are tracked: memory is bounded by
 * the signatures under way, and a revocation of one serial (or an issuance) never voids the
 * signature of another.
 */
export class SigningRaces {
  private readonly inFlight = new Map<string, InFlight>();

  /** Serials with a signature under way. */
  get size(): number {
    return this.inFlight.size;
  }

  /**
   * A signature about `key` starts. Call the function it returns once, when the signature is
   * done (or failed): it tells whether `key` was revoked meanwhile.
   */
  start(key: string): () => boolean {
    let slot = this.inFlight.get(key);
    if (!slot) this.inFlight.set(key, (slot = { signatures: 0, revocations: 0 }));
    slot.signatures++;
    const seen = slot.revocations;
    let ended = false;
    return () => {
      if (!ended) {
        ended = true;
        if (--slot.signatures === 0) this.inFlight.delete(key);
      }
      return slot.revocations !== seen;
    };
  }

  /** `key` was revoked (or released): signatures about it under way are stale. */
  revoked(key: string): void {
    const slot = this.inFlight.get(key);
    if (slot) slot.revocations++;
  }
}
