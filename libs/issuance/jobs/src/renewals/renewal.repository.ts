import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { CertificateStatus, JobStatus, JobType } from '@certlane/contracts';
import { ALERT_CURSOR_TIME_FORMAT, AlertCursor, CLIENT_RENEWED_SOURCES } from '@certlane/issuance-domain';
import { DataSource, EntityManager } from 'typeorm';

type Executor = Pick<EntityManager, 'query'>;

export interface ScheduledPolicy {
  id: string;
  renewal_window_days: number;
  max_retries: number;
  retry_interval_seconds: number;
  alert_thresholds_days: number[];
}

export interface DueCertificate {
  id: string;
  status: CertificateStatus;
  expires_at: Date;
  db_now: Date;
}

export interface RetryCandidate {
  certificate_id: string;
  status: CertificateStatus;
  job_id: string;
  job_type: JobType;
  job_status: JobStatus;
  attempts: number;
  retries: number;
  completed_at: Date | null;
  max_retries: number;
  retry_interval_seconds: number;
  db_now: Date;
  profile_id: string;
  /** The certificate's profile requires approval now and this job was never approved (ADR 0025). */
  needs_approval: boolean;
}

export interface AlertCandidate {
  id: string;
  common_name: string;
  environment: string;
  owner_id: string | null;
  team_id: string | null;
  renewal_policy_id: string;
  status: CertificateStatus;
  expires_at: Date;
  /** expires_at to the microsecond (ALERT_CURSOR_TIME_FORMAT): the cursor and the alerts' key. */
  expires_at_exact: string;
  thresholds: number[];
  sent: number[];
  db_now: Date;
}

/** Due certificates the loop cannot renew: how many, and the first ids (nearest expiry first). */
export interface NotRenewableDue {
  total: number;
  no_issuer: string[];
  /** Their issuer's kind has no connector (ADR 0046): it cannot sign a new version. */
  no_connector: string[];
  no_agent: string[];
}

/** What a job needs to renew a certificate: an agent (agent key generation), an issuer of these kinds. */
export interface RenewableRule {
  agentRequired: boolean;
  /** The issuer kinds with a connector (IssuerCapabilities.issuingKinds). */
  issuingKinds: readonly string[];
}

/** The issuer ids of `column` whose kind issues, as SQL; kinds are registry names, checked here. */
function issuingIssuer(column: string, kinds: readonly string[]): string {
  for (const kind of kinds)
    if (!/^[a-z][a-z0-9_]*$/.test(kind)) throw new Error(`issuer kind ${kind} is not a name`);
  const list = kinds.length > 0 ? kinds.map((kind) => `'${kind}'`).join(', ') : 'NULL';
  return `${column} IN (SELECT id FROM issuers WHERE kind IN (${list}))`;
}

/**
 * `versionJobRefusal` (libs/issuance/domain) as a row condition: an issuer whose kind has a
 * connector, and in agent key generation an agent. Checked on the rows an index scan reads (the
 * issuers are few), so the plans stay the same.
 */
export function renewableCondition(rule: RenewableRule, alias = ''): string {
  const column = (name: string) => `${alias}${name}`;
  return (
    `${column('issuer_id')} IS NOT NULL AND ${issuingIssuer(column('issuer_id'), rule.issuingKinds)}` +
    (rule.agentRequired ? ` AND ${column('agent_id')} <> ''` : '')
  );
}

/**
 * `renewedByTheLoop` (libs/issuance/domain) as a row condition: not a certificate an ACME, EST or
 * SCEP client renews itself, unless it has an agent.
 */
export function loopRenewsCondition(alias = ''): string {
  const sources = CLIENT_RENEWED_SOURCES.map((source) => `'${source}'`).join(', ');
  return `(${alias}source NOT IN (${sources}) OR ${alias}agent_id <> '')`;
}

/** How long after expiry a certificate still gets its last warnings (threshold 0 included). */
const ALERT_GRACE = "interval '30 days'";

/**
 * The renewal loop's SQL (ADR 0028). Every candidate query is served by an index and returns
 * only what is due, in batches, locked with SKIP LOCKED so replicas share the work and no
 * certificate is taken twice.
 */
@Injectable()
export class RenewalRepository {
  constructor(@InjectDataSource('issuance') readonly dataSource: DataSource) {}

  policies(): Promise<ScheduledPolicy[]> {
    return this.dataSource.query(
      `SELECT id, renewal_window_days, max_retries, retry_interval_seconds, alert_thresholds_days
       FROM renewal_policies ORDER BY id`,
    );
  }

