import { execFileSync } from 'node:child_process';
import { randomBytes, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApprovalDto, Page } from '@certlane/contracts';
import { eventually, httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';
import { sequence } from './der';
import { readCertRep, ScepRequester } from './testing/scep-requester';

const CHALLENGE = 'scep-approval-challenge-0123';

/**
 * PENDING through approvals (RFC 8894 3.3.2, 3.3.3; ADR 0065) with real processes: the gateway of
 * the split deployment, protocol-frontends and issuance. A profile with `approval_required`
 * answers an authorised PKCSReq PENDING and opens a cert_issuance approval holding the CSR;
 * an admin decides it through `/api/v1/approvals/{id}/approve|reject`; GetCertInitial then
 * answers the certificate (issued by issuance on approval, in the inventory as SCEP) or FAILURE.
 */
describe('SCEP PENDING through approvals', () => {
  let system: TestSystem;
  let gateway: string;
  let db: Client;
  let raPem: string;
  const dir = mkdtempSync(join(tmpdir(), 'scep-approval-'));
  const path = (name: string) => join(dir, name);
  const openssl = (args: string[]) =>
    execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

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

  /** POSTs a pkiMessage to `/scep/held` and reads the CertRep (binary, so not httpsRequest). */
  const post = (message: Buffer) =>
    new Promise<ReturnType<typeof readCertRep>>((resolve, reject) => {
      const req = request(
        `${gateway}/scep/held?operation=PKIOperation`,
        {
          method: 'POST',
          ca: system.ca,
          agent: false,
          headers: { 'content-type': 'application/x-pki-message' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}`));
            else resolve(readCertRep(dir, Buffer.concat(chunks)));
          });
        },
      );
      req.on('error', reject);
      req.end(message);
    });

  const pkcsReq = (requester: ScepRequester, senderNonce = randomBytes(16)) =>
    requester.pkiMessage({
      messageType: '19',
      envelope: requester.envelope(requester.csr(CHALLENGE), raPem),
      senderNonce,
    });

  /** GetCertInitial (RFC 8894 3.3.3): IssuerAndSubject of the request, same transactionID. */
  const certPoll = (requester: ScepRequester) => {
    // The requester's self-signed certificate: its subject is the request's subject and issuer.
    const name = subjectNameDer(Buffer.from(new X509Certificate(readFileSync(requester.certPath)).raw));
    return requester.pkiMessage({
      messageType: '20',
      envelope: requester.envelope(sequence(name, name), raPem),
    });
  };

  const approvalsOf = async (transactionId: string): Promise<ApprovalDto[]> => {
    const page = (
      await api('GET', '/api/v1/approvals?approval_kind=cert_issuance&per_page=100')
    ).json() as Page<ApprovalDto>;
    return page.data.filter((a) => a.enrollment?.reference.transaction_id === transactionId);
  };

  const opened = (content: Buffer, requester: ScepRequester): X509Certificate => {
    writeFileSync(path('env.der'), content);
    openssl(
      ['cms', '-decrypt', '-inform', 'DER', '-in', path('env.der'), '-binary', '-out', path('out.p7')].concat(
        ['-inkey', requester.keyPath, '-recip', requester.certPath],
      ),
    );
    const pem = openssl(['pkcs7', '-inform', 'DER', '-in', path('out.p7'), '-print_certs']);
    return new X509Certificate(pem);
  };

  beforeAll(async () => {
    // The expiry sweeps (certificates, and enrollment approvals past their deadline) every second.
    system = await startTestSystem('scepapr', ['auth', 'issuance', 'protocol-frontends', 'api-gateway'], {
      SERVICE_EXPIRY_SWEEP_INTERVAL: '1s',
    });
    gateway = system.services['api-gateway'].url;
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    expect((await api('POST', '/api/v1/owners', { id: 'owner-held', name: 'Held devices' })).status).toBe(
      201,
    );
    const created = await api('POST', '/api/v1/admin/scep/profiles', {
      path_id: 'held',
      challenge_password: CHALLENGE,
      approval_required: true,
      owner: 'owner-held',
    });
    expect([created.status, created.json()]).toEqual([
      201,
      expect.objectContaining({ approval_required: true }),
    ]);
    raPem = (
      await db.query(`SELECT ra_certificate_pem FROM protocol_frontends.scep_profiles WHERE path_id = 'held'`)
    ).rows[0].ra_certificate_pem;
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  it('RFC 8894 3.3.2: an authorised PKCSReq is answered PENDING (transactionID echoed, recipientNonce = senderNonce) and opens one cert_issuance approval with the CSR summary', async () => {
    const requester = new ScepRequester(dir, 'held-one');
    const nonce = randomBytes(16);
    const message = pkcsReq(requester, nonce);
    const answer = await post(message);
    expect(answer).toMatchObject({
      messageType: '3',
      pkiStatus: '3',
      transactionId: requester.transactionId(),
      recipientNonce: nonce,
    });
    expect(answer.failInfo).toBeUndefined();
    // RFC 8894 3.3.2: the same request again while pending is PENDING, with no second approval.
    expect((await post(message)).pkiStatus).toBe('3');
    const approvals = await approvalsOf(requester.transactionId());
    expect(approvals).toEqual([
      expect.objectContaining({
        approval_kind: 'cert_issuance',
        status: 'pending',
        certificate_id: null,
        job_id: null,
        requested_by: expect.stringMatching(/^scep:[0-9a-f]{32}$/),
        enrollment: expect.objectContaining({
          source: 'SCEP',
          state: 'pending',
          subject: 'CN=held-one',
          key_algorithm: 'RSA-2048',
          owner_id: 'owner-held',
          reference: { scep_profile: 'held', transaction_id: requester.transactionId() },
          serial_hex: null,
        }),
      }),
    ]);
    // A wrong challenge is refused before any approval (authorisation first).
    const stranger = new ScepRequester(dir, 'held-wrong');
    const refused = await post(
      stranger.pkiMessage({
        messageType: '19',
        envelope: stranger.envelope(stranger.csr('wrong-challenge-000000'), raPem),
      }),
    );
    expect([refused.pkiStatus, refused.failInfo]).toEqual(['2', '2']);
    expect(await approvalsOf(stranger.transactionId())).toEqual([]);
  });

  it('RFC 8894 3.3.3: GetCertInitial is PENDING until an admin approves through /api/v1/approvals, then SUCCESS with the certificate enveloped to the requester', async () => {
    const requester = new ScepRequester(dir, 'held-approved');
    expect((await post(pkcsReq(requester))).pkiStatus).toBe('3');
    expect((await post(certPoll(requester))).pkiStatus).toBe('3');
    const [approval] = await approvalsOf(requester.transactionId());
    const approved = await api('POST', `/api/v1/approvals/${approval.id}/approve`, {
      reason: 'known device',
    });
    expect(approved.status).toBe(200);
    const decided = approved.json() as ApprovalDto;
    expect(decided).toMatchObject({ status: 'approved', enrollment: { state: 'issued' } });
    expect(decided.certificate_id).toEqual(expect.any(String));
    const answer = await post(certPoll(requester));
    expect(answer.pkiStatus).toBe('0');
    const issued = opened(answer.content, requester);
    expect(issued.subject).toBe('CN=held-approved');
    expect(issued.serialNumber.toLowerCase()).toBe(decided.enrollment!.serial_hex!.toLowerCase());
    const inventory = await db.query(
      `SELECT id, source, owner_id FROM issuance.certificates WHERE common_name = 'held-approved'`,
    );
    expect(inventory.rows).toEqual([{ id: decided.certificate_id, source: 'SCEP', owner_id: 'owner-held' }]);
    // The PKCSReq sent again gets the same certificate (RFC 8894 3.2.1.1), not a second one.
    const resent = await post(pkcsReq(requester));
    expect(resent.pkiStatus).toBe('0');
    expect(opened(resent.content, requester).serialNumber).toBe(issued.serialNumber);

    // RFC 8894 3.3.1.2: a RenewalReq signed by that certificate, under the PKCSReq's transactionID
    // (scepclient derives it from the key), waits for an approval of its own and gets a new one.
    writeFileSync(path('held-approved.crt'), issued.toString());
    const renewal = requester.pkiMessage({
      messageType: '17',
      signerCertPath: path('held-approved.crt'),
      envelope: requester.envelope(requester.csr(), raPem),
    });
    expect((await post(renewal)).pkiStatus).toBe('3');
    const renewalApproval = (await approvalsOf(requester.transactionId())).find(
      (a) => a.status === 'pending',
    )!;
    expect(renewalApproval.id).not.toBe(approval.id);
    expect(
      (await api('POST', `/api/v1/approvals/${renewalApproval.id}/approve`, { reason: 'renewal' })).status,
    ).toBe(200);
    const renewed = await post(renewal);
    expect(renewed.pkiStatus).toBe('0');
    expect(opened(renewed.content, requester).serialNumber).not.toBe(issued.serialNumber);
    const audit = await db.query(
      `SELECT envelope->'data'->>'action' AS action, envelope->'data'->'details'->>'pki_status' AS status
       FROM protocol_frontends.outbox WHERE subject LIKE '%.audit.recorded'
         AND envelope->'data'->'details'->>'transaction_id' = $1`,
      [requester.transactionId()],
    );
    expect(audit.rows).toEqual(
      expect.arrayContaining([
        { action: 'scep_pkcsreq', status: 'PENDING' },
        { action: 'scep_pkcsreq', status: 'SUCCESS' },
      ]),
    );
  });

  it('RFC 8894 3.3.3: a rejected request is answered FAILURE badRequest, and so are its resends', async () => {
    const requester = new ScepRequester(dir, 'held-rejected');
    expect((await post(pkcsReq(requester))).pkiStatus).toBe('3');
    const [approval] = await approvalsOf(requester.transactionId());
    const rejected = await api('POST', `/api/v1/approvals/${approval.id}/reject`, {
      reason: 'unknown device',
    });
    expect([rejected.status, (rejected.json() as ApprovalDto).enrollment?.state]).toEqual([200, 'rejected']);
    const answer = await post(certPoll(requester));
    expect([answer.pkiStatus, answer.failInfo]).toEqual(['2', '2']);
    expect([(await post(pkcsReq(requester))).pkiStatus]).toEqual(['2']);
  });

  it('RFC 8894 3.3.3: a request nobody decided before its deadline is rejected by the expiry sweep, FAILURE badRequest, and can no longer be approved (409)', async () => {
    const requester = new ScepRequester(dir, 'held-expired');
    expect((await post(pkcsReq(requester))).pkiStatus).toBe('3');
    const [approval] = await approvalsOf(requester.transactionId());
    await db.query(
      `UPDATE issuance.approvals SET enrollment_expires_at = now() - interval '1 minute' WHERE id = $1`,
      [approval.id],
    );
    await eventually(
      async () => (await approvalsOf(requester.transactionId()))[0].status === 'rejected',
      'the expiry sweep to reject the approval',
    );
    expect((await approvalsOf(requester.transactionId()))[0]).toMatchObject({
      decided_by: 'system',
      reason: 'expired',
      enrollment: { state: 'expired' },
    });
    const pending = (
      await api('GET', '/api/v1/approvals?status=pending&per_page=100')
    ).json() as Page<ApprovalDto>;
    expect(pending.data.map((a) => a.id)).not.toContain(approval.id);
    const answer = await post(certPoll(requester));
    expect([answer.pkiStatus, answer.failInfo]).toEqual(['2', '2']);
    const late = await api('POST', `/api/v1/approvals/${approval.id}/approve`);
    expect([late.status, (late.json() as { code?: string }).code]).toEqual([409, 'approval_not_pending']);
  });
});

/** The subject Name (DER) of a certificate: the TBSCertificate's sixth element. */
function subjectNameDer(certificate: Buffer): Buffer {
  // Reads just enough DER: SEQUENCE { TBSCertificate SEQUENCE { [0] version?, serial, sigAlg, issuer, validity, subject, ... } }
  const read = (buffer: Buffer, at: number): { start: number; end: number; tag: number } => {
    const tag = buffer[at];
    let length = buffer[at + 1];
    let header = 2;
    if (length & 0x80) {
      const count = length & 0x7f;
      length = 0;
      for (let i = 0; i < count; i++) length = (length << 8) | buffer[at + 2 + i];
      header += count;
    }
    return { tag, start: at + header, end: at + header + length };
  };
  const outer = read(certificate, 0);
  const tbs = read(certificate, outer.start);
  let at = tbs.start;
  const fields: Buffer[] = [];
  while (at < tbs.end && fields.length < 7) {
    const field = read(certificate, at);
    fields.push(certificate.subarray(at, field.end));
    at = field.end;
  }
  const offset = fields[0][0] === 0xa0 ? 1 : 0;
  return fields[offset + 4];
}
