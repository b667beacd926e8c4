/** Where the durable consumer of revocation events stands (MessageBus.consumerProgress). */
export interface RevocationsProgress {
  /** Position of the newest revocation event published. */
  published: number;
  /** Position up to which the consumer has recorded every revocation event in the table. */
  acknowledged: number;
}

/**
 * May this replica trust the revocations table for a serial it lists no revocation for (and so
 * answer `good`)? Only when every revocation event it did not hear on the fan-out is in the table.
 *
 * The fan-out is at most once and replays nothing: events published before the replica subscribed
 * (it starts) or while its connection was down (it reconnects) were never heard. They are in the
 * stream, and the durable consumer writes them to the table one at a time, possibly far behind.
 * So the gate closes at start and on reconnect; the first reading of the consumer's progress after
 * that fixes the barrier (the newest event published by then: later ones are heard), and the gate
 * opens once the consumer has acknowledged up to it. Readings that started before the gate last
 * closed are ignored (`epoch`). Nothing here is on the request path but `open`.
 */
export class BacklogGate {
  private barrier?: number;
  private isOpen = false;
  private closings = 0;

  /** Closed: until a reading since the last closing shows the consumer past its barrier. */
  get open(): boolean {
    return this.isOpen;
  }

  /** Counts closings: pass it to `observe` with the reading taken after it. */
  get epoch(): number {
    return this.closings;
  }

  /** Events may have been published that this replica did not hear (it starts, or reconnected). */
  close(): void {
    this.closings++;
    this.isOpen = false;
    this.barrier = undefined;
  }

  /**
   * A reading of the consumer's progress, taken after the gate's `epoch` was `epoch`; true when
   * the gate is open afterwards.
   */
  observe(progress: RevocationsProgress, epoch: number): boolean {
    if (epoch !== this.closings || this.isOpen) return this.isOpen;
    this.barrier ??= progress.published;
    if (progress.acknowledged >= this.barrier) {
      this.isOpen = true;
      this.barrier = undefined;
    }
    return this.isOpen;
  }

  /** The position the consumer must reach, once known (for logs). */
  get waitingFor(): number | undefined {
    return this.barrier;
  }
}
