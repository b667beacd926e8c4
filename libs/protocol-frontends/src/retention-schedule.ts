import { nextRetentionPass, retentionCutoff } from '@certlane/protocol-frontends-domain';

/** A purge pass's result: whatever it counted, and whether a step filled its batch. */
export interface RetentionPass {
  filledABatch: boolean;
}

/**
 * When a retention purge runs (ADR 0073, ADR 0074): at the first sweep, then each interval, or at
 * the next sweep while a backlog is left; never when the retention is 0 days.
 */
export class RetentionSchedule<P extends RetentionPass> {
  private dueAt = new Date(0);

  constructor(
    private readonly policy: { days: number; intervalMs: number },
    private readonly purge: (cutoff: Date) => Promise<P>,
    private readonly report: (pass: P, cutoff: Date) => void,
  ) {}

  async runWhenDue(now: Date): Promise<void> {
    const cutoff = retentionCutoff(now, this.policy.days);
    if (!cutoff || now < this.dueAt) return;
    const pass = await this.purge(cutoff);
    this.dueAt = nextRetentionPass(now, pass, this.policy.intervalMs);
    this.report(pass, cutoff);
  }
}
