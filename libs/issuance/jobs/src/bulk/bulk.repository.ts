import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { caTreeQuery, ListAnchorCache, underCaCondition } from '@certlane/issuance-inventory';
import { CertificateSource, CertificateStatus, JobStatus, RevocationReason } from '@certlane/contracts';
import { BulkFilters, BulkSelection, renewalMaxAttempts } from '@certlane/issuance-domain';
import { DataSource, EntityManager } from 'typeorm';

/** SQL conditions for the filters, their values appended to `params`. */
async function filterConditions(
  executor: Executor,
  filters: BulkFilters,
  params: unknown[],
): Promise<string[]> {
  const conditions: string[] = [];
  for (const [field, value] of Object.entries(filters)) {
    if (field === 'ca_id') {
      const tree = caTreeQuery(value);
      const [{ ids }]: { ids: string[] }[] = await executor.query(tree.text, tree.values);
      params.push(ids);
      conditions.push(underCaCondition(`$${params.length}`));
      continue;
    }
    params.push(value);
    // Field names come from BULK_FILTER_FIELDS, never from the request.
    conditions.push(`${field} = $${params.length}`);
  }
  return conditions;
}

/** A certificate as a bulk batch reads it. */
export interface BulkCertificateRow {
  id: string;
  status: CertificateStatus;
  source: CertificateSource;
  owner_id: string | null;
  team_id: string | null;
  issuer_id: string | null;
  agent_id: string;
  matches_filters?: boolean;
}

export interface VersionToRevoke {
  certificate_id: string;
  issuer_id: string;
  serial_hex: string;
  /** For CAs that revoke by certificate (ACME). */
  certificate_pem: string;
}

export interface CreatedJob {
  id: string;
  certificate_id: string;
  agent_id: string;
  /** `status`, or AwaitingApproval when the certificate's profile requires approval (ADR 0025). */
  status: JobStatus;
  profile_id: string;
}

const ROW_COLUMNS = 'id, status, source, owner_id, team_id, issuer_id, agent_id';

type Executor = Pick<EntityManager, 'query'>;

/**
 * The set-based SQL of the bulk operations (spec 4.2, 4.3): batches walk the selection in id
 * order (keyset, never OFFSET), lock their rows, and change them with one statement each.
 */
@Injectable()
export class BulkRepository {
  constructor(
    @InjectDataSource('issuance') private readonly dataSource: DataSource,
    private readonly anchors: ListAnchorCache,
  ) {}

  get reader(): Executor {
    return this.dataSource.manager;
  }

  /**
   * The next batch of criteria mode: rows after `after` matching every filter and the source,
   * in id order, locked when `lock` (a batch's transaction) and not otherwise (a failed batch's
   * ids, retried one by one).
   */
  async criteriaBatch(
    executor: Executor,
    selection: Extract<BulkSelection, { mode: 'criteria' }>,
    after: string,
    limit: number,
    lock: boolean,
  ): Promise<BulkCertificateRow[]> {
    const params: unknown[] = [after, limit];
    const where = ['id > $1', ...(await filterConditions(executor, selection.filters, params))];
    if (selection.source !== '') {
      params.push(selection.source);
      where.push(`source = $${params.length}`);
    }
    return executor.query(
      `SELECT ${ROW_COLUMNS} FROM certificates WHERE ${where.join(' AND ')} ORDER BY id LIMIT $2${
        lock ? ' FOR UPDATE' : ''
      }`,
      params,
    );
  }

  /**
   * The rows of the given ids (ids mode), locked, in id order, each saying whether it matches
   * every filter given beside the ids.
   */
  async rowsByIds(executor: Executor, ids: string[], filters: BulkFilters): Promise<BulkCertificateRow[]> {
    const params: unknown[] = [ids];
    const conditions = await filterConditions(executor, filters, params);
    const matches = conditions.length === 0 ? 'true' : conditions.join(' AND ');
    return executor.query(
      `SELECT ${ROW_COLUMNS}, coalesce(${matches}, false) AS matches_filters FROM certificates
        WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`,
      params,
    );
  }

