import { ApprovalDto, ProfileDto } from '@certlane/contracts';
import { eventually } from '@certlane/testing';
import { InProcessService, startInProcessService } from '@certlane/testing-in-process';
import { IssuanceModule } from '../issuance.module';

const requester = { actor_id: 'usr-requester' };
const reviewer = { actor_id: 'usr-reviewer' };

/**
 * The approval service through its bus subjects, in process (ADR 0048; spec 2.10, section 3;
 * ADR 0025), on profile edits held by a profile that requires approval.
 */
describe('approval service', () => {
  let service: InProcessService;

  beforeAll(async () => {
    service = await startInProcessService({ services: ['issuance'], modules: [IssuanceModule.forRoot()] });
  }, 30_000);

  afterAll(async () => {
    await service?.close();
  });

  /** A profile that requires approval and one edit of it held by `requester`. */
  async function heldEdit(name: string): Promise<{ profile: ProfileDto; approvalId: string }> {
    const profile = await service.bus.request(
      'issuance.v1.create-profile',
      { name, requires_approval: true },
      { context: requester },
    );
    const held = await service.bus.request(
      'issuance.v1.update-profile',
      { id: profile.id, description: 'reviewed', must_staple: true },
      { context: requester },
    );
    if (held.applied) throw new Error('the edit was applied instead of held');
    return { profile, approvalId: held.pending_approval_id };
  }

  const getApproval = (id: string) => service.bus.request('issuance.v1.get-approval', { id });
  const getProfile = (id: string) => service.bus.request('issuance.v1.get-profile', { id });

  it('refuses an approval that names no deciding actor as a self decision; the edit stays pending', async () => {
    const { profile, approvalId } = await heldEdit('No Actor');
    await expect(
      service.bus.request('issuance.v1.approve-approval', { id: approvalId }),
    ).rejects.toMatchObject({
      code: 'approval_self_decision',
      details: { approval_id: approvalId, status: 'pending' },
    });
    expect(await getApproval(approvalId)).toMatchObject({ status: 'pending', decided_by: null });
    expect(await getProfile(profile.id)).toEqual(profile);
  });

  it('refuses the requester approving their own edit, but lets them withdraw it by rejecting', async () => {
    const { profile, approvalId } = await heldEdit('Withdrawn');
    await expect(
      service.bus.request('issuance.v1.approve-approval', { id: approvalId }, { context: requester }),
    ).rejects.toMatchObject({ code: 'approval_self_decision' });
    const rejected = await service.bus.request(
      'issuance.v1.reject-approval',
      { id: approvalId },
      { context: requester },
    );
    expect(rejected).toMatchObject({
      status: 'rejected',
      decided_by: requester.actor_id,
      reason: 'rejected',
    });
    expect(await getProfile(profile.id)).toEqual(profile);
  });

  it('applies an approved edit: decided by the reviewer with the trimmed reason, and the decision published on the bus', async () => {
    const { profile, approvalId } = await heldEdit('Approved');
    const decided: ApprovalDto[] = [];
    await service.bus.subscribe('issuance.v1.approval.decided', async (event) => {
      decided.push(event.data);
    });
    const approved = await service.bus.request(
      'issuance.v1.approve-approval',
      { id: approvalId, reason: '  looks right  ' },
      { context: reviewer },
    );
    expect(approved).toMatchObject({
      status: 'approved',
      requested_by: requester.actor_id,
      decided_by: reviewer.actor_id,
      reason: 'looks right',
    });
    expect(await getProfile(profile.id)).toMatchObject({
      description: 'reviewed',
      must_staple: true,
      requires_approval: true,
    });
    await eventually(() => decided.some((a) => a.id === approvalId), 'the approval.decided event');
    expect(decided.find((a) => a.id === approvalId)).toEqual(approved);
  });

  it('answers approval_not_pending, with the status it has, to a second decision either way', async () => {
    const { approvalId } = await heldEdit('Decided Once');
    await service.bus.request(
      'issuance.v1.reject-approval',
      { id: approvalId, reason: 'no' },
      { context: reviewer },
    );
    for (const subject of ['issuance.v1.approve-approval', 'issuance.v1.reject-approval'] as const) {
      await expect(
        service.bus.request(subject, { id: approvalId }, { context: reviewer }),
      ).rejects.toMatchObject({ code: 'approval_not_pending', details: { status: 'rejected' } });
    }
    expect(await getApproval(approvalId)).toMatchObject({ status: 'rejected', reason: 'no' });
  });

  it('lists approvals filtered by status, and answers approval_not_found for an unknown id', async () => {
    const { approvalId: pendingId } = await heldEdit('Still Pending');
    const { approvalId: rejectedId } = await heldEdit('Turned Down');
    await service.bus.request('issuance.v1.reject-approval', { id: rejectedId }, { context: reviewer });
    const pending = await service.bus.request('issuance.v1.list-approvals', {
      status: 'pending',
      approval_kind: 'profile_edit',
      per_page: 100,
    });
    const ids = pending.data.map((approval) => approval.id);
    expect(ids).toContain(pendingId);
    expect(ids).not.toContain(rejectedId);
    expect(pending.data.every((approval) => approval.status === 'pending')).toBe(true);
    for (const request of [
      () => service.bus.request('issuance.v1.get-approval', { id: 'apr-missing' }),
      () => service.bus.request('issuance.v1.approve-approval', { id: 'apr-missing' }, { context: reviewer }),
      () => service.bus.request('issuance.v1.reject-approval', { id: 'apr-missing' }, { context: reviewer }),
    ]) {
      await expect(request()).rejects.toMatchObject({ code: 'approval_not_found' });
    }
  });
});
