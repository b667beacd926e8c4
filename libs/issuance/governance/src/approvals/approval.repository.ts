import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ApprovalDto,
  ApprovalEnrollmentDto,
  ApprovalKind,
  ApprovalStatus,
  ListApprovalsRequest,
  Page,
  ProfileEkuName,
  ResolvedPage,
  SanInput,
} from '@certlane/contracts';
import { DataSource, EntityManager } from 'typeorm';
import { pageOf } from '@certlane/issuance-data-access';
import { enrollmentState } from '@certlane/issuance-domain';

export interface ApprovalRow {
  id: string;
  approval_kind: ApprovalKind;
  status: ApprovalStatus;
  certificate_id: string | null;
  job_id: string | null;
  profile_id: string | null;
  payload: Record<string, unknown> | null;
  requested_by: string;
  decided_by: string | null;
  decided_at: Date | null;
  reason: string;
  created_at: Date;
  /** An external enrollment (ADR 0065, migration 0016); the enrollment_* columns are null otherwise. */
  enrollment: EnrollmentRequest | null;
  enrollment_key: string | null;
  enrollment_expires_at: Date | null;
  enrollment_certificate_pem: string | null;
  enrollment_serial_hex: string | null;
  enrollment_error: string | null;
  /** The chain the enrollment was issued with, and its alternates (migration 0020; null before). */
  enrollment_chain_pem: string | null;
  enrollment_alternate_chains: string[] | null;
}

/** What an external enrollment asked for (the `enrollment` column). */
export type EnrollmentRequest = Pick<
  ApprovalEnrollmentDto,
  | 'source'
  | 'subject'
  | 'dns_names'
  | 'key_algorithm'
  | 'csr_pem'
  | 'issuer_id'
  | 'owner_id'
  | 'team_id'
  | 'reference'
> & {
  tags: Record<string, string>;
  /** Issued with these (ACME under a certificate profile, ADR 0068); not shown to approvers. */
  validity_days?: number;
  not_before?: string;
  not_after?: string;
  must_staple?: boolean;
  extended_key_usage?: ProfileEkuName[];
  /** Certified instead of the CSR's names (ACME: the order's identifiers, the common name only). */
  sans?: SanInput[];
  subject_common_name?: string;
  version_of?: string;
};

/** What issuing an approved enrollment gave: the leaf, its chain and alternates, its inventory id. */
export interface IssuedEnrollment {
  certificate_pem: string;
  chain_pem: string;
  alternate_chains_pem: string[];
  serial_hex: string;
  certificate_id: string | null;
}

export type NewApproval = Pick<
  ApprovalRow,
  'approval_kind' | 'certificate_id' | 'job_id' | 'profile_id' | 'payload' | 'requested_by'
>;

const COLUMNS = `id, approval_kind, status, certificate_id, job_id, profile_id, payload, requested_by,
  decided_by, decided_at, reason, created_at, enrollment, enrollment_key, enrollment_expires_at,
  enrollment_certificate_pem, enrollment_serial_hex, enrollment_error, enrollment_chain_pem,
  enrollment_alternate_chains`;

function enrollmentDto(row: ApprovalRow, now: Date): ApprovalEnrollmentDto | null {
  if (!row.enrollment) return null;
  const {
    tags: _tags,
    validity_days: _days,
    not_before: _notBefore,
    not_after: _notAfter,
    must_staple: _staple,
    extended_key_usage: _ekus,
    sans: _sans,
    subject_common_name: _commonName,
    version_of: _versionOf,
    ...request
  } = row.enrollment;
  return {
    ...request,
    state: enrollmentState(row, now),
    expires_at: (row.enrollment_expires_at as Date).toISOString(),
    serial_hex: row.enrollment_serial_hex,
    error: row.enrollment_error,
  };
}

export function approvalDto(row: ApprovalRow): ApprovalDto {
  return {
    id: row.id,
    approval_kind: row.approval_kind,
    status: row.status,
    certificate_id: row.certificate_id,
    job_id: row.job_id,
    profile_id: row.profile_id,
    payload: row.payload,
    requested_by: row.requested_by,
    decided_by: row.decided_by,
    decided_at: row.decided_at ? row.decided_at.toISOString() : null,
    reason: row.reason,
    created_at: row.created_at.toISOString(),
    enrollment: enrollmentDto(row, new Date()),
  };
}