  /**
   * Serials to revoke at their issuer: the certificates' versions that have not expired yet, and
   * each current version even when it has (as `CertificateRepository.versionsToRevoke`).
   */
  versionsToRevoke(executor: Executor, certificateIds: string[]): Promise<VersionToRevoke[]> {
    if (certificateIds.length === 0) return Promise.resolve([]);
    return executor.query(
      `SELECT v.certificate_id, v.issuer_id, lower(v.serial_number) AS serial_hex, v.cert_pem AS certificate_pem
         FROM certificate_versions v JOIN certificates c ON c.id = v.certificate_id
        WHERE v.certificate_id = ANY($1::text[]) AND v.issuer_id <> ''
          AND (v.not_after > now() OR v.id = c.current_version_id)`,
      [certificateIds],
    );
  }

  /** Marks the certificates Revoked; returns the time recorded. */
  async markRevoked(executor: Executor, ids: string[], reason: RevocationReason): Promise<Date> {
    const [row]: { now: Date }[] = await executor.query(
      `WITH changed AS (
         UPDATE certificates SET status = 'Revoked', revoked_at = now(), revocation_reason = $2, updated_at = now()
         WHERE id = ANY($1::text[]) RETURNING id)
       SELECT now() AS now`,
      [ids, reason],
    );
    this.anchors.invalidate();
    return row.now;
  }

  async markRenewalInProgress(executor: Executor, ids: string[]): Promise<Date> {
    const [row]: { now: Date }[] = await executor.query(
      `WITH changed AS (
         UPDATE certificates SET status = 'RenewalInProgress', updated_at = now()
         WHERE id = ANY($1::text[]) RETURNING id)
       SELECT now() AS now`,
      [ids],
    );
    this.anchors.invalidate();
    return row.now;
  }

  /**
   * One Renewal job per certificate in one statement; a job may be tried as often as the
   * certificate's renewal policy allows (renewalMaxAttempts, as for a single renewal).
   */
  async createRenewalJobs(
    executor: Executor,
    jobs: { id: string; certificate_id: string }[],
    status: JobStatus,
    requestedBy: string,
  ): Promise<CreatedJob[]> {
    if (jobs.length === 0) return [];
    const policies: { id: string; max_retries: number }[] = await executor.query(
      `SELECT c.id, rp.max_retries FROM certificates c JOIN renewal_policies rp ON rp.id = c.renewal_policy_id
        WHERE c.id = ANY($1::text[])`,
      [jobs.map((job) => job.certificate_id)],
    );
    const maxAttempts = new Map(policies.map((row) => [row.id, renewalMaxAttempts(row)]));
    return executor.query(
      `WITH created AS (
         INSERT INTO jobs (id, type, status, certificate_id, agent_id, requested_by, max_attempts)
         SELECT j.id, 'Renewal', CASE WHEN p.requires_approval THEN 'AwaitingApproval' ELSE $3 END,
                c.id, c.agent_id, $4, j.max_attempts
         FROM unnest($1::text[], $2::text[], $5::int[]) AS j(id, certificate_id, max_attempts)
         JOIN certificates c ON c.id = j.certificate_id
         LEFT JOIN profiles p ON p.id = c.profile_ref
         RETURNING id, certificate_id, agent_id, status)
       SELECT created.*, c.profile_id FROM created JOIN certificates c ON c.id = created.certificate_id`,
      [
        jobs.map((job) => job.id),
        jobs.map((job) => job.certificate_id),
        status,
        requestedBy,
        jobs.map((job) => maxAttempts.get(job.certificate_id) ?? renewalMaxAttempts({ max_retries: 0 })),
      ],
    );
  }

  async reassign(
    executor: Executor,
    ids: string[],
    ownerId: string,
    teamId: string | undefined,
  ): Promise<void> {
    await executor.query(
      `UPDATE certificates SET owner_id = $2, team_id = COALESCE($3, team_id), updated_at = now()
       WHERE id = ANY($1::text[])`,
      [ids, ownerId, teamId ?? null],
    );
    this.anchors.invalidate();
  }

  async ownerExists(id: string): Promise<boolean> {
    return (await this.dataSource.query('SELECT 1 FROM owners WHERE id = $1', [id])).length > 0;
  }

  async teamExists(id: string): Promise<boolean> {
    return (await this.dataSource.query('SELECT 1 FROM teams WHERE id = $1', [id])).length > 0;
  }
}
