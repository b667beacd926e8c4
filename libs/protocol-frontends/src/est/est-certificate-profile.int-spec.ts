import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApprovalDto, Page } from '@certlane/contracts';
import { eventually, httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

const PASSWORD = 'est-profile-password-0123';
const DAY_MS = 86_400_000;

/**
 * EST under its certificate profile's settings (ADRs 0058, 0065) with real processes (the gateway
 * of the split deployment, protocol-frontends, issuance) and curl and openssl as the client: its
 * validity_days is the validity of what EST issues; under requires_approval (RFC 7030 4.2.3)
 * simpleenroll is answered 202 with Retry-After and opens one cert_issuance approval, the same
 * request sent again polls it (each 202 audited `est_enrollment_pending` with the approval id),
 * approved the same request gets the certificate (issued by issuance, in the inventory as EST),
 * rejected or expired it is refused.
 */
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

describe("EST under the certificate profile's settings", () => {
  let system: TestSystem;
  let gateway: string;
  let db: Client;
  const dir = mkdtempSync(join(tmpdir(), 'est-profile-'));
  const path = (name: string) => join(dir, name);

  const api = async (method: string, url: string, body?: unknown) =>
    httpsRequest(`${gateway}${url}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  /** A CSR made by openssl, as the base64 DER body EST sends (RFC 8951), and its SHA-256. */
  function csr(name: string): { file: string; sha256: string } {
    execFileSync(
      'openssl',
      ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'].concat(
        ['-keyout', path(`${name}.key`), '-out', path(`${name}.csr`), '-subj', `/CN=${name}.example.test`],
        ['-addext', `subjectAltName=DNS:${name}.example.test`],
      ),
      { stdio: 'ignore' },
    );
    const der = execFileSync('openssl', ['req', '-in', path(`${name}.csr`), '-outform', 'DER']);
    writeFileSync(path(`${name}.b64`), der.toString('base64'));
    return { file: path(`${name}.b64`), sha256: createHash('sha256').update(der).digest('hex') };
  }

  /** POSTs a CSR with curl over Basic: the status, the response headers and the body. */
  function enroll(pathId: string, operation: string, file: string) {
    const result = spawnSync(
      'curl',
      ['-sS', '--cacert', path('ca.pem'), '-D', path('headers.txt'), '-o', path('body.txt')].concat(
        ['-w', '%{http_code}', '-u', `router:${PASSWORD}`, '--data-binary', `@${file}`],
        ['-H', 'Content-Type: application/pkcs10', `${gateway}/.well-known/est/${pathId}/${operation}`],
      ),
      { encoding: 'utf8' },
    );
    return {
      status: Number(result.stdout),
      headers: readFileSync(path('headers.txt'), 'utf8'),
      body: readFileSync(path('body.txt'), 'utf8'),
    };
  }

  /** The certificate of a certs-only answer, read by openssl pkcs7 -print_certs. */
  function certificateOf(body: string): X509Certificate {
    writeFileSync(path('answer.b64'), body);
    execFileSync('openssl', ['base64', '-d', '-in', path('answer.b64'), '-out', path('answer.p7')]);
    return new X509Certificate(
      execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-in', path('answer.p7'), '-print_certs'], {
        encoding: 'utf8',
      }),
    );
  }

  const approvalsOf = async (sha256: string): Promise<ApprovalDto[]> => {
    const page = (
      await api('GET', '/api/v1/approvals?approval_kind=cert_issuance&per_page=100')
    ).json() as Page<ApprovalDto>;
    return page.data.filter((a) => a.enrollment?.reference.csr_sha256 === sha256);
  };

  const auditOf = async (approvalId: string) =>
    (
      await db.query(
        `SELECT envelope->'data'->>'action' AS action, envelope->'data'->>'outcome' AS outcome
         FROM protocol_frontends.outbox WHERE subject LIKE '%.audit.recorded'
           AND envelope->'data'->'details'->>'approval_id' = $1`,
        [approvalId],
      )
    ).rows;

  /** The held answers' audit records of an approval (est_enrollment_pending), oldest first. */
  const pendingAuditOf = async (approvalId: string) =>
    (
      await db.query(
        `SELECT envelope->'data'->>'action' AS action, envelope->'data'->>'outcome' AS outcome,
                envelope->'data'->>'event_category' AS category, envelope->'data'->>'actor_id' AS actor,
                envelope->'data'->'details' AS details
         FROM protocol_frontends.outbox WHERE subject LIKE '%.audit.recorded'
           AND envelope->'data'->>'action' = 'est_enrollment_pending'
           AND envelope->'data'->'details'->>'approval_id' = $1
         ORDER BY seq`,
        [approvalId],
      )
    ).rows;

  /** A counter of the EST profile `held` (spec 6.4). */
  const heldCounter = async (outcome: string): Promise<number> =>
    Number(
      (
        await db.query(
          `SELECT c.count FROM protocol_frontends.est_profile_counters c
             JOIN protocol_frontends.est_profiles p ON p.id = c.profile_id
            WHERE p.path_id = 'held' AND c.outcome = $1`,
          [outcome],
        )
      ).rows[0]?.count ?? 0,
    );

  const lifetimeDays = (certificate: X509Certificate) =>
    (Date.parse(certificate.validTo) - Date.parse(certificate.validFrom)) / DAY_MS;

  beforeAll(async () => {
    // The expiry sweep (enrollment approvals past their deadline) every second.
    system = await startTestSystem('estprofile', ['auth', 'issuance', 'protocol-frontends', 'api-gateway'], {
      SERVICE_EXPIRY_SWEEP_INTERVAL: '1s',
    });
    gateway = system.services['api-gateway'].url;
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    writeFileSync(path('ca.pem'), system.ca);
    expect((await api('POST', '/api/v1/owners', { id: 'owner-est', name: 'EST devices' })).status).toBe(201);
    for (const profile of [
      {
        id: 'est-held',
        name: 'EST held for approval',
        requires_approval: true,
        validity_days: 30,
        allowed_ekus: ['clientAuth'],
      },
      { id: 'est-thirty', name: 'EST 30 days', validity_days: 30 },
      { id: 'est-client', name: 'EST client certificates', allowed_ekus: ['clientAuth'] },
    ])
      expect((await api('POST', '/api/v1/profiles', profile)).status).toBe(201);
    for (const [pathId, certificateProfile] of [
      ['held', 'est-held'],
      ['thirty', 'est-thirty'],
      ['client', 'est-client'],
      ['issuer-default', null],
    ]) {
      const created = await api('POST', '/api/v1/admin/est/profiles', {
        path_id: pathId,
        ...(certificateProfile ? { certificate_profile_id: certificateProfile } : {}),
        auth_methods: ['basic'],
        basic_username: 'router',
        basic_password: PASSWORD,
        serverkeygen_enabled: true,
        serverkeygen_unencrypted_allowed: true,
        rate_limit_per_minute: 1000,
        owner: 'owner-est',
      });
      expect([created.status, created.json()]).toEqual([201, expect.objectContaining({ path_id: pathId })]);
    }
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  it('RFC 7030 4.2.1: simpleenroll under a certificate profile with validity_days 30 gets a 30-day certificate', () => {
    const answer = enroll('thirty', 'simpleenroll', csr('thirty').file);
    expect(answer.status).toBe(200);
    const issued = certificateOf(answer.body);
    expect(issued.subject).toBe('CN=thirty.example.test');
    expect(lifetimeDays(issued)).toBeGreaterThan(29);
    expect(lifetimeDays(issued)).toBeLessThanOrEqual(30 + 1 / 24);
    // Without a certificate profile the issuer's default validity applies, which is not 30 days.
    const unprofiled = enroll('issuer-default', 'simpleenroll', csr('unprofiled').file);
    expect(unprofiled.status).toBe(200);
    expect(lifetimeDays(certificateOf(unprofiled.body))).toBeGreaterThan(31);
  });

  it("spec 2.9: a certificate profile allowing only clientAuth issues clientAuth only, though the CSR asks for no EKU (the issuer's default is serverAuth and clientAuth)", () => {
    const answer = enroll('client', 'simpleenroll', csr('client-only').file);
    expect(answer.status).toBe(200);
    expect(certificateOf(answer.body).keyUsage).toEqual([CLIENT_AUTH]);
    const unprofiled = enroll('issuer-default', 'simpleenroll', csr('any-eku').file);
    expect(unprofiled.status).toBe(200);
    expect(certificateOf(unprofiled.body).keyUsage?.sort()).toEqual([SERVER_AUTH, CLIENT_AUTH].sort());
  });

  it("a profile's owner deleted from the inventory after it was named: the enrollment still succeeds, and the certificate is recorded without it (ADR 0071)", async () => {
    expect((await api('POST', '/api/v1/owners', { id: 'owner-gone', name: 'Gone soon' })).status).toBe(201);
    const created = await api('POST', '/api/v1/admin/est/profiles', {
      path_id: 'gone-owner',
      auth_methods: ['basic'],
      basic_username: 'router',
      basic_password: PASSWORD,
      owner: 'owner-gone',
    });
    expect(created.status).toBe(201);
    expect((await api('DELETE', '/api/v1/owners/owner-gone')).status).toBe(204);
    const answer = enroll('gone-owner', 'simpleenroll', csr('gone-owner').file);
    expect(answer.status).toBe(200);
    const serial = certificateOf(answer.body).serialNumber.toLowerCase().replace(/^0+/, '');
    const inventory = await db.query(
      `SELECT c.source, c.owner_id FROM issuance.certificates c
         JOIN issuance.certificate_versions v ON v.certificate_id = c.id
        WHERE ltrim(lower(v.serial_number), '0') = $1`,
      [serial],
    );
    expect(inventory.rows).toEqual([{ source: 'EST', owner_id: null }]);
  });

  it('RFC 7030 4.2.3: simpleenroll is 202 with Retry-After and opens one approval; the same request again is 202 with no second approval; each 202 is audited est_enrollment_pending with the approval', async () => {
    const request = csr('held-one');
    const pendingBefore = await heldCounter('est_enrollment_pending');
    const first = enroll('held', 'simpleenroll', request.file);
    expect(first.status).toBe(202);
    expect(first.headers).toMatch(/^retry-after: 60\r?$/im);
    expect(first.body).toMatch(/waits for approval/);
    const again = enroll('held', 'simpleenroll', request.file);
    expect([again.status, again.headers]).toEqual([202, expect.stringMatching(/^retry-after: 60\r?$/im)]);
    expect(await approvalsOf(request.sha256)).toEqual([
      expect.objectContaining({
        approval_kind: 'cert_issuance',
        status: 'pending',
        profile_id: 'est-held',
        requested_by: 'basic:router',
        enrollment: expect.objectContaining({
          source: 'EST',
          state: 'pending',
          subject: 'CN=held-one.example.test',
          dns_names: ['held-one.example.test'],
          owner_id: 'owner-est',
          reference: { est_profile: 'held', operation: 'simpleenroll', csr_sha256: request.sha256 },
        }),
      }),
    ]);
    // Each held answer is audited with the approval it waits for, and counted (spec 6.1, 6.4).
    const [approval] = await approvalsOf(request.sha256);
    const held = {
      action: 'est_enrollment_pending',
      outcome: 'success',
      category: 'cert_lifecycle',
      actor: 'basic:router',
      details: {
        path_id: 'held',
        operation: 'simpleenroll',
        approval_id: approval.id,
        retry_after_seconds: 60,
      },
    };
    expect(await pendingAuditOf(approval.id)).toEqual([held, held]);
    expect(await heldCounter('est_enrollment_pending')).toBe(pendingBefore + 2);
    // No legacy bare code: those go with the six enrollment outcomes (ADR 0061).
    expect(await auditOf(approval.id)).toEqual([
      { action: 'est_enrollment_pending', outcome: 'success' },
      { action: 'est_enrollment_pending', outcome: 'success' },
    ]);
    // Another CSR is another request: its own approval.
    const other = csr('held-other');
    expect(enroll('held', 'simpleenroll', other.file).status).toBe(202);
    const [otherApproval] = await approvalsOf(other.sha256);
    expect(await pendingAuditOf(otherApproval.id)).toHaveLength(1);
  });

  it('RFC 7030 4.2.3: once approved through /api/v1/approvals, the same request gets the certificate (certs-only, 30 days, in the inventory as EST), again on a repeat', async () => {
    const request = csr('held-approved');
    expect(enroll('held', 'simpleenroll', request.file).status).toBe(202);
    const [approval] = await approvalsOf(request.sha256);
    const approved = await api('POST', `/api/v1/approvals/${approval.id}/approve`, {
      reason: 'known router',
    });
    expect([approved.status, (approved.json() as ApprovalDto).enrollment?.state]).toEqual([200, 'issued']);
    const decided = approved.json() as ApprovalDto;

    const answer = enroll('held', 'simpleenroll', request.file);
    expect(answer.status).toBe(200);
    expect(answer.headers).toMatch(/content-type: application\/pkcs7-mime; smime-type=certs-only/i);
    const issued = certificateOf(answer.body);
    expect(issued.subject).toBe('CN=held-approved.example.test');
    expect(issued.serialNumber.toLowerCase()).toBe(decided.enrollment!.serial_hex!.toLowerCase());
    expect(lifetimeDays(issued)).toBeGreaterThan(29);
    expect(lifetimeDays(issued)).toBeLessThanOrEqual(30 + 1 / 24);
    // The held request keeps the certificate profile's EKUs until it is issued.
    expect(issued.keyUsage).toEqual([CLIENT_AUTH]);
    const inventory = await db.query(
      `SELECT id, source, owner_id FROM issuance.certificates WHERE common_name = 'held-approved.example.test'`,
    );
    expect(inventory.rows).toEqual([{ id: decided.certificate_id, source: 'EST', owner_id: 'owner-est' }]);

    // A client that lost the answer sends the request again: the same certificate, not a second one.
    const repeated = enroll('held', 'simpleenroll', request.file);
    expect(repeated.status).toBe(200);
    expect(certificateOf(repeated.body).serialNumber).toBe(issued.serialNumber);
    expect(await approvalsOf(request.sha256)).toHaveLength(1);
    expect(await auditOf(approval.id)).toEqual(
      expect.arrayContaining([{ action: 'est_simple_enroll_success', outcome: 'success' }]),
    );
  });

  it('RFC 7030 4.2.3: a rejected request is refused 403 with the reason, and so are its repeats', async () => {
    const request = csr('held-rejected');
    expect(enroll('held', 'simpleenroll', request.file).status).toBe(202);
    const [approval] = await approvalsOf(request.sha256);
    const rejected = await api('POST', `/api/v1/approvals/${approval.id}/reject`, {
      reason: 'unknown router',
    });
    expect(rejected.status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const answer = enroll('held', 'simpleenroll', request.file);
      expect([answer.status, answer.body]).toEqual([403, expect.stringContaining('rejected by an approver')]);
      expect(answer.body).toContain('unknown router');
    }
    expect(await auditOf(approval.id)).toEqual(
      expect.arrayContaining([{ action: 'est_simple_enroll_failed', outcome: 'failure' }]),
    );
  });

  it('RFC 7030 4.2.3: a request nobody decided before its deadline is refused 403 once the expiry sweep rejects it', async () => {
    const request = csr('held-expired');
    expect(enroll('held', 'simpleenroll', request.file).status).toBe(202);
    const [approval] = await approvalsOf(request.sha256);
    await db.query(
      `UPDATE issuance.approvals SET enrollment_expires_at = now() - interval '1 minute' WHERE id = $1`,
      [approval.id],
    );
    await eventually(
      async () => (await approvalsOf(request.sha256))[0].status === 'rejected',
      'the expiry sweep to reject the approval',
    );
    const answer = enroll('held', 'simpleenroll', request.file);
    expect([answer.status, answer.body]).toEqual([403, expect.stringContaining('expired')]);
  });

  it('RFC 7030 4.4: serverkeygen under a certificate profile that requires approval is 400, and opens no approval', async () => {
    const request = csr('held-keygen');
    const answer = enroll('held', 'serverkeygen', request.file);
    expect([answer.status, answer.body]).toEqual([
      400,
      expect.stringContaining('cannot wait for a decision'),
    ]);
    expect(await approvalsOf(request.sha256)).toEqual([]);
    // The same profile's simpleenroll is held, as above.
    expect(enroll('held', 'simpleenroll', request.file).status).toBe(202);
  });
});
