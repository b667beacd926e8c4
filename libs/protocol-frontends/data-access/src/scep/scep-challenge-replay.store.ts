import { SqlExecutor } from '@certlane/platform';
import { rowsOf } from '../sql/rows';

/**
 * The ids of MDM-signed challenges already used (ADR 0059): one row per profile and `jti`, kept
 * until the token expires, so a challenge replayed to any replica is refused.
 */
export class ScepChallengeReplayStore {
  constructor(private readonly executor: SqlExecutor) {}

  /** True the first time a challenge id is used on a profile, false on every replay. */
  async claim(profileId: string, jti: string, expiresAt: Date): Promise<boolean> {
    await this.executor.query('DELETE FROM scep_mdm_challenges_used WHERE expires_at < now()');
    const rows = await rowsOf<{ jti: string }>(
      this.executor,
      `INSERT INTO scep_mdm_challenges_used (profile_id, jti, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING RETURNING jti`,
      [profileId, jti, expiresAt],
    );
    return rows.length > 0;
  }
}
