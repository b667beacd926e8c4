import {
  ApprovalDto,
  AuditEventDto,
  CertificateDto,
  CertificateVersionDto,
  JobDto,
  Page,
  ProfileDto,
} from '@certlane/contracts';
import { parseCertificate } from '@certlane/pki';
import { eventually, httpsRequest, HttpsResult, startTestSystem, TestSystem } from '@certlane/testing';

const ADMIN_ACTOR = 'actor-service-auth-secret';

/**
 * Profiles and approvals end to end (ADR 0025), through the gateway over HTTPS against the real
 * auth, issuance and gateway processes, in server key generation: profile CRUD and enforcement
 * on issuance, the issuance approval flow (held job, self-approval refused, another actor
 * approves and the certificate is issued), rejection, and profile edits held for approval.
 */
describe('profiles and approvals (server key generation)', () => {
  let system: TestSystem;
  let admin: string;
  let operator: string;
  let operatorActor: string;

  const call = async (key: string, method: string, path: string, body?: unknown): Promise<HttpsResult> =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const api = (method: string, path: string, body?: unknown) => call(admin, method, path, body);
  const json = <T>(response: HttpsResult) => response.json() as T;
  const ok = async <T>(response: Promise<HttpsResult>, status: number): Promise<T> => {
    const r = await response;
    expect(`${r.status} ${r.status === status ? '' : r.text}`).toBe(`${status} `);
    return json<T>(r);
  };
  const jobsOf = async (certificateId: string) =>
    (await ok<Page<JobDto>>(api('GET', `/api/v1/jobs?certificate_id=${certificateId}`), 200)).data;
  const pendingApprovalOfJob = async (jobId: string) => {
    const page = await ok<Page<ApprovalDto>>(
      api('GET', '/api/v1/approvals?status=pending&approval_kind=cert_issuance&per_page=500'),
      200,
    );
    return page.data.find((a) => a.job_id === jobId);
  };

  beforeAll(async () => {
    system = await startTestSystem('profiles', ['auth', 'issuance', 'api-gateway'], {
      SERVICE_KEYGEN_MODE: 'server',
    });
    admin = system.env.SERVICE_AUTH_SECRET!;
    const created = await ok<{ key: string; actor_id: string }>(
      api('POST', '/api/v1/auth/api-keys', { name: 'second-approver', role_ids: ['r-operator'] }),
      201,
    );
    operator = created.key;
    operatorActor = created.actor_id;
    expect(operatorActor).not.toBe(ADMIN_ACTOR);
  }, 90_000);

  afterAll(async () => {
    await system?.stop();
  });

  describe('profiles', () => {
    it('creates a profile, dropping unknown required attribute names and normalising spellings', async () => {
      const profile = await ok<ProfileDto>(
        api('POST', '/api/v1/profiles', {
          name: 'Strict web',
          description: 'web servers',
          allowed_key_algorithms: ['ECDSA-P256'],
          allowed_ekus: ['id-kp-serverAuth', 'clientAuth'],
          required_csr_attributes: ['commonName', 'serverAuth', 'favouriteColour'],
          must_staple: true,
          validity_days: 60,
        }),
        201,
      );
      expect(profile).toMatchObject({
        id: 'prof-strict-web',
        name: 'Strict web',
        allowed_key_algorithms: ['ECDSA-P256'],
        allowed_ekus: ['serverAuth', 'clientAuth'],
        required_csr_attributes: ['CN', 'serverAuth'],
        must_staple: true,
        validity_days: 60,
        requires_approval: false,
      });
      expect(await ok<ProfileDto>(api('GET', '/api/v1/profiles/prof-strict-web'), 200)).toEqual(profile);
      const list = await ok<Page<ProfileDto>>(api('GET', '/api/v1/profiles?per_page=1'), 200);
      expect(list).toMatchObject({ total: 1, page: 1, per_page: 1 });
    });

    it('refuses a taken id (409), bad fields (400), and answers 404 for an unknown profile', async () => {
      expect((await api('POST', '/api/v1/profiles', { id: 'prof-strict-web', name: 'again' })).status).toBe(
        409,
      );
      const bad = await api('POST', '/api/v1/profiles', { name: 'x', allowed_key_algorithms: ['DSA-1024'] });
      expect(bad.status).toBe(400);
      expect((await api('POST', '/api/v1/profiles', { name: 'x', validity_days: 0 })).status).toBe(400);
      expect((await api('GET', '/api/v1/profiles/prof-nope')).status).toBe(404);
      expect((await api('PUT', '/api/v1/profiles/prof-nope', { description: 'x' })).status).toBe(404);
      expect((await api('DELETE', '/api/v1/profiles/prof-nope')).status).toBe(404);
    });

    it('refuses a certificate naming an unknown profile: 400 reference_invalid', async () => {
      const response = await api('POST', '/api/v1/certificates', {
        id: 'pa-unknown-profile',
        common_name: 'unknown.example.com',
        profile_id: 'prof-nope',
      });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ code: 'reference_invalid', details: { field: 'profile_id' } });
    });

    it('issues under the profile: must-staple and the profile validity', async () => {
      const certificate = await ok<CertificateDto>(
        api('POST', '/api/v1/certificates', {
          id: 'pa-strict-ok',
          common_name: 'strict.example.com',
          key_algorithm: 'ECDSA-P256',
          profile_id: 'prof-strict-web',
        }),
        201,
      );
      expect(certificate.status).toBe('Active');
      const [version] = (
        await ok<Page<CertificateVersionDto>>(api('GET', '/api/v1/certificates/pa-strict-ok/versions'), 200)
      ).data;
      const leaf = parseCertificate(version.cert_pem);
      expect(leaf.decoded.mustStaple).toBe(true);
      const days = (leaf.notAfter.getTime() - leaf.notBefore.getTime()) / 86_400_000;
      expect(Math.round(days)).toBe(60);
    });

    it('fails the issuance job naming the rule when the generated CSR breaks the profile', async () => {
      const certificate = await ok<CertificateDto>(
        api('POST', '/api/v1/certificates', {
          id: 'pa-strict-rsa',
          common_name: 'rsa.example.com',
          key_algorithm: 'RSA-2048',
          profile_id: 'prof-strict-web',
        }),
        201,
      );
      expect(certificate.status).toBe('Failed');
      const [job] = await jobsOf('pa-strict-rsa');
      expect(job.status).toBe('Failed');
      expect(job.last_error).toBe(
        'the CSR breaks rule allowed_key_algorithms of profile prof-strict-web: key algorithm RSA-2048 is not allowed (allowed: ECDSA-P256)',
      );
    });

    it('refuses to delete a profile certificates use (409) and deletes an unused one (204)', async () => {
      const inUse = await api('DELETE', '/api/v1/profiles/prof-strict-web');
      expect(inUse.status).toBe(409);
      expect(inUse.json()).toMatchObject({ code: 'profile_in_use', details: { certificates: 2 } });
      await ok(api('POST', '/api/v1/profiles', { id: 'prof-unused', name: 'Unused' }), 201);
      expect((await api('DELETE', '/api/v1/profiles/prof-unused')).status).toBe(204);
      expect((await api('GET', '/api/v1/profiles/prof-unused')).status).toBe(404);
    });

    it('applies an edit at once when no approval is involved (200)', async () => {
      const updated = await ok<ProfileDto>(
        api('PUT', '/api/v1/profiles/prof-strict-web', { description: 'changed', validity_days: null }),
        200,
      );
      expect(updated).toMatchObject({ description: 'changed', validity_days: null, must_staple: true });
    });
  });

  describe('issuance approval', () => {
    let certificateJob: string;
    let approvalId: string;

    beforeAll(async () => {
      await ok(
        api('POST', '/api/v1/profiles', { id: 'prof-gated', name: 'Gated', requires_approval: true }),
        201,
      );
    });

    it('holds the issuance job in AwaitingApproval with a pending cert_issuance approval', async () => {
      const certificate = await ok<CertificateDto>(
        api('POST', '/api/v1/certificates', {
          id: 'pa-gated',
          common_name: 'gated.example.com',
          profile_id: 'prof-gated',
        }),
        201,
      );
      expect(certificate).toMatchObject({ status: 'Pending', current_version_id: null });
      const [job] = await jobsOf('pa-gated');
      expect(job).toMatchObject({ type: 'Issuance', status: 'AwaitingApproval', requested_by: ADMIN_ACTOR });
      certificateJob = job.id;
      const approval = await pendingApprovalOfJob(job.id);
      expect(approval).toMatchObject({
        approval_kind: 'cert_issuance',
        status: 'pending',
        certificate_id: 'pa-gated',
        job_id: job.id,
        profile_id: 'prof-gated',
        payload: null,
        requested_by: ADMIN_ACTOR,
        decided_by: null,
      });
      approvalId = approval!.id;
    });

    it('refuses self-approval with 403, on the approval and on the job route; it stays pending', async () => {
      const self = await api('POST', `/api/v1/approvals/${approvalId}/approve`);
      expect(self.status).toBe(403);
      expect(self.json()).toMatchObject({ code: 'approval_self_decision' });
      const viaJob = await api('POST', `/api/v1/jobs/${certificateJob}/approve`);
      expect(viaJob.status).toBe(403);
      expect(await ok<ApprovalDto>(api('GET', `/api/v1/approvals/${approvalId}`), 200)).toMatchObject({
        status: 'pending',
      });
      expect((await ok<JobDto>(api('GET', `/api/v1/jobs/${certificateJob}`), 200)).status).toBe(
        'AwaitingApproval',
      );
    });

    it('lets another actor approve: the job runs and the certificate is issued', async () => {
      const approved = await ok<ApprovalDto>(
        call(operator, 'POST', `/api/v1/approvals/${approvalId}/approve`, { reason: 'looks fine' }),
        200,
      );
      expect(approved).toMatchObject({
        status: 'approved',
        decided_by: operatorActor,
        reason: 'looks fine',
        decided_at: expect.any(String),
      });
      expect((await ok<JobDto>(api('GET', `/api/v1/jobs/${certificateJob}`), 200)).status).toBe('Completed');
      const certificate = await ok<CertificateDto>(api('GET', '/api/v1/certificates/pa-gated'), 200);
      expect(certificate.status).toBe('Active');
      expect(certificate.current_version_id).toMatch(/^ver-/);
    });

    it('answers 409 for a decision on an approval that is no longer pending, and 404 for none', async () => {
      const again = await call(operator, 'POST', `/api/v1/approvals/${approvalId}/reject`);
      expect(again.status).toBe(409);
      expect(again.json()).toMatchObject({ code: 'approval_not_pending' });
      expect((await api('GET', '/api/v1/approvals/apr-nope')).status).toBe(404);
      expect((await api('GET', '/api/v1/approvals?status=maybe')).status).toBe(400);
    });

    it('audits the approval as approval.approved (cert_lifecycle) by the decider', async () => {
      let events: AuditEventDto[] = [];
      await eventually(async () => {
        events = (
          await ok<Page<AuditEventDto>>(api('GET', '/api/v1/audit?action=approval.approved&per_page=50'), 200)
        ).data.filter((e) => e.resource_id === approvalId);
        return events.length > 0;
      }, 'the approval.approved audit event');
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        event_category: 'cert_lifecycle',
        actor_id: operatorActor,
        resource_type: 'approval',
      });
    });

    it('holds a renewal too; rejecting it cancels the job and restores the certificate', async () => {
      const renewed = await ok<{ job_id: string }>(api('POST', '/api/v1/certificates/pa-gated/renew'), 202);
      const held = await ok<JobDto>(api('GET', `/api/v1/jobs/${renewed.job_id}`), 200);
      expect(held).toMatchObject({ type: 'Renewal', status: 'AwaitingApproval' });
      expect((await ok<CertificateDto>(api('GET', '/api/v1/certificates/pa-gated'), 200)).status).toBe(
        'RenewalInProgress',
      );
      const approval = await pendingApprovalOfJob(renewed.job_id);
      const rejected = await ok<ApprovalDto>(
        call(operator, 'POST', `/api/v1/approvals/${approval!.id}/reject`, { reason: 'not now' }),
        200,
      );
      expect(rejected).toMatchObject({ status: 'rejected', reason: 'not now', decided_by: operatorActor });
      expect(await ok<JobDto>(api('GET', `/api/v1/jobs/${renewed.job_id}`), 200)).toMatchObject({
        status: 'Cancelled',
        last_error: 'not now',
      });
      expect((await ok<CertificateDto>(api('GET', '/api/v1/certificates/pa-gated'), 200)).status).toBe(
        'Active',
      );
    });

    it('holds bulk renewals too; cancelling a held job rejects its approval', async () => {
      const result = await ok<{ enqueued_jobs: { certificate_id: string; job_id: string }[] }>(
        api('POST', '/api/v1/certificates/bulk-renew', { certificate_ids: ['pa-gated'] }),
        200,
      );
      const [{ job_id }] = result.enqueued_jobs;
      expect((await ok<JobDto>(api('GET', `/api/v1/jobs/${job_id}`), 200)).status).toBe('AwaitingApproval');
      const approval = await pendingApprovalOfJob(job_id);
      expect(approval).toMatchObject({ certificate_id: 'pa-gated', profile_id: 'prof-gated' });
      await ok(api('POST', `/api/v1/jobs/${job_id}/cancel`), 200);
      expect(await ok<ApprovalDto>(api('GET', `/api/v1/approvals/${approval!.id}`), 200)).toMatchObject({
        status: 'rejected',
        reason: 'job cancelled',
      });
      expect((await ok<CertificateDto>(api('GET', '/api/v1/certificates/pa-gated'), 200)).status).toBe(
        'Active',
      );
    });

    it('decides the approval when the job route rejects a held job (the requester may withdraw)', async () => {
      await ok(
        api('POST', '/api/v1/certificates', {
          id: 'pa-gated-2',
          common_name: 'g2.example.com',
          profile_id: 'prof-gated',
        }),
        201,
      );
      const [job] = await jobsOf('pa-gated-2');
      const approval = await pendingApprovalOfJob(job.id);
      await ok(api('POST', `/api/v1/jobs/${job.id}/reject`, { reason: 'withdrawn' }), 200);
      expect(await ok<ApprovalDto>(api('GET', `/api/v1/approvals/${approval!.id}`), 200)).toMatchObject({
        status: 'rejected',
        reason: 'withdrawn',
        decided_by: ADMIN_ACTOR,
      });
      expect((await ok<CertificateDto>(api('GET', '/api/v1/certificates/pa-gated-2'), 200)).status).toBe(
        'Pending',
      );
    });
  });

  describe('profile edit approval', () => {
    beforeAll(async () => {
      await ok(
        api('POST', '/api/v1/profiles', {
          id: 'prof-edit',
          name: 'Edited',
          allowed_key_algorithms: ['RSA-2048'],
        }),
        201,
      );
    });

    it('holds an edit that would set requires_approval: 202, profile unchanged; another actor applies it', async () => {
      const held = await api('PUT', '/api/v1/profiles/prof-edit', {
        requires_approval: true,
        allowed_key_algorithms: ['ECDSA-P256'],
        required_csr_attributes: ['O', 'nonsense'],
      });
      expect(held.status).toBe(202);
      const { pending_approval_id } = json<{ pending_approval_id: string }>(held);
      expect(Object.keys(json(held))).toEqual(['pending_approval_id']);
      expect(await ok<ProfileDto>(api('GET', '/api/v1/profiles/prof-edit'), 200)).toMatchObject({
        requires_approval: false,
        allowed_key_algorithms: ['RSA-2048'],
        required_csr_attributes: [],
      });
      const approval = await ok<ApprovalDto>(api('GET', `/api/v1/approvals/${pending_approval_id}`), 200);
      expect(approval).toMatchObject({
        approval_kind: 'profile_edit',
        status: 'pending',
        certificate_id: null,
        job_id: null,
        profile_id: 'prof-edit',
        payload: {
          requires_approval: true,
          allowed_key_algorithms: ['ECDSA-P256'],
          required_csr_attributes: ['O'],
        },
      });
      const listed = await ok<Page<ApprovalDto>>(
        api('GET', '/api/v1/approvals?approval_kind=profile_edit&status=pending'),
        200,
      );
      expect(listed.data.map((a) => a.id)).toContain(pending_approval_id);

      expect((await api('POST', `/api/v1/approvals/${pending_approval_id}/approve`)).status).toBe(403);
      await ok(call(operator, 'POST', `/api/v1/approvals/${pending_approval_id}/approve`), 200);
      expect(await ok<ProfileDto>(api('GET', '/api/v1/profiles/prof-edit'), 200)).toMatchObject({
        requires_approval: true,
        allowed_key_algorithms: ['ECDSA-P256'],
        required_csr_attributes: ['O'],
      });
      let events: AuditEventDto[] = [];
      await eventually(async () => {
        events = (
          await ok<Page<AuditEventDto>>(
            api('GET', '/api/v1/audit?action=profile.edit_applied&per_page=50'),
            200,
          )
        ).data.filter((e) => e.resource_id === 'prof-edit');
        return events.length > 0;
      }, 'the profile.edit_applied audit event');
      expect(events[0]).toMatchObject({
        event_category: 'config',
        actor_id: operatorActor,
        resource_type: 'profile',
        details: expect.objectContaining({ approval_id: pending_approval_id, requested_by: ADMIN_ACTOR }),
      });
    });

    it('holds every edit of a profile that requires approval; a rejected edit is discarded', async () => {
      const held = await api('PUT', '/api/v1/profiles/prof-edit', {
        description: 'never',
        requires_approval: false,
      });
      expect(held.status).toBe(202);
      const { pending_approval_id } = json<{ pending_approval_id: string }>(held);
      const rejected = await ok<ApprovalDto>(
        call(operator, 'POST', `/api/v1/approvals/${pending_approval_id}/reject`),
        200,
      );
      expect(rejected).toMatchObject({ status: 'rejected', reason: 'rejected' });
      expect(await ok<ProfileDto>(api('GET', '/api/v1/profiles/prof-edit'), 200)).toMatchObject({
        description: '',
        requires_approval: true,
      });
    });

    it('rejects pending edits when the profile is deleted', async () => {
      const held = await api('PUT', '/api/v1/profiles/prof-edit', { description: 'pending' });
      const { pending_approval_id } = json<{ pending_approval_id: string }>(held);
      expect((await api('DELETE', '/api/v1/profiles/prof-edit')).status).toBe(204);
      expect(
        await ok<ApprovalDto>(api('GET', `/api/v1/approvals/${pending_approval_id}`), 200),
      ).toMatchObject({
        status: 'rejected',
        reason: 'profile deleted',
      });
    });
  });
});

