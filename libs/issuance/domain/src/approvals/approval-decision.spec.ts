import { ApprovalStatus } from '@certlane/contracts';
import {
  approvedJobStatus,
  decideApproval,
  ENROLLMENT_DEFAULT_TTL_SECONDS,
  enrollmentExpiry,
  ENROLLMENT_EXPIRY_REJECTION,
  enrollmentExpired,
  enrollmentState,
  needsIssuanceApproval,
} from './approval-decision';

const approval = (status: ApprovalStatus = 'pending') => ({ id: 'apr-1', status, requested_by: 'alice' });

describe('decideApproval', () => {
  it('approves when another actor decides', () => {
    expect(decideApproval(approval(), 'bob', 'approve')).toEqual({ ok: true, to: 'approved' });
  });

  it('refuses self-approval (spec 3: 403, stays pending)', () => {
    expect(decideApproval(approval(), 'alice', 'approve')).toMatchObject({
      ok: false,
      refusal: 'self_decision',
    });
  });

  it('refuses an approve without a decider identity', () => {
    expect(decideApproval(approval(), undefined, 'approve')).toMatchObject({ refusal: 'self_decision' });
    expect(decideApproval(approval(), '', 'approve')).toMatchObject({ refusal: 'self_decision' });
  });

  it('lets anyone reject, the requester included (a withdrawal)', () => {
    expect(decideApproval(approval(), 'alice', 'reject')).toEqual({ ok: true, to: 'rejected' });
    expect(decideApproval(approval(), 'bob', 'reject')).toEqual({ ok: true, to: 'rejected' });
  });

  it.each([
    ['approved', 'approve'],
    ['approved', 'reject'],
    ['rejected', 'approve'],
    ['rejected', 'reject'],
  ] as const)('refuses to decide an approval that is %s (%s)', (status, verdict) => {
    expect(decideApproval(approval(status), 'bob', verdict)).toEqual({
      ok: false,
      refusal: 'not_pending',
      message: `approval apr-1 is already ${status}`,
    });
  });
});

describe('approval of jobs', () => {
  it('sends an approved issuance or renewal to AwaitingCSR in agent mode, Pending otherwise', () => {
    expect(approvedJobStatus('Issuance', 'agent')).toBe('AwaitingCSR');
    expect(approvedJobStatus('Renewal', 'agent')).toBe('AwaitingCSR');
    expect(approvedJobStatus('Issuance', 'server')).toBe('Pending');
    expect(approvedJobStatus('Deployment', 'agent')).toBe('Pending');
  });

  it('gates only jobs that produce a version', () => {
    expect(needsIssuanceApproval('Issuance', true)).toBe(true);
    expect(needsIssuanceApproval('Renewal', true)).toBe(true);
    expect(needsIssuanceApproval('Deployment', true)).toBe(false);
    expect(needsIssuanceApproval('Issuance', false)).toBe(false);
  });
});

describe('external enrollments (ADR 0065)', () => {
  const now = new Date('2026-11-25T12:00:00Z');
  const later = new Date('2026-11-26T12:00:00Z');
  const earlier = new Date('2026-11-24T12:00:00Z');
  const enrollment = (expires: Date) => ({ ...approval(), enrollment_expires_at: expires });

  it('approves an enrollment before its deadline', () => {
    expect(decideApproval(enrollment(later), 'bob', 'approve', now)).toEqual({ ok: true, to: 'approved' });
  });

  it('refuses to approve an expired enrollment (409 not pending) but lets it be rejected', () => {
    expect(decideApproval(enrollment(earlier), 'bob', 'approve', now)).toEqual({
      ok: false,
      refusal: 'not_pending',
      message: 'approval apr-1 expired at 2026-11-24T12:00:00.000Z',
    });
    expect(decideApproval(enrollment(earlier), 'bob', 'reject', now)).toEqual({ ok: true, to: 'rejected' });
  });

  const row = (
    status: ApprovalStatus,
    expires: Date,
    pem: string | null = null,
    error: string | null = null,
  ) => ({
    status,
    enrollment_expires_at: expires,
    enrollment_certificate_pem: pem,
    enrollment_error: error,
  });

  it.each([
    ['pending before the deadline', row('pending', later), 'pending'],
    ['pending after the deadline', row('pending', earlier), 'expired'],
    ['approved, not issued yet', row('approved', later), 'pending'],
    ['approved and issued', row('approved', earlier, 'PEM'), 'issued'],
    ['approved, issuance failed', row('approved', later, null, 'CA offline'), 'failed'],
    ['rejected', row('rejected', later), 'rejected'],
    ['rejected after the deadline', row('rejected', earlier), 'rejected'],
    [
      'rejected by the expiry sweep',
      { ...row('rejected', earlier), ...ENROLLMENT_EXPIRY_REJECTION },
      'expired',
    ],
    [
      "rejected by an approver with the sweep's reason",
      { ...row('rejected', earlier), decided_by: 'bob', reason: 'expired' },
      'rejected',
    ],
  ] as const)('%s is %s', (_name, approvalRow, state) => {
    expect(enrollmentState(approvalRow, now)).toBe(state);
  });

  it.each([
    ['pending before the deadline', row('pending', later), false],
    ['pending at the deadline', row('pending', now), true],
    ['pending after the deadline', row('pending', earlier), true],
    [
      'pending without a deadline (not an enrollment)',
      { status: 'pending', enrollment_expires_at: null },
      false,
    ],
    ['approved after the deadline', row('approved', earlier), false],
    ['rejected after the deadline', row('rejected', earlier), false],
  ] as const)('the expiry sweep: %s is swept: %s', (_name, approvalRow, swept) => {
    expect(enrollmentExpired(approvalRow, now)).toBe(swept);
  });
});

describe('enrollmentExpiry', () => {
  const at = Date.parse('2026-11-30T00:00:00.000Z');

  it('lasts the default TTL when the protocol gives nothing', () => {
    expect(enrollmentExpiry({}, at).getTime()).toBe(at + ENROLLMENT_DEFAULT_TTL_SECONDS * 1000);
  });
  it("lasts the protocol's TTL", () => {
    expect(enrollmentExpiry({ expires_in_seconds: 60 }, at).getTime()).toBe(at + 60_000);
  });
  it('ends at the absolute deadline to the millisecond when that comes first', () => {
    expect(enrollmentExpiry({ expires_at: '2026-11-30T01:00:00.002Z' }, at).toISOString()).toBe(
      '2026-11-30T01:00:00.002Z',
    );
  });
  it('keeps the TTL when the deadline is later', () => {
    expect(
      enrollmentExpiry({ expires_in_seconds: 60, expires_at: '2026-12-30T00:00:00Z' }, at).getTime(),
    ).toBe(at + 60_000);
  });
});
