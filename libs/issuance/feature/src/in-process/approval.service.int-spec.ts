import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { ApprovalDto, ProfileDto } from '@certlane/contracts';
import { parseCertificates } from '@certlane/pki';
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

/** A P-256 CSR made by the openssl CLI, with a DNS name. */
function opensslCsr(cn: string): string {
  return execFileSync(
    'openssl',
    [
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      '/dev/null',
    ].concat(['-subj', `/CN=${cn}`, '-addext', `subjectAltName=DNS:${cn}.example.test`]),
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
  );
}

/** Approvals of external enrollments (ADR 0065) through their bus subjects, in process. */
describe('approval service: external enrollments', () => {
  let service: InProcessService;

  beforeAll(async () => {
    service = await startInProcessService({ services: ['issuance'], modules: [IssuanceModule.forRoot()] });
  }, 30_000);

  afterAll(async () => {
    await service?.close();
  });

  const hold = (key: string, csr: string, extra: Record<string, unknown> = {}) =>
    service.bus.request('issuance.v1.request-enrollment-approval', {
      source: 'SCEP',
      csr_pem: csr,
      reference_key: key,
      reference: { scep_profile: 'phones', transaction_id: key },
      requested_by: 'scep:device',
      tags: { scep_profile: 'phones' },
      ...extra,
    });
  const outcome = (id: string) => service.bus.request('issuance.v1.get-enrollment-approval', { id });

  it('opens one approval per reference key with the CSR summary read by issuance, and refuses a bad CSR', async () => {
    const csr = opensslCsr('enrolled-one');
    const first = await hold('scep:p:one', csr);
    const again = await hold('scep:p:one', csr);
    expect(again.id).toBe(first.id);
    expect(first).toMatchObject({
      approval_kind: 'cert_issuance',
      status: 'pending',
      certificate_id: null,
      job_id: null,
      payload: null,
      requested_by: 'scep:device',
      enrollment: {
        source: 'SCEP',
        state: 'pending',
        subject: 'CN=enrolled-one',
        dns_names: ['enrolled-one.example.test'],
        key_algorithm: 'ECDSA-P256',
        reference: { scep_profile: 'phones', transaction_id: 'scep:p:one' },
        serial_hex: null,
      },
    });
    expect(await outcome(first.id)).toEqual({
      approval_id: first.id,
      state: 'pending',
      certificate_pem: null,
      chain_pem: null,
      alternate_chains_pem: [],
      issuer_id: null,
      serial_hex: null,
      certificate_id: null,
      reason: null,
    });
    await expect(hold('scep:p:bad', 'not a csr')).rejects.toMatchObject({ code: 'csr_invalid' });
  });

  it('refuses the requester approving; another actor approves, issuance issues and imports it, and the outcome hands out the certificate', async () => {
    const approval = await hold('scep:p:two', opensslCsr('enrolled-two'));
    await expect(
      service.bus.request(
        'issuance.v1.approve-approval',
        { id: approval.id },
        { context: { actor_id: 'scep:device' } },
      ),
    ).rejects.toMatchObject({ code: 'approval_self_decision' });
    const approved = await service.bus.request(
      'issuance.v1.approve-approval',
      { id: approval.id, reason: 'known' },
      { context: reviewer },
    );
    expect(approved).toMatchObject({
      status: 'approved',
      decided_by: 'usr-reviewer',
      enrollment: { state: 'issued' },
    });
    const picked = await outcome(approval.id);
    expect(picked.state).toBe('issued');
    const issued = new X509Certificate(picked.certificate_pem!);
    expect(issued.subject).toBe('CN=enrolled-two');
    expect(issued.serialNumber.toLowerCase()).toBe(approved.enrollment!.serial_hex!.toLowerCase());
    // What ACME stores of it (issuer and serial for revokeCert, the inventory id): ADR 0068 amendment.
    expect(picked).toMatchObject({
      issuer_id: 'iss-local',
      serial_hex: approved.enrollment!.serial_hex,
      certificate_id: approved.certificate_id,
      alternate_chains_pem: [],
    });
    // The chain it was issued with, kept with the approval: the issuing CA first (ADR 0070 amendment).
    const [issuingCa] = parseCertificates(picked.chain_pem!).map((ca) => new X509Certificate(ca.der));
    expect(issued.checkIssued(issuingCa)).toBe(true);
    const certificate = await service.bus.request('issuance.v1.get-certificate', {
      id: approved.certificate_id!,
    });
    expect(certificate).toMatchObject({ source: 'SCEP', tags: { scep_profile: 'phones' } });
    await expect(
      service.bus.request('issuance.v1.approve-approval', { id: approval.id }, { context: reviewer }),
    ).rejects.toMatchObject({ code: 'approval_not_pending' });
  });

  it('records an approved renewal (renews_certificate_pem of an inventory certificate) as its next version; a bad PEM is refused', async () => {
    const first = await hold('scep:p:renew-1', opensslCsr('enrolled-renew'));
    const firstApproved = await service.bus.request(
      'issuance.v1.approve-approval',
      { id: first.id },
      { context: reviewer },
    );
    const firstPem = (await outcome(first.id)).certificate_pem!;
    const renewal = await hold('scep:p:renew-2', opensslCsr('enrolled-renew'), {
      renews_certificate_pem: firstPem,
    });
    const renewalApproved = await service.bus.request(
      'issuance.v1.approve-approval',
      { id: renewal.id },
      { context: reviewer },
    );
    expect(renewalApproved.certificate_id).toBe(firstApproved.certificate_id);
    const certificate = await service.bus.request('issuance.v1.get-certificate', {
      id: firstApproved.certificate_id!,
    });
    const versions = await service.bus.request('issuance.v1.list-certificate-versions', {
      id: firstApproved.certificate_id!,
    });
    expect(versions.data.map((v) => v.serial_number).sort()).toEqual(
      [firstApproved.enrollment!.serial_hex, renewalApproved.enrollment!.serial_hex].sort(),
    );
    expect(certificate.current_version_id).toBe(
      versions.data.find((v) => v.serial_number === renewalApproved.enrollment!.serial_hex)!.id,
    );
    await expect(
      hold('scep:p:renew-bad', opensslCsr('enrolled-renew'), { renews_certificate_pem: 'not a certificate' }),
    ).rejects.toMatchObject({ code: 'validation_failed', details: { field: 'renews_certificate_pem' } });
  });

  it('issues an approved ACME enrollment with the validity and must-staple it asked for, which approvers are not shown', async () => {
    const approval = await hold('acme:order-staple', opensslCsr('enrolled-staple'), {
      source: 'ACME',
      validity_days: 7,
      must_staple: true,
    });
    expect(approval.enrollment).not.toHaveProperty('validity_days');
    expect(approval.enrollment).not.toHaveProperty('must_staple');
    await service.bus.request('issuance.v1.approve-approval', { id: approval.id }, { context: reviewer });
    const picked = await outcome(approval.id);
    expect(picked.state).toBe('issued');
    const [leaf] = parseCertificates(picked.certificate_pem!);
    expect(leaf.decoded.mustStaple).toBe(true);
    expect((leaf.notAfter.getTime() - leaf.notBefore.getTime()) / 86_400_000).toBeLessThanOrEqual(7.05);
  });

  it('answers rejected with the reason, and failed when the approved CSR cannot be issued', async () => {
    const rejected = await hold('scep:p:three', opensslCsr('enrolled-three'));
    await service.bus.request(
      'issuance.v1.reject-approval',
      { id: rejected.id, reason: 'no' },
      { context: reviewer },
    );
    expect(await outcome(rejected.id)).toMatchObject({
      state: 'rejected',
      reason: 'no',
      certificate_pem: null,
    });
    const doomed = await hold('scep:p:four', opensslCsr('enrolled-four'), { issuer_id: 'no-such-issuer' });
    const approved = await service.bus.request(
      'issuance.v1.approve-approval',
      { id: doomed.id },
      { context: reviewer },
    );
    expect(approved.enrollment).toMatchObject({
      state: 'failed',
      error: expect.stringContaining('no-such-issuer'),
    });
    expect(await outcome(doomed.id)).toMatchObject({ state: 'failed', certificate_pem: null });
  });
});
