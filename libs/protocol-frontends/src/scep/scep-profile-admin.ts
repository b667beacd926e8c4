import { readFile } from 'node:fs/promises';
import {
  AuditAction,
  AuditRecord,
  CertlaneError,
  CreateScepProfileRequest,
  ErrorCode,
  RequestContext,
  SCEP_DEFAULT_PATH_ID,
  SCEP_MDM_STATUSES,
  SCEP_PROFILE_OUTCOMES,
  SCEP_RATE_LIMIT,
  ScepMdmProfileStats,
  ScepMdmStats,
  ScepMdmStatus,
  ScepMdmTrustReloadResult,
  ScepProfileDto,
  ScepProfileList,
  ScepProfileOutcome,
  UpdateScepProfileCommand,
} from '@certlane/contracts';
import { SqlExecutor } from '@certlane/platform';
import { InventoryReferenceCheck, refuseUnknownReferences } from '../inventory-references';
import {
  ScepProfileRow,
  ScepProfileSettingsRow,
  ScepProfileStore,
} from '@certlane/protocol-frontends-data-access';
import {
  hashChallengePassword,
  parseCertificateBundle,
  parseTrustBundle,
  scepProfileProblems,
  scepUrlPath,
} from '@certlane/protocol-frontends-domain';
import { newRaKey, raCertificateFacts, RaKeyBox } from './scep-ra';

export interface ScepProfileAdminDeps {
  executor: SqlExecutor;
  transaction<T>(work: (executor: SqlExecutor) => Promise<T>): Promise<T>;
  audit(executor: SqlExecutor, record: AuditRecord): Promise<void>;
  /** Which owner, team and certificate profile named issuance does not know (refused at once). */
  references: InventoryReferenceCheck;
  raKeys: RaKeyBox;
  /** Issues the RA certificate for the RA key's CSR through the profile's issuer: the leaf PEM. */
  issueRaCertificate(input: {
    csrPem: string;
    issuerId: string | null;
    validityDays: number;
  }): Promise<string>;
  /** Reads a trust file (tests give their own). */
  readTrustFile?(path: string): Promise<string>;
  now?: () => Date;
}

const iso = (value: Date | null): string | null => (value ? new Date(value).toISOString() : null);

type Loaded = { ok: true; pem: string; notAfters: Date[] } | { ok: false; reason: string };

/** The earliest notAfter of a PEM list of certificates, or null. */
function earliestExpiry(pem: string | null): string | null {
  if (!pem) return null;
  const parsed = parseCertificateBundle(pem);
  if (!parsed.ok) return null;
  const times = parsed.certificates.map((c) => new Date(c.validTo).getTime());
  return new Date(Math.min(...times)).toISOString();
}

function anchorCount(pem: string | null): number {
  if (!pem) return 0;
  const parsed = parseCertificateBundle(pem);
  return parsed.ok ? parsed.certificates.length : 0;
}

