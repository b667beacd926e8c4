import { AcmeProfileDto } from '@certlane/contracts';
import { SqlExecutor } from '@certlane/platform';
import { AcmeProfileRow, AcmeProfileStore } from '@certlane/protocol-frontends-data-access';
import { AcmeProfileSettings } from '@certlane/protocol-frontends-domain';
import { DEFAULT_ACME_PROFILE } from './acme-urls';

/** What the `default` profile is while no row of that id is stored: the SERVICE_ACME_* settings. */
export interface DefaultProfileSettings {
  issuerId?: string;
  externalAccountRequired?: boolean;
  newOrdersPerHour?: number;
  /** SERVICE_ACME_CAA_IDENTITIES: what profiles without their own inherit. */
  caaIdentities?: readonly string[];
}

export function defaultProfile(defaults: DefaultProfileSettings): AcmeProfileSettings {
  return {
    id: DEFAULT_ACME_PROFILE,
    description: 'The default profile',
    issuerId: defaults.issuerId ?? null,
    certificateProfileId: null,
    validityDays: null,
    allowIp: true,
    allowedDomains: [],
    deniedDomains: [],
    externalAccountRequired: defaults.externalAccountRequired ?? false,
    newOrdersPerHour: defaults.newOrdersPerHour ?? 300,
    owner: null,
    team: null,
    caaIdentities: null,
    dnsPersist01: false,
    allowRequestedValidity: false,
  };
}

export function profileSettings(row: AcmeProfileRow): AcmeProfileSettings {
  return {
    id: row.id,
    description: row.description,
    issuerId: row.issuer_id,
    certificateProfileId: row.certificate_profile_id,
    validityDays: row.validity_days,
    allowIp: row.allow_ip,
    allowedDomains: [...row.allowed_domains],
    deniedDomains: [...row.denied_domains],
    externalAccountRequired: row.external_account_required,
    newOrdersPerHour: row.new_orders_per_hour,
    owner: row.owner,
    team: row.team,
    caaIdentities: row.caa_identities === null ? null : [...row.caa_identities],
    dnsPersist01: row.dns_persist_01,
    allowRequestedValidity: row.allow_requested_validity,
  };
}

export function acmeProfileDto(settings: AcmeProfileSettings, row: AcmeProfileRow | null): AcmeProfileDto {
  const iso = (value: Date | undefined) => (value ? new Date(value).toISOString() : null);
  return {
    id: settings.id,
    description: settings.description,
    issuer_id: settings.issuerId,
    certificate_profile_id: settings.certificateProfileId,
    validity_days: settings.validityDays,
    allow_ip: settings.allowIp,
    allowed_domains: settings.allowedDomains,
    denied_domains: settings.deniedDomains,
    external_account_required: settings.externalAccountRequired,
    new_orders_per_hour: settings.newOrdersPerHour,
    owner: settings.owner,
    team: settings.team,
    caa_identities: settings.caaIdentities,
    dns_persist_01: settings.dnsPersist01,
    allow_requested_validity: settings.allowRequestedValidity,
    directory_path:
      settings.id === DEFAULT_ACME_PROFILE ? '/acme/directory' : `/acme/profile/${settings.id}/directory`,
    stored: row !== null,
    created_at: iso(row?.created_at),
    updated_at: iso(row?.updated_at),
  };
}

/**
 * How long a replica serves a profile it read without reading it again. A change made through
 * this process is seen at once (profilesChanged); one made through another replica within this.
 */
export const PROFILE_CACHE_MS = 5_000;

/** Bumped by every profile change this process makes, so cached profiles are read again. */
let profileGeneration = 0;
export function profilesChanged(): void {
  profileGeneration++;
}

/** The ACME profiles in force: the stored ones, and `default` from the settings unless stored. */
export class AcmeProfiles {
  private anyIdentities?: { value: Promise<boolean>; generation: number; until: number };
  private readonly cached = new Map<
    string,
    { settings: Promise<AcmeProfileSettings | null>; generation: number; until: number }
  >();

  constructor(
    private readonly executor: SqlExecutor,
    private readonly defaults: DefaultProfileSettings,
    private readonly cacheMs = 0,
  ) {}

  /** The profile `id`; every request reads it, so it is cached for `cacheMs` (0: not cached). */
  async get(id: string): Promise<AcmeProfileSettings | null> {
    if (this.cacheMs <= 0) return this.read(id);
    const now = Date.now();
    const hit = this.cached.get(id);
    if (hit && hit.generation === profileGeneration && hit.until > now) return hit.settings;
    const settings = this.read(id);
    this.cached.set(id, { settings, generation: profileGeneration, until: now + this.cacheMs });
    settings.catch(() => this.cached.delete(id));
    return settings;
  }

  private async read(id: string): Promise<AcmeProfileSettings | null> {
    const row = await new AcmeProfileStore(this.executor).get(id);
    if (row) return profileSettings(row);
    return id === DEFAULT_ACME_PROFILE ? defaultProfile(this.defaults) : null;
  }

  /**
   * Whether any profile names CAA identities (its own, or the server-wide ones it inherits);
   * cached as `get` is, so validations skip the profile lookup on servers without CAA.
   */
  async anyCaaIdentities(): Promise<boolean> {
    const now = Date.now();
    if (
      this.anyIdentities &&
      this.anyIdentities.generation === profileGeneration &&
      this.anyIdentities.until > now
    )
      return this.anyIdentities.value;
    const value = this.all().then((profiles) =>
      profiles.some(
        ({ settings }) => (settings.caaIdentities ?? this.defaults.caaIdentities ?? []).length > 0,
      ),
    );
    if (this.cacheMs > 0)
      this.anyIdentities = { value, generation: profileGeneration, until: now + this.cacheMs };
    value.catch(() => (this.anyIdentities = undefined));
    return value;
  }

  /** Every profile, `default` first. */
  async all(): Promise<{ settings: AcmeProfileSettings; row: AcmeProfileRow | null }[]> {
    const rows = await new AcmeProfileStore(this.executor).list();
    const stored = rows.map((row) => ({ settings: profileSettings(row), row }));
    const storedDefault = stored.find((p) => p.settings.id === DEFAULT_ACME_PROFILE);
    return [
      storedDefault ?? { settings: defaultProfile(this.defaults), row: null },
      ...stored.filter((p) => p !== storedDefault),
    ];
  }
}