/** Agent key generation: an approved issuance waits for the agent's CSR (ADR 0024, 0025). */
describe('issuance approval (agent key generation)', () => {
  let system: TestSystem;

  const call = (key: string, method: string, path: string, body?: unknown): Promise<HttpsResult> =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    system = await startTestSystem('profilesagent', ['auth', 'issuance', 'api-gateway']);
  }, 90_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('moves the approved job to AwaitingCSR and leaves the certificate Pending', async () => {
    const admin = system.env.SERVICE_AUTH_SECRET!;
    const operator = (
      (
        await call(admin, 'POST', '/api/v1/auth/api-keys', { name: 'approver', role_ids: ['r-operator'] })
      ).json() as {
        key: string;
      }
    ).key;
    expect(
      (
        await call(admin, 'POST', '/api/v1/profiles', {
          id: 'prof-gated',
          name: 'Gated',
          requires_approval: true,
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await call(admin, 'POST', '/api/v1/certificates', {
          id: 'pa-agent',
          common_name: 'agent.example.com',
          profile_id: 'prof-gated',
          agent_id: 'pa-edge',
        })
      ).status,
    ).toBe(201);
    const [job] = ((await call(admin, 'GET', '/api/v1/jobs?certificate_id=pa-agent')).json() as Page<JobDto>)
      .data;
    expect(job.status).toBe('AwaitingApproval');
    const approvals = (
      (await call(admin, 'GET', '/api/v1/approvals?status=pending')).json() as Page<ApprovalDto>
    ).data.filter((a) => a.job_id === job.id);
    expect(approvals).toHaveLength(1);
    // The job route, by another actor, decides the approval too.
    const approved = await call(operator, 'POST', `/api/v1/jobs/${job.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.json()).toMatchObject({ status: 'AwaitingCSR' });
    expect((await call(admin, 'GET', `/api/v1/approvals/${approvals[0].id}`)).json()).toMatchObject({
      status: 'approved',
    });
    expect(
      ((await call(admin, 'GET', '/api/v1/certificates/pa-agent')).json() as CertificateDto).status,
    ).toBe('Pending');

    // What was approved is what is issued: the names, key and profile cannot change under the
    // approved job (ADR 0025 amendment); other fields can.
    for (const change of [
      { common_name: 'login.bank.example' },
      { sans: ['login.bank.example'] },
      { key_algorithm: 'RSA-2048' },
      { profile_id: '' },
    ]) {
      const refused = await call(admin, 'PUT', '/api/v1/certificates/pa-agent', change);
      expect([change, refused.status, (refused.json() as { code: string }).code]).toEqual([
        change,
        409,
        'renewal_in_progress',
      ]);
    }
    expect((await call(admin, 'PUT', '/api/v1/certificates/pa-agent', { environment: 'prod' })).status).toBe(
      200,
    );
    expect(
      ((await call(admin, 'GET', '/api/v1/certificates/pa-agent')).json() as CertificateDto).common_name,
    ).toBe('agent.example.com');
    // Once the job is cancelled, the names may change (a new job asks for approval again).
    expect((await call(admin, 'POST', `/api/v1/jobs/${job.id}/cancel`)).status).toBe(200);
    expect(
      (await call(admin, 'PUT', '/api/v1/certificates/pa-agent', { common_name: 'login.bank.example' }))
        .status,
    ).toBe(200);
  });
});
