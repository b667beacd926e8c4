import { PublicationStore } from '../publication/publication-store';
import { crlKey } from '../publication/published-keys';

/** A stored CRL, as far as its file is concerned. */
export interface CrlFile {
  issuer_id: string;
  ca_id: string;
  crl_number: bigint;
  der: Buffer;
}

/**
 * Whether a CRL numbered `candidate` should replace the file this process last wrote for its CA
 * (`written`, undefined when none): only a higher number does, so a slow write of an older CRL
 * never lands after a newer one.
 */
export function shouldWriteCrl(written: bigint | undefined, candidate: bigint): boolean {
  return written === undefined || candidate > written;
}

/**
 * Writes CRL files to the publication store (ADR 0038, amended for review L5): the writes of one
 * CA are queued one after another and each is skipped unless its number is above the one this
 * process last wrote, so within a process the file only moves forward. Across replicas the
 * database decides: the sweep calls `reconcile` with the numbers stored in crl_state, and every
 * CA whose stored CRL is newer than what this process wrote is written again. So a replica with
 * its own directory gets the CRLs other replicas built, and a shared directory that a slower
 * replica set back to an older CRL is put right by that replica's next sweep. A failed write is
 * not recorded, so the next reconcile tries it again.
 */
export class CrlFileWriter {
  private readonly written = new Map<string, bigint>();
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly store: PublicationStore | undefined) {}

  get enabled(): boolean {
    return this.store !== undefined;
  }

  /** The number of the CRL this process last wrote for a CA. */
  writtenNumber(issuerId: string, caId: string): bigint | undefined {
    return this.written.get(crlKey(issuerId, caId));
  }

  /** Writes the CRL unless a CRL with the same or a higher number was written; true when written. */
  write(crl: CrlFile): Promise<boolean> {
    const store = this.store;
    if (!store) return Promise.resolve(false);
    const key = crlKey(crl.issuer_id, crl.ca_id);
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        if (!shouldWriteCrl(this.written.get(key), crl.crl_number)) return false;
        await store.put(key, crl.der);
        this.written.set(key, crl.crl_number);
        return true;
      });
    this.queues.set(key, next);
    void next
      .catch(() => undefined)
      .finally(() => {
        if (this.queues.get(key) === next) this.queues.delete(key);
      });
    return next;
  }

  /**
   * The CAs, among those whose stored CRL numbers are given, whose file this process has not
   * written at that number or above: the ones to read and write again.
   */
  behind<T extends { issuer_id: string; ca_id: string; crl_number: bigint }>(stored: readonly T[]): T[] {
    return stored.filter((s) => shouldWriteCrl(this.writtenNumber(s.issuer_id, s.ca_id), s.crl_number));
  }
}
