import { ApprovalStatus } from '@certlane/contracts';
import { approvedJobStatus, decideApproval, needsIssuanceApproval } from './approval-decision';

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
