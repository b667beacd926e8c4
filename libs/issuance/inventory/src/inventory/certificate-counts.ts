import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CertlaneLogger, LOGGER, PeriodicTask } from '@certlane/platform';
import { UnitOfWork } from '@certlane/issuance-data-access';

/** How often the deltas of certificate_count_deltas are folded into one row per key. */
export const COUNT_COMPACTION_INTERVAL_MS = 10_000;
const COMPACTION_LOCK = 'certlane:issuance:certificate-count-compaction';

/**
 * Folds every (dimension, value) that has more than one delta row into one row, in one statement
 * (one snapshot: deltas committed meanwhile are neither deleted nor lost).
 */
export const COMPACT_CERTIFICATE_COUNTS = `
WITH keys AS (
  SELECT dimension, value FROM certificate_count_deltas GROUP BY dimension, value HAVING count(*) > 1
), folded AS (
  DELETE FROM certificate_count_deltas d USING keys k
  WHERE d.dimension = k.dimension AND d.value = k.value
  RETURNING d.dimension, d.value, d.delta
)
INSERT INTO certificate_count_deltas (dimension, value, delta)
SELECT dimension, value, sum(delta) FROM folded GROUP BY dimension, value HAVING sum(delta) <> 0`;

/**
 * Keeps the per-filter certificate counts (migration 0005, written by triggers) cheap to read:
 * every COUNT_COMPACTION_INTERVAL_MS one replica (advisory lock) compacts their deltas.
 */
@Injectable()
export class CertificateCountCompactor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly loop = new PeriodicTask(() => this.compactLogged(), COUNT_COMPACTION_INTERVAL_MS);

  constructor(
    private readonly unitOfWork: UnitOfWork,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {}

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  /** One compaction; false when another replica held the lock. */
  compact(): Promise<boolean> {
    return this.unitOfWork.run(async (manager) => {
      const [{ locked }] = await manager.query('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked', [
        COMPACTION_LOCK,
      ]);
      if (locked) await manager.query(COMPACT_CERTIFICATE_COUNTS);
      return locked as boolean;
    });
  }

  private async compactLogged(): Promise<void> {
    try {
      await this.compact();
    } catch (error) {
      this.logger.warn({ err: error }, 'certificate count compaction failed; will retry');
    }
  }
}
