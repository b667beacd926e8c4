import { randomUUID } from 'node:crypto';
import { SqlExecutor } from '@certlane/platform';
import { CounterTick, rowsOf, tickCounters } from '../sql/rows';

export interface EstProfileRow {
  id: string;
  path_id: string;
  certificate_profile_id: string | null;
  issuer_id: string | null;
  auth_methods: ('basic' | 'mtls')[];
  basic_username: string | null;
  basic_password_hash: string | null;
  trust_bundle_path: string | null;
  trust_bundle_pem: string | null;
  trust_loaded_at: Date | null;
  serverkeygen_enabled: boolean;
  channel_binding_required: boolean;
  /** RFC 7030 4.4.2: serverkeygen may answer the key unencrypted (TLS only) when the CSR asks for no encryption. */
  serverkeygen_unencrypted_allowed: boolean;
  /** A mutual-TLS client certificate whose revocation status cannot be learned: accepted or refused. */
  client_revocation_unknown: 'soft-fail' | 'hard-fail';
  rate_limit_per_minute: number;
  owner: string | null;
  team: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The columns a create or an update writes (all but id, path_id and the timestamps). */
export type EstProfileSettingsRow = Omit<EstProfileRow, 'id' | 'path_id' | 'created_at' | 'updated_at'>;

const SETTINGS: readonly (keyof EstProfileSettingsRow)[] = [
  'certificate_profile_id',
  'issuer_id',
  'auth_methods',
  'basic_username',
  'basic_password_hash',
  'trust_bundle_path',
  'trust_bundle_pem',
  'trust_loaded_at',
  'serverkeygen_enabled',
  'channel_binding_required',
  'serverkeygen_unencrypted_allowed',
  'client_revocation_unknown',
  'rate_limit_per_minute',
  'owner',
  'team',
];
const COLUMNS = ['id', 'path_id', ...SETTINGS, 'created_at', 'updated_at'].join(', ');

/** EST profiles (ADR 0058) and their per-profile outcome counters (spec 6.4). */
export class EstProfileStore {
  constructor(private readonly executor: SqlExecutor) {}

  /** The new profile, or null when its path id is taken. */
  async create(pathId: string, settings: EstProfileSettingsRow): Promise<EstProfileRow | null> {
    const values = SETTINGS.map((column) => settings[column]);
    const placeholders = SETTINGS.map((_, i) => `$${i + 3}`).join(', ');
    const [row] = await rowsOf<EstProfileRow>(
      this.executor,
      `INSERT INTO est_profiles (id, path_id, ${SETTINGS.join(', ')}) VALUES ($1, $2, ${placeholders})
       ON CONFLICT (path_id) DO NOTHING RETURNING ${COLUMNS}`,
      [randomUUID(), pathId, ...values],
    );
    return row ?? null;
  }

  async get(id: string, forUpdate = false): Promise<EstProfileRow | null> {
    const [row] = await rowsOf<EstProfileRow>(
      this.executor,
      `SELECT ${COLUMNS} FROM est_profiles WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return row ?? null;
  }

  async byPathId(pathId: string): Promise<EstProfileRow | null> {
    const [row] = await rowsOf<EstProfileRow>(
      this.executor,
      `SELECT ${COLUMNS} FROM est_profiles WHERE path_id = $1`,
      [pathId],
    );
    return row ?? null;
  }

  /** The profiles of several path ids in one read, in the order given (null where none). */
  async byPathIds(pathIds: readonly string[]): Promise<(EstProfileRow | null)[]> {
    const rows = await rowsOf<EstProfileRow>(
      this.executor,
      `SELECT ${COLUMNS} FROM est_profiles WHERE path_id = ANY($1::text[])`,
      [pathIds],
    );
    return pathIds.map((pathId) => rows.find((row) => row.path_id === pathId) ?? null);
  }

  async list(): Promise<EstProfileRow[]> {
    return rowsOf<EstProfileRow>(this.executor, `SELECT ${COLUMNS} FROM est_profiles ORDER BY path_id`);
  }

  async update(id: string, settings: EstProfileSettingsRow): Promise<EstProfileRow | null> {
    const assignments = SETTINGS.map((column, i) => `${column} = $${i + 2}`).join(', ');
    const [row] = await rowsOf<EstProfileRow>(
      this.executor,
      `UPDATE est_profiles SET ${assignments}, updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, ...SETTINGS.map((column) => settings[column])],
    );
    return row ?? null;
  }

  /** Replaces the anchors in use after a successful read of the profile's bundle file. */
  async setTrust(id: string, pem: string): Promise<void> {
    await this.executor.query(
      'UPDATE est_profiles SET trust_bundle_pem = $2, trust_loaded_at = now(), updated_at = now() WHERE id = $1',
      [id, pem],
    );
  }

  /** Whether a profile was deleted; its counters go with it. */
  async delete(id: string): Promise<boolean> {
    const rows = await rowsOf<{ id: string }>(
      this.executor,
      'DELETE FROM est_profiles WHERE id = $1 RETURNING id',
      [id],
    );
    return rows.length > 0;
  }

  /** Adds one to a profile's counter of an outcome, atomically across replicas. */
  async tick(profileId: string, outcome: string): Promise<void> {
    await this.executor.query(
      `INSERT INTO est_profile_counters (profile_id, outcome, count) VALUES ($1, $2, 1)
       ON CONFLICT (profile_id, outcome) DO UPDATE SET count = est_profile_counters.count + 1`,
      [profileId, outcome],
    );
  }

  /** Adds several counts to counters in one statement (see `tickCounters`); the new totals. */
  tickMany(ticks: readonly CounterTick[]): Promise<number[]> {
    return tickCounters(this.executor, 'est_profile_counters', ticks);
  }

  /**
   * Counts `requests` requests of a principal in the current minute of a profile and returns the
   * count so far (these included), atomically across replicas; windows older than an hour are
   * dropped when a window starts.
   */
  async countRequest(profileId: string, principal: string, windowStart: Date, requests = 1): Promise<number> {
    const [row] = await rowsOf<{ count: number }>(
      this.executor,
      `INSERT INTO est_rate_windows (profile_id, principal, window_start, count) VALUES ($1, $2, $3, $4)
       ON CONFLICT (profile_id, principal, window_start) DO UPDATE SET count = est_rate_windows.count + $4
       RETURNING count`,
      [profileId, principal, windowStart, requests],
    );
    // The first requests of a principal's window clear windows older than an hour (not every request).
    if (Number(row.count) === requests)
      await this.executor.query(
        "DELETE FROM est_rate_windows WHERE window_start < $1::timestamptz - interval '1 hour'",
        [windowStart],
      );
    return Number(row.count);
  }

  /** Every counter, by profile id then outcome. */
  async counters(): Promise<Map<string, Map<string, number>>> {
    const rows = await rowsOf<{ profile_id: string; outcome: string; count: string }>(
      this.executor,
      'SELECT profile_id, outcome, count FROM est_profile_counters',
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