  /**
   * Active or Expiring certificates of one renewal policy inside its window
   * (expires_at - renewal_window_days <= now) that a job can renew (`renewableCondition`): index
   * certificates_renewal_due. The others stay due; `notRenewableDue` names them.
   */
  dueBatch(
    executor: Executor,
    policy: ScheduledPolicy,
    rule: RenewableRule,
    limit: number,
  ): Promise<DueCertificate[]> {
    return executor.query(
      `SELECT id, status, expires_at, now() AS db_now FROM certificates
       WHERE renewal_policy_id = $1 AND status IN ('Active', 'Expiring') AND expires_at IS NOT NULL
         AND expires_at <= now() + make_interval(days => $2)
         AND ${renewableCondition(rule)} AND ${loopRenewsCondition()}
       ORDER BY expires_at LIMIT $3
       FOR UPDATE SKIP LOCKED`,
      [policy.id, policy.renewal_window_days, limit],
    );
  }

  /**
   * The due certificates of one policy that `dueBatch` passes by (no issuer, an issuer whose kind
   * has no connector, or no agent in agent key generation), read after the policy's renewals: the
   * same index range, which then holds only these (and rows another replica is renewing).
   */
  async notRenewableDue(
    executor: Executor,
    policy: ScheduledPolicy,
    rule: RenewableRule,
    sample: number,
  ): Promise<NotRenewableDue> {
    const issues = issuingIssuer('issuer_id', rule.issuingKinds);
    const [row]: NotRenewableDue[] = await executor.query(
      `SELECT count(*)::int AS total,
         (array_agg(id ORDER BY expires_at, id) FILTER (WHERE issuer_id IS NULL))[1:$3] AS no_issuer,
         (array_agg(id ORDER BY expires_at, id)
           FILTER (WHERE issuer_id IS NOT NULL AND NOT ${issues}))[1:$3] AS no_connector,
         (array_agg(id ORDER BY expires_at, id) FILTER (WHERE ${issues}))[1:$3] AS no_agent
       FROM certificates
       WHERE renewal_policy_id = $1 AND status IN ('Active', 'Expiring') AND expires_at IS NOT NULL
         AND expires_at <= now() + make_interval(days => $2)
         AND ${loopRenewsCondition()} AND NOT (${renewableCondition(rule)})`,
      [policy.id, policy.renewal_window_days, sample],
    );
    return {
      total: row.total,
      no_issuer: row.no_issuer ?? [],
      no_connector: row.no_connector ?? [],
      no_agent: row.no_agent ?? [],
    };
  }

  /**
   * Failed certificates whose latest issuance or renewal job failed, has attempts left and has
   * waited its retry interval, and that a job can renew (`renewableCondition`). Failed
   * certificates are few (index certificates_status); the latest job comes from jobs_certificate.
   */
  retryBatch(executor: Executor, rule: RenewableRule, limit: number): Promise<RetryCandidate[]> {
    return executor.query(
      `SELECT c.id AS certificate_id, c.status, j.id AS job_id, j.type AS job_type, j.status AS job_status,
         j.attempts, j.retries, j.completed_at, rp.max_retries, rp.retry_interval_seconds, now() AS db_now,
         c.profile_id,
         (COALESCE(p.requires_approval, false)
           AND NOT EXISTS (SELECT 1 FROM approvals a WHERE a.job_id = j.id AND a.status = 'approved'))
           AS needs_approval
       FROM certificates c
       JOIN renewal_policies rp ON rp.id = c.renewal_policy_id
       LEFT JOIN profiles p ON p.id = c.profile_ref
       JOIN LATERAL (
         SELECT id, type, status, attempts, retries, completed_at FROM jobs
         WHERE certificate_id = c.id AND type IN ('Issuance', 'Renewal')
         ORDER BY created_at DESC, id DESC LIMIT 1) j ON true
       WHERE c.status = 'Failed' AND j.status = 'Failed' AND ${renewableCondition(rule, 'c.')}
         AND ${loopRenewsCondition('c.')} AND GREATEST(j.attempts, j.retries + 1) < rp.max_retries + 1
         AND (j.completed_at IS NULL OR j.completed_at <= now() - make_interval(secs => rp.retry_interval_seconds))
       ORDER BY c.id LIMIT $1
       FOR UPDATE OF c SKIP LOCKED`,
      [limit],
    );
  }

