import { randomUUID } from 'node:crypto';
import { SqlExecutor } from '@certlane/platform';
import { CounterTick, rowsOf, tickCounters } from '../sql/rows';

export interface ScepProfileRow {
  id: string;
  path_id: string;
  certificate_profile_id: string | null;
  issuer_id: string | null;
  ra_certificate_pem: string;
  /** The RA key's PKCS#8, sealed: opened only by the SCEP server. */
  ra_key_sealed: string;
  ra_validity_days: number;
  challenge_password_hash: string | null;
  legacy_algorithms: boolean;
  approval_required: boolean;
  mtls_enabled: boolean;
  trust_bundle_path: string | null;
  trust_bundle_pem: string | null;
  /** What `/scep-mtls` does with a client certificate whose revocation status is unknown. */
  client_revocation_unknown: 'soft-fail' | 'hard-fail';
  mdm_enabled: boolean;
  mdm_audience: string | null;
  mdm_trust_path: string | null;
  mdm_trust_pem: string | null;
  mdm_trust_loaded_at: Date | null;
  device_state_url: string | null;
  rate_limit_per_minute: number;
  owner: string | null;
  team: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The columns a create or an update writes (all but id, path_id and the timestamps). */
export type ScepProfileSettingsRow = Omit<ScepProfileRow, 'id' | 'path_id' | 'created_at' | 'updated_at'>;

const SETTINGS: readonly (keyof ScepProfileSettingsRow)[] = [
  'certificate_profile_id',
  'issuer_id',
  'ra_certificate_pem',
  'ra_key_sealed',
  'ra_validity_days',
  'challenge_password_hash',
  'legacy_algorithms',
  'approval_required',
  'mtls_enabled',
  'trust_bundle_path',
  'trust_bundle_pem',
  'client_revocation_unknown',
  'mdm_enabled',
  'mdm_audience',
  'mdm_trust_path',
  'mdm_trust_pem',
  'mdm_trust_loaded_at',
  'device_state_url',
  'rate_limit_per_minute',
  'owner',
  'team',
];
const COLUMNS = ['id', 'path_id', ...SETTINGS, 'created_at', 'updated_at'].join(', ');

/** SCEP profiles (ADR 0059) and their per-profile outcome counters (spec 6.4). */
export class ScepProfileStore {
  constructor(private readonly executor: SqlExecutor) {}

  /** The new profile, or null when its path id is taken. */
  async create(id: string, pathId: string, settings: ScepProfileSettingsRow): Promise<ScepProfileRow | null> {
    const placeholders = SETTINGS.map((_, i) => `$${i + 3}`).join(', ');
    const [row] = await rowsOf<ScepProfileRow>(
      this.executor,
      `INSERT INTO scep_profiles (id, path_id, ${SETTINGS.join(', ')}) VALUES ($1, $2, ${placeholders})
       ON CONFLICT (path_id) DO NOTHING RETURNING ${COLUMNS}`,
      [id, pathId, ...SETTINGS.map((column) => settings[column])],
    );
    return row ?? null;
  }

  static newId(): string {
    return randomUUID();
  }

  async get(id: string, forUpdate = false): Promise<ScepProfileRow | null> {
    const [row] = await rowsOf<ScepProfileRow>(
      this.executor,
      `SELECT ${COLUMNS} FROM scep_profiles WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return row ?? null;
  }

  async byPathId(pathId: string, forUpdate = false): Promise<ScepProfileRow | null> {
    const [row] = await rowsOf<ScepProfileRow>(
      this.executor,
      `SELECT ${COLUMNS} FROM scep_profiles WHERE path_id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
      [pathId],
    );
    return row ?? null;
  }

  async list(): Promise<ScepProfileRow[]> {
    return rowsOf<ScepProfileRow>(this.executor, `SELECT ${COLUMNS} FROM scep_profiles ORDER BY path_id`);
  }

  async update(id: string, settings: ScepProfileSettingsRow): Promise<ScepProfileRow | null> {
    const assignments = SETTINGS.map((column, i) => `${column} = $${i + 2}`).join(', ');
    const [row] = await rowsOf<ScepProfileRow>(
      this.executor,
      `UPDATE scep_profiles SET ${assignments}, updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, ...SETTINGS.map((column) => settings[column])],
    );
    return row ?? null;
  }

  /** Replaces the MDM anchors in use after a successful read of the profile's trust file. */
  async setMdmTrust(id: string, pem: string): Promise<ScepProfileRow> {
    const [row] = await rowsOf<ScepProfileRow>(
      this.executor,
      `UPDATE scep_profiles SET mdm_trust_pem = $2, mdm_trust_loaded_at = now(), updated_at = now()
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, pem],
    );
    return row;
  }

  /** Whether a profile was deleted; its counters, transactions and used challenges go with it. */
  async delete(id: string): Promise<boolean> {
    const rows = await rowsOf<{ id: string }>(
      this.executor,
      'DELETE FROM scep_profiles WHERE id = $1 RETURNING id',
      [id],
    );
    return rows.length > 0;
  }

  /** Adds one to a profile's counter of an outcome, atomically across replicas. */
  async tick(profileId: string, outcome: string): Promise<void> {
    await this.executor.query(
      `INSERT INTO scep_profile_counters (profile_id, outcome, count) VALUES ($1, $2, 1)
       ON CONFLICT (profile_id, outcome) DO UPDATE SET count = scep_profile_counters.count + 1`,
      [profileId, outcome],
    );
  }

  /** Adds several counts to counters in one statement (see `tickCounters`); the new totals. */
  tickMany(ticks: readonly CounterTick[]): Promise<number[]> {
    return tickCounters(this.executor, 'scep_profile_counters', ticks);
  }

  /**
   * Counts one request of a principal in the current minute of a profile and returns the count so
   * far (this one included), atomically across replicas; windows older than an hour are dropped.
   */
  async countRequest(profileId: string, principal: string, windowStart: Date): Promise<number> {
    const [row] = await rowsOf<{ count: number }>(
      this.executor,
      `INSERT INTO scep_rate_windows (profile_id, principal, window_start, count) VALUES ($1, $2, $3, 1)
       ON CONFLICT (profile_id, principal, window_start) DO UPDATE SET count = scep_rate_windows.count + 1
       RETURNING count`,
      [profileId, principal, windowStart],
    );
    await this.executor.query(
      "DELETE FROM scep_rate_windows WHERE window_start < $1::timestamptz - interval '1 hour'",
      [windowStart],
    );
    return row.count;
  }

  /** Every counter, by profile id then outcome. */
  async counters(): Promise<Map<string, Map<string, number>>> {
    const rows = await rowsOf<{ profile_id: string; outcome: string; count: string }>(
      this.executor,
      'SELECT profile_id, outcome, count FROM scep_profile_counters',
    );
    const byProfile = new Map<string, Map<string, number>>();
    for (const row of rows) {
      const counters = byProfile.get(row.profile_id) ?? new Map<string, number>();
      counters.set(row.outcome, Number(row.count));
      byProfile.set(row.profile_id, counters);
    }
    return byProfile;
  }
}
