import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CERTLANE_CONFIG, CertlaneConfig, CertlaneLogger, LOGGER } from '@certlane/platform';
import { PolicyEnforcer } from './policy-enforcer';
import { UnitOfWork } from '@certlane/issuance-data-access';

/** Certificates per sweep transaction. */
export const POLICY_SWEEP_BATCH = 1000;
const LOCK_KEY = 'certlane:issuance:policy-sweep';

export interface PolicySweepOutcome {
  certificates: number;
  violations: number;
}

/**
 * Re-evaluates every certificate (Archived ones excepted) against the enabled rules every
 * SERVICE_POLICY_SWEEP_INTERVAL, and soon after a rule changes. One replica sweeps at a time (a
 * session advisory lock); the walk is a keyset over ids in batches of POLICY_SWEEP_BATCH, each its
 * own transaction, so memory stays flat. Rows a writer holds are skipped: it evaluates them itself.
 */
@Injectable()
export class PolicySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private soon?: NodeJS.Timeout;
  private running = false;
  private again = false;

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly enforcer: PolicyEnforcer,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.runLogged(), this.config.policySweepIntervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.soon) clearTimeout(this.soon);
  }

  /** A rule changed: sweep shortly (coalesced), so existing certificates get its verdict. */
  requestSoon(): void {
    if (this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      void this.runLogged();
    }, 200);
    this.soon.unref();
  }

  private async runLogged(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    try {
      const outcome = await this.sweep();
      if (outcome) this.logger.info(outcome, 'policy sweep done');
    } catch (error) {
      this.logger.warn({ err: error }, 'policy sweep failed; the next one retries');
    }
    if (this.again) {
      this.again = false;
      this.requestSoon();
    }
  }

  /** One sweep; null when another replica (or this one) holds the lock. */
  async sweep(): Promise<PolicySweepOutcome | null> {
    if (this.running) return null;
    this.running = true;
    const runner = this.enforcer.repository.dataSource.createQueryRunner();
    try {
      await runner.connect();
      const [{ locked }]: { locked: boolean }[] = await runner.query(
        'SELECT pg_try_advisory_lock(hashtext($1)) AS locked',
        [LOCK_KEY],
      );
      if (!locked) return null;
      try {
        return await this.walk();
      } finally {
        await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [LOCK_KEY]);
      }
    } finally {
      await runner.release();
      this.running = false;
    }
  }

  /** The lock is held on its own session; the batches run on pooled connections. */
  private async walk(): Promise<PolicySweepOutcome> {
    const repository = this.enforcer.repository;
    const outcome: PolicySweepOutcome = { certificates: 0, violations: 0 };
    let after = '';
    for (;;) {
      const end = await repository.batchEnd(after, POLICY_SWEEP_BATCH);
      const anyRule = await this.unitOfWork.run(async (tx) => {
        // Read per batch under lock: a rule changed during the walk applies from the next batch.
        const rules = await repository.lockEnabledRules(tx);
        if (rules.length === 0) return false;
        const subjects = await repository.subjectBatch(tx, after, end);
        outcome.certificates += subjects.length;
        outcome.violations += await this.enforcer.write(tx, subjects, rules);
        return true;
      });
      if (!anyRule) return outcome;
      if (end === null) return outcome;
      after = end;
    }
  }
}