/** Approval requests (raw SQL, schema issuance; migration 0006). */
@Injectable()
export class ApprovalRepository {
  constructor(@InjectDataSource('issuance') readonly dataSource: DataSource) {}

  /** Whether the profile requires approval (its row key-share locked against a concurrent delete). */
  async profileRequiresApproval(manager: EntityManager, id: string): Promise<boolean> {
    if (!id) return false;
    const rows: { requires_approval: boolean }[] = await manager.query(
      'SELECT requires_approval FROM profiles WHERE id = $1 FOR KEY SHARE',
      [id],
    );
    return rows[0]?.requires_approval ?? false;
  }

  async find(
    id: string,
    manager: EntityManager = this.dataSource.manager,
    lock = false,
  ): Promise<ApprovalRow | null> {
    const rows: ApprovalRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM approvals WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** The open approval of a job, locked (at most one: approvals_pending_job). */
  async pendingForJob(manager: EntityManager, jobId: string): Promise<ApprovalRow | null> {
    const rows: ApprovalRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM approvals WHERE job_id = $1 AND status = 'pending' FOR UPDATE`,
      [jobId],
    );
    return rows[0] ?? null;
  }

  /** Open edits of a profile, locked. */
  async pendingEditsOf(manager: EntityManager, profileId: string): Promise<ApprovalRow[]> {
    return manager.query(
      `SELECT ${COLUMNS} FROM approvals
        WHERE profile_id = $1 AND status = 'pending' AND approval_kind = 'profile_edit'
        ORDER BY created_at FOR UPDATE`,
      [profileId],
    );
  }

  /** Newest first; the filters are served by approvals_status and approvals_kind. */
  async list(request: ListApprovalsRequest, page: ResolvedPage): Promise<Page<ApprovalDto>> {
    const conditions: string[] = [];
    const params: unknown[] = [];
    for (const filter of ['approval_kind', 'status'] as const) {
      const value = request[filter];
      if (value === undefined) continue;
      params.push(value);
      conditions.push(`${filter} = $${params.length}`);
    }
    const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
    const [rows, [{ total }]] = await Promise.all([
      this.dataSource.query(
        `SELECT ${COLUMNS} FROM approvals ${where} ORDER BY created_at DESC, id DESC
         LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, page.per_page, page.offset],
      ) as Promise<ApprovalRow[]>,
      this.dataSource.query(`SELECT count(*)::int AS total FROM approvals ${where}`, params) as Promise<
        { total: number }[]
      >,
    ]);
    return pageOf(rows.map(approvalDto), total, page);
  }

  async insert(manager: EntityManager, approval: NewApproval): Promise<ApprovalRow> {
    const rows: ApprovalRow[] = await manager.query(
      `INSERT INTO approvals (id, approval_kind, certificate_id, job_id, profile_id, payload, requested_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
      [
        `apr-${randomUUID()}`,
        approval.approval_kind,
        approval.certificate_id,
        approval.job_id,
        approval.profile_id,
        approval.payload === null ? null : JSON.stringify(approval.payload),
        approval.requested_by,
      ],
    );
    return rows[0];
  }

  /**
   * The cert_issuance approval of an external enrollment, or the one its `reference_key` opened
   * before (`created` false): a resent protocol request never opens a second approval.
   */
  async insertEnrollment(
    manager: EntityManager,
    enrollment: {
      key: string;
      request: EnrollmentRequest;
      profile_id: string | null;
      requested_by: string;
      expires_at: Date;
    },
  ): Promise<{ row: ApprovalRow; created: boolean }> {
    const inserted: ApprovalRow[] = await manager.query(
      `INSERT INTO approvals (id, approval_kind, profile_id, requested_by, enrollment, enrollment_key,
         enrollment_expires_at)
       VALUES ($1, 'cert_issuance', $2, $3, $4, $5, $6)
       ON CONFLICT (enrollment_key) WHERE enrollment_key IS NOT NULL DO NOTHING
       RETURNING ${COLUMNS}`,
      [
        `apr-${randomUUID()}`,
        enrollment.profile_id,
        enrollment.requested_by,
        JSON.stringify(enrollment.request),
        enrollment.key,
        enrollment.expires_at,
      ],
    );
    if (inserted[0]) return { row: inserted[0], created: true };
    const existing: ApprovalRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM approvals WHERE enrollment_key = $1`,
      [enrollment.key],
    );
    return { row: existing[0], created: false };
  }

  /** What issuing an approved enrollment came to: the certificate (and its inventory id), or why not. */
  async finishEnrollment(
    manager: EntityManager,
    id: string,
    outcome: IssuedEnrollment | { error: string },
  ): Promise<ApprovalRow> {
    const issued = 'certificate_pem' in outcome;
    const [rows]: [ApprovalRow[], number] = await manager.query(
      `UPDATE approvals SET enrollment_certificate_pem = $2, enrollment_serial_hex = $3,
         certificate_id = $4, enrollment_error = $5, enrollment_chain_pem = $6,
         enrollment_alternate_chains = $7
        WHERE id = $1 AND enrollment IS NOT NULL RETURNING ${COLUMNS}`,
      [
        id,
        issued ? outcome.certificate_pem : null,
        issued ? outcome.serial_hex : null,
        issued ? outcome.certificate_id : null,
        issued ? null : outcome.error,
        issued ? outcome.chain_pem : null,
        issued ? outcome.alternate_chains_pem : null,
      ],
    );
    return rows[0];
  }

  /** cert_issuance approvals of jobs created together (bulk renew), in one statement. */
  async insertIssuanceMany(
    manager: EntityManager,
    jobs: readonly { id: string; certificate_id: string; profile_id: string }[],
    requestedBy: string,
  ): Promise<ApprovalRow[]> {
    if (jobs.length === 0) return [];
    return manager.query(
      `INSERT INTO approvals (id, approval_kind, certificate_id, job_id, profile_id, requested_by)
       SELECT 'apr-' || gen_random_uuid(), 'cert_issuance', j.certificate_id, j.id, j.profile_id, $4
       FROM unnest($1::text[], $2::text[], $3::text[]) AS j(id, certificate_id, profile_id)
       RETURNING ${COLUMNS}`,
      [jobs.map((j) => j.id), jobs.map((j) => j.certificate_id), jobs.map((j) => j.profile_id), requestedBy],
    );
  }

  /**
   * Rejects up to `limit` external enrollments still pending at `now` past their deadline (the
   * expiry sweep, `enrollmentExpired`) in one statement. Rows another transaction holds (a
   * decision under way, another replica's sweep) are skipped, and the status guard is checked
   * again under the lock: each approval is rejected once, by whoever gets it.
   */
  async rejectExpiredEnrollments(
    manager: EntityManager,
    now: Date,
    limit: number,
    rejection: { decided_by: string; reason: string },
  ): Promise<ApprovalRow[]> {
    const [rows]: [ApprovalRow[], number] = await manager.query(
      `WITH due AS (
         SELECT id AS due_id FROM approvals
          WHERE status = 'pending' AND enrollment IS NOT NULL AND enrollment_expires_at <= $1
          ORDER BY enrollment_expires_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
       UPDATE approvals SET status = 'rejected', decided_by = $3, decided_at = now(), reason = $4
         FROM due WHERE id = due_id AND status = 'pending'
       RETURNING ${COLUMNS}`,
      [now, limit, rejection.decided_by, rejection.reason],
    );
    return rows;
  }

  async decide(
    manager: EntityManager,
    id: string,
    status: Exclude<ApprovalStatus, 'pending'>,
    decidedBy: string,
    reason: string,
  ): Promise<ApprovalRow> {
    const [rows]: [ApprovalRow[], number] = await manager.query(
      `UPDATE approvals SET status = $2, decided_by = $3, decided_at = now(), reason = $4
        WHERE id = $1 AND status = 'pending' RETURNING ${COLUMNS}`,
      [id, status, decidedBy, reason],
    );
    return rows[0];
  }
}
