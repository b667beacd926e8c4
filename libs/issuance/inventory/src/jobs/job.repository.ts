import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  JobDto,
  JobStatus,
  JobType,
  JobVerificationDto,
  ListJobsRequest,
  Page,
  ResolvedPage,
  VerificationResult,
} from '@certlane/contracts';
import { DataSource, EntityManager } from 'typeorm';
import { pageOf } from '@certlane/issuance-data-access';

export interface JobRow {
  id: string;
  type: JobType;
  status: JobStatus;
  certificate_id: string;
  agent_id: string;
  target_id: string;
  attempts: number;
  max_attempts: number;
  last_error: string;
  requested_by: string;
  version_id: string | null;
  scheduled_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewJob {
  type: JobType;
  status: JobStatus;
  certificate_id: string;
  agent_id: string;
  target_id: string;
  requested_by: string;
  version_id: string | null;
  /** Absent: the table's default. */
  max_attempts?: number;
}

export interface VerificationRow {
  job_id: string;
  certificate_id: string;
  endpoint: string;
  result: VerificationResult;
  expected_fingerprint_sha256: string;
  served_fingerprint_sha256: string;
  error: string;
  checked_at: Date;
}

const JOB_COLUMNS = `id, type, status, certificate_id, agent_id, target_id, attempts, max_attempts, last_error,
  requested_by, version_id, scheduled_at, started_at, completed_at, created_at, updated_at`;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function jobDto(row: JobRow): JobDto {
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    certificate_id: row.certificate_id,
    agent_id: row.agent_id,
    target_id: row.target_id,
    attempts: row.attempts,
    max_attempts: row.max_attempts,
    last_error: row.last_error,
    requested_by: row.requested_by,
    scheduled_at: row.scheduled_at.toISOString(),
    started_at: iso(row.started_at),
    completed_at: iso(row.completed_at),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function verificationDto(row: VerificationRow): JobVerificationDto {
  return {
    job_id: row.job_id,
    certificate_id: row.certificate_id,
    endpoint: row.endpoint,
    result: row.result,
    expected_fingerprint_sha256: row.expected_fingerprint_sha256,
    served_fingerprint_sha256: row.served_fingerprint_sha256,
    error: row.error,
    checked_at: row.checked_at.toISOString(),
  };
}

/** Job rows and their deployment verifications (raw SQL, schema issuance). */
@Injectable()
export class JobRepository {
  constructor(@InjectDataSource('issuance') readonly dataSource: DataSource) {}

  async find(
    id: string,
    manager: EntityManager = this.dataSource.manager,
    lock = false,
  ): Promise<JobRow | null> {
    const rows: JobRow[] = await manager.query(
      `SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** Newest first; each filter is served by an index ending in (created_at DESC, id DESC). */
  async list(request: ListJobsRequest, page: ResolvedPage): Promise<Page<JobDto>> {
    const conditions: string[] = [];
    const values: unknown[] = [];
    for (const filter of ['status', 'type', 'certificate_id'] as const) {
      const value = request[filter];
      if (value === undefined) continue;
      values.push(value);
      conditions.push(`${filter} = $${values.length}`);
    }
    const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
    const [rows, [{ total }]] = await Promise.all([
      this.dataSource.query(
        `SELECT ${JOB_COLUMNS} FROM jobs ${where} ORDER BY created_at DESC, id DESC
         LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
        [...values, page.per_page, page.offset],
      ) as Promise<JobRow[]>,
      this.dataSource.query(`SELECT count(*)::int AS total FROM jobs ${where}`, values) as Promise<
        { total: number }[]
      >,
    ]);
    return pageOf(rows.map(jobDto), total, page);
  }

  async insert(manager: EntityManager, job: NewJob): Promise<JobRow> {
    const rows: JobRow[] = await manager.query(
      `INSERT INTO jobs (id, type, status, certificate_id, agent_id, target_id, requested_by, version_id,
         max_attempts)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, COALESCE($9, 3)) RETURNING ${JOB_COLUMNS}`,
      [
        `job-${randomUUID()}`,
        job.type,
        job.status,
        job.certificate_id,
        job.agent_id,
        job.target_id,
        job.requested_by,
        job.version_id,
        job.max_attempts ?? null,
      ],
    );
    return rows[0];
  }

  /** Writes a status the job machine allowed, with the timestamps and counters that go with it. */
  async setStatus(
    manager: EntityManager,
    id: string,
    status: JobStatus,
    changes: { error?: string; versionId?: string } = {},
  ): Promise<JobRow> {
    // TypeORM answers an UPDATE with [rows, affected].
    const [rows]: [JobRow[], number] = await manager.query(
      `UPDATE jobs SET status = $2,
         attempts = attempts + CASE WHEN $2::text = 'Running' THEN 1 ELSE 0 END,
         started_at = CASE WHEN $2::text = 'Running' THEN now() ELSE started_at END,
         completed_at = CASE WHEN $2::text IN ('Completed', 'Failed', 'Cancelled') THEN now() ELSE completed_at END,
         last_error = COALESCE($3, last_error),
         version_id = COALESCE($4, version_id),
         updated_at = now()
       WHERE id = $1 RETURNING ${JOB_COLUMNS}`,
      [id, status, changes.error ?? null, changes.versionId ?? null],
    );
    return rows[0];
  }