/** The API's view of a profile (spec 4.9): never the challenge password, its hash or the RA key. */
export function scepProfileDto(
  row: ScepProfileRow,
  counters: ReadonlyMap<string, number> = new Map(),
): ScepProfileDto {
  return {
    id: row.id,
    path_id: row.path_id,
    url_path: scepUrlPath(row.path_id, SCEP_DEFAULT_PATH_ID),
    certificate_profile_id: row.certificate_profile_id,
    issuer_id: row.issuer_id,
    ra_certificate: raCertificateFacts(row.ra_certificate_pem),
    ra_validity_days: row.ra_validity_days,
    challenge_password_set: row.challenge_password_hash !== null,
    legacy_algorithms: row.legacy_algorithms,
    approval_required: row.approval_required,
    mtls_enabled: row.mtls_enabled,
    trust_bundle_path: row.trust_bundle_path,
    trust_anchor_count: anchorCount(row.trust_bundle_pem),
    client_revocation_unknown: row.client_revocation_unknown,
    rate_limit_per_minute: row.rate_limit_per_minute,
    owner: row.owner,
    team: row.team,
    counters: Object.fromEntries(SCEP_PROFILE_OUTCOMES.map((o) => [o, counters.get(o) ?? 0])) as Record<
      ScepProfileOutcome,
      number
    >,
    ...(row.mdm_enabled
      ? {
          mdm: {
            audience: row.mdm_audience ?? '',
            trust_path: row.mdm_trust_path,
            trust_anchor_count: anchorCount(row.mdm_trust_pem),
            trust_loaded_at: iso(row.mdm_trust_loaded_at),
            trust_expires_at: earliestExpiry(row.mdm_trust_pem),
            device_state_url: row.device_state_url,
          },
        }
      : {}),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/** The MDM counter key of a status in `scep_profile_counters`. */
export const mdmCounter = (status: ScepMdmStatus): string => `mdm_${status}`;

const invalid = (message: string, problems?: string[]) =>
  new CertlaneError(ErrorCode.ScepProfileInvalid, message, problems ? { problems } : undefined);
const notFound = (what: string) =>
  new CertlaneError(ErrorCode.ScepProfileNotFound, `SCEP profile ${what} not found`);

/**
 * SCEP profile management (spec 4.9, ADR 0059): the list, create (with a new RA key and
 * certificate), update, delete, RA rotation, MDM stats and MDM trust reload, each change audited
 * in its transaction.
 */
export class ScepProfileAdmin {
  constructor(private readonly deps: ScepProfileAdminDeps) {}

  private now(): Date {
    return (this.deps.now ?? (() => new Date()))();
  }

  async list(): Promise<ScepProfileList> {
    const store = new ScepProfileStore(this.deps.executor);
    const [rows, counters] = await Promise.all([store.list(), store.counters()]);
    return {
      profiles: rows.map((row) => scepProfileDto(row, counters.get(row.id))),
      profile_count: rows.length,
      generated_at: this.now().toISOString(),
    };
  }

  async mdmStats(): Promise<ScepMdmStats> {
    const store = new ScepProfileStore(this.deps.executor);
    const [rows, counters] = await Promise.all([store.list(), store.counters()]);
    const now = this.now();
    const profiles: ScepMdmProfileStats[] = rows.map((row) => {
      const mine = counters.get(row.id) ?? new Map<string, number>();
      const parsed = row.mdm_trust_pem ? parseCertificateBundle(row.mdm_trust_pem) : undefined;
      const anchors = parsed?.ok ? parsed.certificates : [];
      return {
        path_id: row.path_id,
        mdm_enabled: row.mdm_enabled,
        counters: Object.fromEntries(
          SCEP_MDM_STATUSES.map((s) => [s, mine.get(mdmCounter(s)) ?? 0]),
        ) as Record<ScepMdmStatus, number>,
        trust_anchor_count: anchors.length,
        trust_loaded_at: iso(row.mdm_trust_loaded_at),
        trust_expires_at: earliestExpiry(row.mdm_trust_pem),
        trust_anchors: anchors.map((a) => ({
          subject: a.subject.replace(/\n/g, ', '),
          not_after: new Date(a.validTo).toISOString(),
          expired: new Date(a.validTo).getTime() < now.getTime(),
        })),
      };
    });
    return { profiles, profile_count: profiles.length, generated_at: now.toISOString() };
  }

  async create(request: CreateScepProfileRequest, context?: RequestContext): Promise<ScepProfileDto> {
    await refuseUnknownReferences(this.deps.references, request, ErrorCode.ScepProfileInvalid);
    const id = ScepProfileStore.newId();
    const settings = await this.settings(request, undefined);
    const ra = await this.newRa(id, request.path_id, settings.issuer_id, settings.ra_validity_days);
    return this.deps.transaction(async (executor) => {
      const row = await new ScepProfileStore(executor).create(id, request.path_id, { ...settings, ...ra });
      if (!row)
        throw new CertlaneError(
          ErrorCode.ScepProfileExists,
          `a SCEP profile with path_id ${request.path_id} exists`,
        );
      await this.audit(executor, AuditAction.ScepProfileCreated, row, context, { path_id: row.path_id });
      return scepProfileDto(row);
    });
  }

  async update(request: UpdateScepProfileCommand, context?: RequestContext): Promise<ScepProfileDto> {
    const current = await new ScepProfileStore(this.deps.executor).get(request.id);
    if (!current) throw notFound(request.id);
    await refuseUnknownReferences(this.deps.references, request, ErrorCode.ScepProfileInvalid);
    const settings = await this.settings(request, current);
    return this.deps.transaction(async (executor) => {
      const store = new ScepProfileStore(executor);
      if (!(await store.get(request.id, true))) throw notFound(request.id);
      const row = (await store.update(current.id, settings))!;
      const changed = Object.keys(request).filter((key) => key !== 'id');
      await this.audit(executor, AuditAction.ScepProfileUpdated, row, context, {
        path_id: row.path_id,
        changed,
      });
      return scepProfileDto(row, (await store.counters()).get(row.id));
    });
  }

  async delete(id: string, context?: RequestContext): Promise<{ deleted: true }> {
    return this.deps.transaction(async (executor) => {
      const store = new ScepProfileStore(executor);
      const row = await store.get(id, true);
      if (!row || !(await store.delete(id))) throw notFound(id);
      await this.audit(executor, AuditAction.ScepProfileDeleted, row, context, { path_id: row.path_id });
      return { deleted: true as const };
    });
  }

  /** A new RA key and certificate for a profile; the old ones stop being served at once. */
  async rotateRa(id: string, context?: RequestContext): Promise<ScepProfileDto> {
    const current = await new ScepProfileStore(this.deps.executor).get(id);
    if (!current) throw notFound(id);
    const ra = await this.newRa(id, current.path_id, current.issuer_id, current.ra_validity_days);
    return this.deps.transaction(async (executor) => {
      const store = new ScepProfileStore(executor);
      const locked = await store.get(id, true);
      if (!locked) throw notFound(id);
      const { id: _id, path_id: _path, created_at: _c, updated_at: _u, ...settings } = locked;
      const row = (await store.update(id, { ...settings, ...ra }))!;
      await this.audit(executor, AuditAction.ScepRaRotated, row, context, {
        path_id: row.path_id,
        previous_serial_hex: raCertificateFacts(current.ra_certificate_pem).serial_hex,
        serial_hex: raCertificateFacts(row.ra_certificate_pem).serial_hex,
      });
      return scepProfileDto(row, (await store.counters()).get(row.id));
    });
  }

  /**
   * Re-reads the MDM trust file of one profile (spec 4.9): 404 for an unknown profile, 409 when
   * MDM is off, 500 when the file does not read or parse (the previous anchors stay in use).
   */
  async reloadMdmTrust(pathId: string, context?: RequestContext): Promise<ScepMdmTrustReloadResult> {
    const target = pathId === '' ? SCEP_DEFAULT_PATH_ID : pathId;
    const row = await new ScepProfileStore(this.deps.executor).byPathId(target);
    if (!row) throw notFound(`with path_id ${target}`);
    if (!row.mdm_enabled)
      throw new CertlaneError(
        ErrorCode.ScepMdmDisabled,
        `MDM validation is disabled for SCEP profile ${target}`,
      );
    const loaded = row.mdm_trust_path
      ? await this.readTrust(row.mdm_trust_path)
      : ({ ok: false, reason: 'the profile has no mdm_trust_path to read' } as const);
    if (!loaded.ok) {
      await this.deps.transaction((executor) =>
        this.audit(
          executor,
          AuditAction.ScepMdmTrustReloaded,
          row,
          context,
          {
            path_id: row.path_id,
            reason: loaded.reason,
          },
          'failure',
        ),
      );
      throw new CertlaneError(
        ErrorCode.ScepTrustFileError,
        `the MDM trust file of ${target} was not loaded (${loaded.reason}); the previous trust anchors stay in use`,
      );
    }
    return this.deps.transaction(async (executor) => {
      const updated = await new ScepProfileStore(executor).setMdmTrust(row.id, loaded.pem);
      await this.audit(executor, AuditAction.ScepMdmTrustReloaded, updated, context, {
        path_id: updated.path_id,
        trust_anchor_count: loaded.notAfters.length,
      });
      return {
        path_id: updated.path_id,
        trust_anchor_count: loaded.notAfters.length,
        trust_loaded_at: iso(updated.mdm_trust_loaded_at)!,
        trust_expires_at: earliestExpiry(updated.mdm_trust_pem),
      };
    });
  }

  private async newRa(
    id: string,
    pathId: string,
    issuerId: string | null,
    validityDays: number,
  ): Promise<Pick<ScepProfileSettingsRow, 'ra_certificate_pem' | 'ra_key_sealed'>> {
    const key = await newRaKey(pathId);
    try {
      let certificatePem: string;
      try {
        certificatePem = await this.deps.issueRaCertificate({ csrPem: key.csrPem, issuerId, validityDays });
      } catch (error) {
        throw invalid(`the RA certificate could not be issued: ${(error as Error).message?.slice(0, 300)}`);
      }
      return {
        ra_certificate_pem: certificatePem,
        ra_key_sealed: this.deps.raKeys.seal(id, key.privateKeyPkcs8),
      };
    } finally {
      key.privateKeyPkcs8.fill(0);
    }
  }

  /** The columns of a create (no current row) or an update, checked together (RA columns kept). */
  private async settings(
    request: Partial<CreateScepProfileRequest>,
    current: ScepProfileRow | undefined,
  ): Promise<ScepProfileSettingsRow> {
    const pick = <K extends keyof ScepProfileSettingsRow & keyof CreateScepProfileRequest>(
      key: K,
      fallback: ScepProfileSettingsRow[K],
    ): ScepProfileSettingsRow[K] =>
      request[key] !== undefined
        ? (request[key] as ScepProfileSettingsRow[K])
        : current
          ? current[key]
          : fallback;
    if (request.mdm_trust_path && request.mdm_trust_pem)
      throw invalid('give mdm_trust_path or mdm_trust_pem, not both');

    let trustPem = current?.trust_bundle_pem ?? null;
    const trustPath = pick('trust_bundle_path', null);
    if (request.trust_bundle_path) {
      const loaded = await this.readTrust(request.trust_bundle_path, true);
      if (!loaded.ok) throw invalid(`trust_bundle_path: ${loaded.reason}`);
      trustPem = loaded.pem;
    } else if (request.trust_bundle_path === null) trustPem = null;

    let mdmPath = pick('mdm_trust_path', null);
    let mdmPem = current?.mdm_trust_pem ?? null;
    let mdmLoadedAt = current?.mdm_trust_loaded_at ?? null;
    if (request.mdm_trust_path) {
      const loaded = await this.readTrust(request.mdm_trust_path);
      if (!loaded.ok) throw invalid(`mdm_trust_path: ${loaded.reason}`);
      mdmPem = loaded.pem;
      mdmLoadedAt = this.now();
    } else if (request.mdm_trust_pem) {
      const parsed = parseCertificateBundle(request.mdm_trust_pem);
      if (!parsed.ok) throw invalid(`mdm_trust_pem: ${parsed.reason}`);
      mdmPem = parsed.certificates.map((c) => c.toString()).join('');
      mdmPath = null;
      mdmLoadedAt = this.now();
    } else if (request.mdm_trust_path === null || request.mdm_trust_pem === null) {
      mdmPath = null;
      mdmPem = null;
      mdmLoadedAt = null;
    }

    const passwordHash =
      request.challenge_password === null
        ? null
        : request.challenge_password !== undefined
          ? hashChallengePassword(request.challenge_password)
          : (current?.challenge_password_hash ?? null);
    const settings: ScepProfileSettingsRow = {
      certificate_profile_id: pick('certificate_profile_id', null),
      issuer_id: pick('issuer_id', null),
      ra_certificate_pem: current?.ra_certificate_pem ?? '',
      ra_key_sealed: current?.ra_key_sealed ?? '',
      ra_validity_days: pick('ra_validity_days', 365),
      challenge_password_hash: passwordHash,
      legacy_algorithms: pick('legacy_algorithms', false),
      approval_required: pick('approval_required', false),
      mtls_enabled: pick('mtls_enabled', false),
      trust_bundle_path: trustPath,
      trust_bundle_pem: trustPem,
      client_revocation_unknown: pick('client_revocation_unknown', 'soft-fail'),
      mdm_enabled: pick('mdm_enabled', false),
      mdm_audience: pick('mdm_audience', null),
      mdm_trust_path: mdmPath,
      mdm_trust_pem: mdmPem,
      mdm_trust_loaded_at: mdmLoadedAt,
      device_state_url: pick('device_state_url', null),
      rate_limit_per_minute: pick('rate_limit_per_minute', SCEP_RATE_LIMIT.default),
      owner: pick('owner', null),
      team: pick('team', null),
    };
    const problems = scepProfileProblems({
      challenge_password_set: settings.challenge_password_hash !== null,
      mtls_enabled: settings.mtls_enabled,
      trust_bundle_pem: settings.trust_bundle_pem,
      mdm_enabled: settings.mdm_enabled,
      mdm_audience: settings.mdm_audience,
      mdm_trust_pem: settings.mdm_trust_pem,
      approval_required: settings.approval_required,
    });
    if (problems.length > 0) throw invalid(problems.join('; '), problems);
    return settings;
  }

  /** A trust file read and parsed: CA certificates only for an mTLS bundle, any certificate for MDM. */
  private async readTrust(path: string, caOnly = false): Promise<Loaded> {
    let text: string;
    try {
      text = await (this.deps.readTrustFile ?? ((p: string) => readFile(p, 'utf8')))(path);
    } catch (error) {
      return {
        ok: false,
        reason: `cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      };
    }
    if (caOnly) {
      const parsed = parseTrustBundle(text);
      return parsed.ok
        ? {
            ok: true,
            pem: parsed.anchors.map((a) => a.toString()).join(''),
            notAfters: parsed.anchors.map((a) => new Date(a.validTo)),
          }
        : parsed;
    }
    const parsed = parseCertificateBundle(text);
    return parsed.ok
      ? {
          ok: true,
          pem: parsed.certificates.map((c) => c.toString()).join(''),
          notAfters: parsed.certificates.map((c) => new Date(c.validTo)),
        }
      : parsed;
  }

  private async audit(
    executor: SqlExecutor,
    action: string,
    row: ScepProfileRow,
    context: RequestContext | undefined,
    details: Record<string, unknown>,
    outcome: AuditRecord['outcome'] = 'success',
  ): Promise<void> {
    await this.deps.audit(executor, {
      action,
      event_category: 'config',
      actor_id: context?.actor_id ?? 'unknown',
      resource_type: 'scep_profile',
      resource_id: row.id,
      outcome,
      ...(context?.request_id ? { request_id: context.request_id } : {}),
      details,
    });
  }
}