  /** Locks the jobs to retry and returns those still Failed (certificate locks are held already). */
  async lockFailedJobs(executor: Executor, ids: string[]): Promise<Set<string>> {
    const rows: { id: string }[] = await executor.query(
      `SELECT id FROM jobs WHERE id = ANY($1::text[]) AND status = 'Failed' ORDER BY id FOR UPDATE`,
      [ids],
    );
    return new Set(rows.map((row) => row.id));
  }

  /** Failed -> `status` (the job machine's retry), counting the retry. */
  async retryJobs(executor: Executor, ids: string[], status: JobStatus): Promise<Date> {
    const [row]: { now: Date }[] = await executor.query(
      `WITH changed AS (
         UPDATE jobs SET status = $2, retries = retries + 1, scheduled_at = now(), updated_at = now()
         WHERE id = ANY($1::text[]) RETURNING id)
       SELECT now() AS now`,
      [ids, status],
    );
    return row.now;
  }

  async setStatus(executor: Executor, ids: string[], status: CertificateStatus): Promise<void> {
    await executor.query(
      `UPDATE certificates SET status = $2, updated_at = now() WHERE id = ANY($1::text[])`,
      [ids, status],
    );
  }

  /**
   * Certificates that crossed an alert threshold of their policy they have not been warned
   * about for this expiry date, in (expires_at, id) order after the cursor: index
   * certificates_alert_window (migration 0017) is that order, so a batch starts at the cursor in
   * the index, and bounds the scan to [now - 30 days, now + the largest threshold]. Call inside
   * a transaction: sorting is off for this statement (a transaction-local setting), because the
   * planner, expecting the window's rows scattered over the table, prefers reading the whole window
   * and sorting it; the index order stops after `limit` rows (1,000,000 certificates, 5,000 of a
   * 20,000 window: 84 ms instead of 435 to 600 ms).
   */
  async alertBatch(
    executor: Executor,
    maxThresholdDays: number,
    after: AlertCursor | null,
    limit: number,
  ): Promise<AlertCandidate[]> {
    await executor.query(`SELECT set_config('enable_sort', 'off', true)`);
    const rows: AlertCandidate[] = await executor.query(
      `SELECT c.id, c.common_name, c.environment, c.owner_id, c.team_id, c.renewal_policy_id, c.status,
         c.expires_at, to_char(c.expires_at AT TIME ZONE 'UTC', '${ALERT_CURSOR_TIME_FORMAT}') AS expires_at_exact,
         rp.alert_thresholds_days AS thresholds,
         ARRAY(SELECT a.threshold_days FROM certificate_expiry_alerts a
               WHERE a.certificate_id = c.id AND a.expires_at = c.expires_at) AS sent,
         now() AS db_now
       FROM certificates c JOIN renewal_policies rp ON rp.id = c.renewal_policy_id
       WHERE c.expires_at IS NOT NULL
         AND c.expires_at > now() - ${ALERT_GRACE}
         AND c.expires_at <= now() + make_interval(days => $1)
         AND (c.expires_at, c.id) > ($2::timestamptz, $3::text)
         AND c.status NOT IN ('Archived', 'Revoked')
         AND EXISTS (
           SELECT 1 FROM unnest(rp.alert_thresholds_days) AS t(days)
           WHERE c.expires_at - make_interval(days => t.days) <= now()
             AND NOT EXISTS (SELECT 1 FROM certificate_expiry_alerts a
                             WHERE a.certificate_id = c.id AND a.expires_at = c.expires_at
                               AND a.threshold_days = t.days))
       ORDER BY c.expires_at, c.id LIMIT $4`,
      [maxThresholdDays, after?.expires_at ?? '-infinity', after?.id ?? '', limit],
    );
    await executor.query(`SELECT set_config('enable_sort', 'on', true)`);
    return rows;
  }

  /**
   * Records thresholds as sent; returns the (certificate, threshold) pairs this call inserted, so
   * that of two replicas only the one that recorded a threshold announces it.
   */
  async recordAlerts(
    executor: Executor,
    rows: { certificate_id: string; expires_at: string; threshold_days: number }[],
  ): Promise<Set<string>> {
    if (rows.length === 0) return new Set();
    const inserted: { certificate_id: string; threshold_days: number }[] = await executor.query(
      `INSERT INTO certificate_expiry_alerts (certificate_id, expires_at, threshold_days)
       SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::int[])
       ON CONFLICT DO NOTHING RETURNING certificate_id, threshold_days`,
      [rows.map((r) => r.certificate_id), rows.map((r) => r.expires_at), rows.map((r) => r.threshold_days)],
    );
    return new Set(inserted.map((row) => `${row.certificate_id}\u0000${row.threshold_days}`));
  }
}