  /** Issuance and renewal jobs of a certificate still open (not finished), other than `exceptId`. */
  async openRenewals(manager: EntityManager, certificateId: string, exceptId: string): Promise<number> {
    const [{ n }]: { n: number }[] = await manager.query(
      `SELECT count(*)::int AS n FROM jobs
        WHERE certificate_id = $1 AND id <> $2 AND type IN ('Issuance', 'Renewal')
          AND status NOT IN ('Completed', 'Failed', 'Cancelled')`,
      [certificateId, exceptId],
    );
    return n;
  }

  /**
   * The certificates' open Issuance and Renewal jobs other than `exceptIds`, locked (certificates
   * locked first).
   */
  openVersionJobs(manager: EntityManager, certificateIds: string[], exceptIds: string[]): Promise<JobRow[]> {
    return manager.query(
      `SELECT ${JOB_COLUMNS} FROM jobs
        WHERE certificate_id = ANY($1::text[]) AND id <> ALL($2::text[]) AND type IN ('Issuance', 'Renewal')
          AND status NOT IN ('Completed', 'Failed', 'Cancelled')
        ORDER BY certificate_id, created_at, id FOR UPDATE`,
      [certificateIds, exceptIds],
    );
  }

  /**
   * Ids of an agent's jobs in `statuses`, oldest first: those assigned to it and those of its
   * certificates (the work protocol's "the agent's jobs", ADR 0027).
   */
  async agentJobIds(agentId: string, statuses: readonly JobStatus[], limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM jobs
        WHERE status = ANY($2::text[])
          AND (agent_id = $1 OR certificate_id IN (SELECT id FROM certificates WHERE agent_id = $1))
        ORDER BY created_at, id LIMIT $3`,
      [agentId, statuses, limit],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Claims a pending server-mode issuance or renewal job for this replica: the row lock with SKIP
   * LOCKED and the status check mean two replicas never both get it.
   */
  async claimPending(manager: EntityManager, id: string): Promise<JobRow | null> {
    const rows: JobRow[] = await manager.query(
      `SELECT ${JOB_COLUMNS} FROM jobs
        WHERE id = $1 AND status = 'Pending' AND type IN ('Issuance', 'Renewal')
        FOR UPDATE SKIP LOCKED`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** Pending server-mode work left behind (a replica stopped between commit and run). */
  async pendingIssuanceIds(limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM jobs WHERE status = 'Pending' AND type IN ('Issuance', 'Renewal')
        ORDER BY created_at LIMIT $1`,
      [limit],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Marks who runs a job: a service rather than an agent (ADR 0031), or the agent that started it;
   * row locked by the caller.
   */
  async markClaimed(manager: EntityManager, id: string, by: string): Promise<void> {
    await manager.query('UPDATE jobs SET claimed_by = $2 WHERE id = $1', [id, by]);
  }

  /** Who claimed the job ('' when nobody did). */
  async claimedBy(manager: EntityManager, id: string): Promise<string> {
    const rows: { claimed_by: string }[] = await manager.query('SELECT claimed_by FROM jobs WHERE id = $1', [
      id,
    ]);
    return rows[0]?.claimed_by ?? '';
  }

  async addVerification(
    manager: EntityManager,
    row: Omit<VerificationRow, 'checked_at'>,
  ): Promise<VerificationRow> {
    const rows: VerificationRow[] = await manager.query(
      `INSERT INTO job_verifications (job_id, certificate_id, endpoint, result, expected_fingerprint_sha256,
         served_fingerprint_sha256, error)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       RETURNING job_id, certificate_id, endpoint, result, expected_fingerprint_sha256,
         served_fingerprint_sha256, error, checked_at`,
      [
        row.job_id,
        row.certificate_id,
        row.endpoint,
        row.result,
        row.expected_fingerprint_sha256,
        row.served_fingerprint_sha256,
        row.error,
      ],
    );
    return rows[0];
  }

  async latestVerification(jobId: string): Promise<VerificationRow | null> {
    const rows: VerificationRow[] = await this.dataSource.query(
      `SELECT job_id, certificate_id, endpoint, result, expected_fingerprint_sha256, served_fingerprint_sha256,
         error, checked_at
       FROM job_verifications WHERE job_id = $1 ORDER BY checked_at DESC, id DESC LIMIT 1`,
      [jobId],
    );
    return rows[0] ?? null;
  }
}
