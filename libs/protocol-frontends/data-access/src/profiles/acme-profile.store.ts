import { SqlExecutor } from '@certlane/platform';
import { rowsOf } from '../sql/rows';

export interface AcmeProfileSettingsRow {
  description: string;
  issuer_id: string | null;
  certificate_profile_id: string | null;
  validity_days: number | null;
  allow_ip: boolean;
  allowed_domains: string[];
  denied_domains: string[];
  external_account_required: boolean;
  new_orders_per_hour: number;
  owner: string | null;
  team: string | null;
  caa_identities: string[] | null;
  dns_persist_01: boolean;
  allow_requested_validity: boolean;
}

export interface AcmeProfileRow extends AcmeProfileSettingsRow {
  id: string;
  created_at: Date;
  updated_at: Date;
}

const SETTINGS = [
  'description',
  'issuer_id',
  'certificate_profile_id',
  'validity_days',
  'allow_ip',
  'allowed_domains',
  'denied_domains',
  'external_account_required',
  'new_orders_per_hour',
  'owner',
  'team',
  'caa_identities',
  'dns_persist_01',
  'allow_requested_validity',
] as const;
const COLUMNS = `id, ${SETTINGS.join(', ')}, created_at, updated_at`;

/** ACME profiles (issue 19 point 7; ADR 0060), by their path id. */
export class AcmeProfileStore {
  constructor(private readonly executor: SqlExecutor) {}

  async list(): Promise<AcmeProfileRow[]> {
    return rowsOf<AcmeProfileRow>(this.executor, `SELECT ${COLUMNS} FROM acme_profiles ORDER BY id`);
  }

  async get(id: string): Promise<AcmeProfileRow | null> {
    const rows = await rowsOf<AcmeProfileRow>(
      this.executor,
      `SELECT ${COLUMNS} FROM acme_profiles WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** Null when a profile with this id exists. */
  async create(id: string, settings: AcmeProfileSettingsRow): Promise<AcmeProfileRow | null> {
    const rows = await rowsOf<AcmeProfileRow>(
      this.executor,
      `INSERT INTO acme_profiles (id, ${SETTINGS.join(', ')})
       VALUES ($1, ${SETTINGS.map((_, i) => `$${i + 2}`).join(', ')})
       ON CONFLICT (id) DO NOTHING RETURNING ${COLUMNS}`,
      [id, ...SETTINGS.map((key) => settings[key])],
    );
    return rows[0] ?? null;
  }

  async update(id: string, settings: AcmeProfileSettingsRow): Promise<AcmeProfileRow | null> {
    const rows = await rowsOf<AcmeProfileRow>(
      this.executor,
      `UPDATE acme_profiles SET ${SETTINGS.map((key, i) => `${key} = $${i + 2}`).join(', ')}, updated_at = now()
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, ...SETTINGS.map((key) => settings[key])],
    );
    return rows[0] ?? null;
  }

  async delete(id: string): Promise<boolean> {
    const rows = await rowsOf<{ id: string }>(
      this.executor,
      'DELETE FROM acme_profiles WHERE id = $1 RETURNING id',
      [id],
    );
    return rows.length === 1;
  }
}
