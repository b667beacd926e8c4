import { randomBytes } from 'node:crypto';
import {
  AuditEventDto,
  BulkReassignResult,
  BulkRenewResult,
  BulkRevokeResult,
  CERTIFICATE_STATUSES,
  RevocationList,
} from '@certlane/contracts';
import { createCsr, SoftwareKeyProvider } from '@certlane/pki';
import { NatsBus } from '@certlane/platform';
import { eventually, httpsRequest, startTestSystem, testNatsUrl, TestSystem } from '@certlane/testing';
import { Client } from 'pg';
import {
  certificateRow,
  insertCertificates,
  insertOwner,
  insertTeam,
  insertVersion,
  seedCertificates,
} from './testing-fixtures';

const provider = new SoftwareKeyProvider();
const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

/** Bulk revoke, renew and reassign through the gateway, against real auth, issuance, gateway and revocation. */
describe('bulk certificate operations', () => {
  let system: TestSystem;
  let bus: NatsBus;
  let db: Client;
  let admin: string;
  let operator: string;
  let viewer: string;

  const api = (path: string, body: unknown, options: { key?: string; requestId?: string } = {}) =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method: 'POST',
      ca: system.ca,
      headers: {
        authorization: `Bearer ${options.key ?? operator}`,
        'content-type': 'application/json',
        ...(options.requestId ? { 'x-request-id': options.requestId } : {}),
      },
      body: JSON.stringify(body),
    });
  const get = (path: string) =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      ca: system.ca,
      headers: { authorization: `Bearer ${admin}` },
    });

  /** A certificate issued by the local CA, so its serial is one the issuer knows. */
  async function issue(name: string): Promise<{ serial_hex: string; not_after: string }> {
    const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const csr = await createCsr({
      subject: [['CN', name]],
      signer,
      subjectAltNames: [{ type: 'dns', value: name }],
    });
    return bus.request('issuance.v1.issue-certificate', { csr_pem: csr.pem, validity_days: 30 });
  }

  /** The audit records of one request, once the audit store has them (exactly one is expected). */
  async function auditOf(action: string, requestId: string): Promise<AuditEventDto[]> {
    let found: AuditEventDto[] = [];
    await eventually(async () => {
      const page = (await get(`/api/v1/audit?per_page=500&action=${action}`)).json() as {
        data: AuditEventDto[];
      };
      found = page.data.filter((event) => event.request_id === requestId);
      return found.length > 0;
    }, `audit ${action} of ${requestId}`);
    const { rows } = await db.query(
      'SELECT count(*)::int AS n FROM auth.audit_events WHERE request_id = $1',
      [requestId],
    );
    expect(rows[0].n).toBe(1);
    return found;
  }

  async function outboxCount(subject: string, field: string, ids: string[]): Promise<number> {
    const { rows } = await db.query(
      `SELECT count(*)::int AS n FROM issuance.outbox WHERE subject LIKE $1 AND envelope->'data'->>$2 = ANY($3)`,
      [`%${subject}`, field, ids],
    );
    return rows[0].n;
  }

  beforeAll(async () => {
    system = await startTestSystem('bulk', ['auth', 'issuance', 'api-gateway', 'revocation']);
    admin = system.env.SERVICE_AUTH_SECRET!;
    const key = async (name: string, role: string) => {
      const created = await httpsRequest(`${system.services['api-gateway'].url}/api/v1/auth/api-keys`, {
        method: 'POST',
        ca: system.ca,
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, role_ids: [role] }),
      });
      expect(created.status).toBe(201);
      return (created.json() as { key: string }).key;
    };
    operator = await key('bulk-operator', 'r-operator');
    viewer = await key('bulk-viewer', 'r-viewer');
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'bulk-test',
      requestTimeoutMs: 10_000,
      namespace: system.env.SERVICE_NATS_NAMESPACE,
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await bus?.close();
    await system?.stop();
  });

  describe('criteria validation', () => {
    it.each([
      ['bulk-revoke', {}],
      ['bulk-revoke', { source: 'EST' }],
      ['bulk-revoke', { owner_id: '', certificate_ids: [] }],
      ['bulk-renew', {}],
      ['bulk-renew', { source: 'Unspecified' }],
    ])('POST /certificates/%s with %j is 400 bulk_criteria_empty', async (route, body) => {
      const response = await api(`/api/v1/certificates/${route}`, body);
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ code: 'bulk_criteria_empty' });
    });

    it('refuses an unknown revocation reason, an unknown source and an unknown field with 400', async () => {
      for (const body of [
        { owner_id: 'x', reason: 'bored' },
        { owner_id: 'x', source: 'FTP' },
        { owner_id: 'x', status: 'Active' },
      ]) {
        const response = await api('/api/v1/certificates/bulk-revoke', body);
        expect(`${response.status} ${(response.json() as { code: string }).code}`).toBe(
          '400 validation_failed',
        );
      }
    });

    it('needs certificate.revoke, certificate.renew and certificate.edit (a viewer gets 403)', async () => {
      for (const route of ['bulk-revoke', 'bulk-renew', 'bulk-reassign']) {
        const response = await api(`/api/v1/certificates/${route}`, { owner_id: 'x' }, { key: viewer });
        expect(response.status).toBe(403);
      }
    });
  });

  describe('POST /api/v1/certificates/bulk-revoke', () => {
    it('revokes in ids mode at the issuer, skips revoked ones, lists per-item failures, audits once, and the CRL shows the serials', async () => {
      const tag = unique('rv');
      const [one, two] = await Promise.all([issue(`${tag}-1.example.com`), issue(`${tag}-2.example.com`)]);
      await insertCertificates(db, [
        { id: `${tag}-a` },
        { id: `${tag}-b`, status: 'Expiring' },
        { id: `${tag}-done`, status: 'Revoked' },
        { id: `${tag}-bad` },
        { id: `${tag}-noversion`, status: 'Pending' },
      ]);
      await insertVersion(db, `${tag}-a`, one);
      await insertVersion(db, `${tag}-b`, two);
      // A serial the local CA never issued: the issuer refuses it, the others go through.
      await insertVersion(db, `${tag}-bad`, {
        serial_hex: 'abcdef0123',
        not_after: new Date(Date.now() + 86_400_000),
      });
      const requestId = unique('req-bulk-revoke');

      const response = await api(
        '/api/v1/certificates/bulk-revoke',
        {
          certificate_ids: [
            `${tag}-a`,
            `${tag}-b`,
            `${tag}-done`,
            `${tag}-bad`,
            `${tag}-noversion`,
            `${tag}-ghost`,
          ],
          reason: 'keyCompromise',
        },
        { requestId },
      );

      expect(response.status).toBe(200);
      const result = response.json() as BulkRevokeResult;
      expect(result).toEqual({
        total_matched: 5,
        total_revoked: 3,
        total_skipped: 1,
        total_failed: 2,
        errors: expect.arrayContaining([
          { certificate_id: `${tag}-ghost`, message: 'not found' },
          {
            certificate_id: `${tag}-bad`,
            message: 'issuer iss-local issued no certificate with serial abcdef0123',
          },
        ]),
        errors_truncated: false,
        // Every serial here is the local CA's: its CA was told of each revocation.
        total_recorded_only: 0,
        recorded_only: [],
        recorded_only_truncated: false,
      });
      expect(result.errors).toHaveLength(2);
      for (const id of [`${tag}-a`, `${tag}-b`, `${tag}-noversion`]) {
        expect(await certificateRow(db, id)).toMatchObject({
          status: 'Revoked',
          revocation_reason: 'keyCompromise',
          revoked_at: expect.any(Date),
        });
      }
      expect((await certificateRow(db, `${tag}-bad`)).status).toBe('Active');
      expect(
        await outboxCount('certificate.status-changed', 'certificate_id', [
          `${tag}-a`,
          `${tag}-b`,
          `${tag}-noversion`,
        ]),
      ).toBe(3);
      const { rows: recorded } = await db.query(
        'SELECT serial_hex, reason FROM issuance.revocations WHERE serial_hex = ANY($1) ORDER BY serial_hex',
        [[one.serial_hex, two.serial_hex, 'abcdef0123']],
      );
      expect(recorded).toEqual(
        [one.serial_hex, two.serial_hex]
          .sort()
          .map((serial_hex) => ({ serial_hex, reason: 'keyCompromise' })),
      );

      const [event] = await auditOf('certificate.bulk_revoked', requestId);
      expect(event).toMatchObject({
        service: 'issuance',
        event_category: 'cert_lifecycle',
        resource_type: 'certificate',
        details: expect.objectContaining({
          mode: 'ids',
          reason: 'keyCompromise',
          total_matched: 5,
          total_revoked: 3,
          total_skipped: 1,
          total_failed: 2,
        }),
      });

      // The revocation service hears of both serials and lists them.
      await eventually(
        async () => {
          const crl = (await get('/api/v1/crl?issuer_id=iss-local')).json() as RevocationList;
          const serials = new Set(crl.entries.map((entry) => entry.serial_number));
          return (
            serials.has(one.serial_hex.replace(/^0+/, '')) && serials.has(two.serial_hex.replace(/^0+/, ''))
          );
        },
        'the revoked serials in GET /api/v1/crl',
        20_000,
      );
    }, 60_000);

    it('revokes by ANDed criteria narrowed by source, and a repeat skips them all', async () => {
      const owner = unique('own');
      await insertOwner(db, owner);
      await insertCertificates(db, [
        { id: `${owner}-api-1`, owner_id: owner, source: 'API', issuer_id: 'iss-local' },
        { id: `${owner}-api-2`, owner_id: owner, source: 'API' },
        { id: `${owner}-est`, owner_id: owner, source: 'EST' },
        { id: `${owner}-other`, source: 'API' },
      ]);
      const first = await api('/api/v1/certificates/bulk-revoke', {
        owner_id: owner,
        issuer_id: 'iss-local',
        source: 'API',
      });
      expect(first.status).toBe(200);
      expect(first.json()).toMatchObject({
        total_matched: 2,
        total_revoked: 2,
        total_skipped: 0,
        total_failed: 0,
      });
      expect((await certificateRow(db, `${owner}-est`)).status).toBe('Active');
      expect((await certificateRow(db, `${owner}-other`)).status).toBe('Active');
      expect((await certificateRow(db, `${owner}-api-1`)).revocation_reason).toBe('unspecified');

      const again = await api('/api/v1/certificates/bulk-revoke', { owner_id: owner, source: 'Unspecified' });
      expect(again.json()).toMatchObject({
        total_matched: 3,
        total_revoked: 1,
        total_skipped: 2,
        total_failed: 0,
      });
    });

    it("narrows ids mode by the filters given beside the ids: another owner's certificate is listed, not revoked", async () => {
      const owner = unique('own');
      await insertOwner(db, owner);
      await insertCertificates(db, [
        { id: `${owner}-mine`, owner_id: owner, source: 'API' },
        { id: `${owner}-theirs`, source: 'API' },
      ]);
      const result = await api('/api/v1/certificates/bulk-revoke', {
        certificate_ids: [`${owner}-mine`, `${owner}-theirs`],
        owner_id: owner,
        reason: 'superseded',
      });
      expect(result.status).toBe(200);
      expect(result.json()).toMatchObject({
        total_matched: 1,
        total_revoked: 1,
        total_failed: 1,
        errors: [{ certificate_id: `${owner}-theirs`, message: 'does not match the filters' }],
      });
      expect((await certificateRow(db, `${owner}-mine`)).status).toBe('Revoked');
      expect((await certificateRow(db, `${owner}-theirs`)).status).toBe('Active');
    });
  });

  describe('POST /api/v1/est/certificates/bulk-revoke', () => {
    it('is admin only: an operator gets 403', async () => {
      const response = await api('/api/v1/est/certificates/bulk-revoke', { owner_id: 'x' });
      expect(response.status).toBe(403);
    });

    it('refuses a source-only body as too broad and an invalid reason with 400', async () => {
      const broad = await api('/api/v1/est/certificates/bulk-revoke', { source: 'EST' }, { key: admin });
      expect(broad.status).toBe(400);
      expect(broad.json()).toMatchObject({
        code: 'bulk_criteria_empty',
        message: expect.stringMatching(/too broad/),
      });
      const reason = await api(
        '/api/v1/est/certificates/bulk-revoke',
        { owner_id: 'x', reason: 'nope' },
        { key: admin },
      );
      expect(reason.status).toBe(400);
    });

    it('revokes only EST certificates of the criteria and audits est_bulk_revoke once', async () => {
      const owner = unique('est');
      await insertOwner(db, owner);
      await insertCertificates(db, [
        { id: `${owner}-1`, owner_id: owner, source: 'EST' },
        { id: `${owner}-2`, owner_id: owner, source: 'EST', status: 'Revoked' },
        { id: `${owner}-api`, owner_id: owner, source: 'API' },
      ]);
      const requestId = unique('req-est');
      const response = await api(
        '/api/v1/est/certificates/bulk-revoke',
        { owner_id: owner, source: 'API', reason: 'superseded' },
        { key: admin, requestId },
      );
      expect(response.status).toBe(200);
      expect(response.json()).toMatchObject({
        total_matched: 2,
        total_revoked: 1,
        total_skipped: 1,
        total_failed: 0,
      });
      expect((await certificateRow(db, `${owner}-api`)).status).toBe('Active');
      const [event] = await auditOf('est_bulk_revoke', requestId);
      expect(event.details).toMatchObject({
        criteria: { owner_id: owner, source: 'EST' },
        reason: 'superseded',
      });
    });
  });

  describe('POST /api/v1/certificates/bulk-renew', () => {
    it('starts a renewal job per eligible certificate, silently skips the rest, and audits once', async () => {
      const owner = unique('rn');
      await insertOwner(db, owner);
      await insertCertificates(
        db,
        CERTIFICATE_STATUSES.map((status) => ({
          id: `${owner}-${status.toLowerCase()}`,
          status,
          owner_id: owner,
          agent_id: 'agent-7',
        })),
      );
      const requestId = unique('req-renew');
      const response = await api('/api/v1/certificates/bulk-renew', { owner_id: owner }, { requestId });
      expect(response.status).toBe(200);
      const result = response.json() as BulkRenewResult;
      expect(result).toMatchObject({
        total_matched: 8,
        total_enqueued: 4,
        total_skipped: 4,
        total_failed: 0,
        errors: [],
        errors_truncated: false,
        enqueued_jobs_truncated: false,
      });
      const renewed = ['pending', 'active', 'expiring', 'failed'].map((s) => `${owner}-${s}`).sort();
      expect(result.enqueued_jobs.map((j) => j.certificate_id).sort()).toEqual(renewed);
      for (const job of result.enqueued_jobs) expect(job.job_id).toMatch(/^job-[0-9a-f-]{36}$/);
      const { rows: jobs } = await db.query(
        'SELECT id, type, status, certificate_id, agent_id, requested_by, max_attempts FROM issuance.jobs WHERE certificate_id = ANY($1) ORDER BY certificate_id',
        [renewed],
      );
      expect(jobs).toEqual(
        result.enqueued_jobs
          .sort((a, b) => a.certificate_id.localeCompare(b.certificate_id))
          .map((j) => ({
            id: j.job_id,
            type: 'Renewal',
            status: 'AwaitingCSR',
            certificate_id: j.certificate_id,
            agent_id: 'agent-7',
            requested_by: 'bulk-operator',
            max_attempts: 4,
          })),
      );
      for (const id of renewed) expect((await certificateRow(db, id)).status).toBe('RenewalInProgress');
      for (const status of ['archived', 'revoked', 'expired']) {
        expect((await certificateRow(db, `${owner}-${status}`)).status).toBe(
          status[0].toUpperCase() + status.slice(1),
        );
      }
      expect(
        await outboxCount(
          'job.created',
          'job_id',
          result.enqueued_jobs.map((j) => j.job_id),
        ),
      ).toBe(4);
      expect(await outboxCount('certificate.status-changed', 'certificate_id', renewed)).toBe(4);
      const [event] = await auditOf('certificate.bulk_renewed', requestId);
      expect(event.details).toMatchObject({
        total_matched: 8,
        total_enqueued: 4,
        total_skipped: 4,
        job_status: 'AwaitingCSR',
      });
    });

    it("supersedes a Pending certificate's open issuance job, as a single renew does, so one version is issued, not two", async () => {
      const tag = unique('rns');
      await insertCertificates(db, [{ id: `${tag}-1`, status: 'Pending', agent_id: 'bulk-agent' }]);
      await db.query(
        `INSERT INTO issuance.jobs (id, type, status, certificate_id, agent_id) VALUES ($1, 'Issuance', 'AwaitingCSR', $2, 'bulk-agent')`,
        [`${tag}-issuance`, `${tag}-1`],
      );
      const response = await api('/api/v1/certificates/bulk-renew', { certificate_ids: [`${tag}-1`] });
      const result = response.json() as BulkRenewResult;
      expect(result).toMatchObject({ total_enqueued: 1, total_failed: 0 });
      const { rows } = await db.query(
        'SELECT id, type, status, last_error FROM issuance.jobs WHERE certificate_id = $1 ORDER BY type',
        [`${tag}-1`],
      );
      expect(rows).toEqual([
        {
          id: `${tag}-issuance`,
          type: 'Issuance',
          status: 'Cancelled',
          last_error: `superseded by ${result.enqueued_jobs[0].job_id}`,
        },
        { id: result.enqueued_jobs[0].job_id, type: 'Renewal', status: 'AwaitingCSR', last_error: '' },
      ]);
      expect((await certificateRow(db, `${tag}-1`)).status).toBe('RenewalInProgress');
    });

    it('lists unknown ids of ids mode as failures and renews the others', async () => {
      const tag = unique('rni');
      await insertCertificates(db, [{ id: `${tag}-1`, agent_id: 'bulk-agent' }]);
      const response = await api('/api/v1/certificates/bulk-renew', {
        certificate_ids: [`${tag}-1`, `${tag}-nope`],
      });
      expect(response.json()).toMatchObject({
        total_matched: 1,
        total_enqueued: 1,
        total_failed: 1,
        errors: [{ certificate_id: `${tag}-nope`, message: 'not found' }],
      });
    });

    it('fails the certificates without an agent in agent key generation, as a single renew would, and renews the others', async () => {
      const tag = unique('rna');
      await insertCertificates(db, [{ id: `${tag}-1`, agent_id: 'bulk-agent' }, { id: `${tag}-2` }]);
      const response = await api('/api/v1/certificates/bulk-renew', {
        certificate_ids: [`${tag}-1`, `${tag}-2`],
      });
      expect(response.json()).toMatchObject({
        total_matched: 2,
        total_enqueued: 1,
        total_failed: 1,
        enqueued_jobs: [{ certificate_id: `${tag}-1` }],
        errors: [{ certificate_id: `${tag}-2`, message: expect.stringContaining('needs an agent') }],
      });
      expect((await certificateRow(db, `${tag}-2`)).status).toBe('Active');
    });

    it('refuses to renew what an ACME, EST or SCEP client renews (single and bulk) unless an agent holds it', async () => {
      const tag = unique('rnc');
      await insertCertificates(db, [
        { id: `${tag}-acme`, source: 'ACME' },
        { id: `${tag}-est`, source: 'EST' },
        { id: `${tag}-scep`, source: 'SCEP' },
        { id: `${tag}-acme-agent`, source: 'ACME', agent_id: 'bulk-agent' },
      ]);
      const single = await api(`/api/v1/certificates/${tag}-acme/renew`, { force: true });
      expect(single.status).toBe(400);
      expect(single.json()).toMatchObject({
        code: 'certificate_not_renewable',
        message: expect.stringMatching(/issued to an ACME client.*renew-early/),
      });
      const response = await api('/api/v1/certificates/bulk-renew', {
        certificate_ids: [`${tag}-acme`, `${tag}-est`, `${tag}-scep`, `${tag}-acme-agent`],
      });
      const result = response.json() as BulkRenewResult;
      expect(result).toMatchObject({
        total_matched: 4,
        total_enqueued: 1,
        total_failed: 3,
        enqueued_jobs: [{ certificate_id: `${tag}-acme-agent` }],
      });
      expect(Object.fromEntries(result.errors.map((e) => [e.certificate_id, e.message]))).toEqual({
        [`${tag}-acme`]: expect.stringContaining('renew-early'),
        [`${tag}-est`]: expect.stringContaining('over EST (simplereenroll)'),
        [`${tag}-scep`]: expect.stringContaining('over SCEP (RenewalReq)'),
      });
      for (const source of ['acme', 'est', 'scep'])
        expect((await certificateRow(db, `${tag}-${source}`)).status).toBe('Active');
      const { rows } = await db.query(
        'SELECT count(*)::int AS n FROM issuance.jobs WHERE certificate_id = ANY($1)',
        [[`${tag}-acme`, `${tag}-est`, `${tag}-scep`]],
      );
      expect(rows[0].n).toBe(0);
    });
  });

  describe('batches', () => {
    it('walks criteria mode across several batches (keyset on id) and counts every certificate once', async () => {
      const owner = unique('many');
      await insertOwner(db, owner);
      await seedCertificates(db, owner, 4500, { owner_id: owner, agent_id: 'bulk-agent' });
      const response = await api('/api/v1/certificates/bulk-renew', { owner_id: owner });
      const result = response.json() as BulkRenewResult;
      expect(result).toMatchObject({
        total_matched: 4500,
        total_enqueued: 4500,
        enqueued_jobs_truncated: false,
      });
      expect(new Set(result.enqueued_jobs.map((j) => j.certificate_id)).size).toBe(4500);
      const { rows } = await db.query(
        `SELECT count(*)::int AS n FROM issuance.certificates WHERE owner_id = $1 AND status = 'RenewalInProgress'`,
        [owner],
      );
      expect(rows[0].n).toBe(4500);
    }, 60_000);

    it('keeps the first 1000 errors and says the list was cut, with an exact total', async () => {
      const ids = Array.from({ length: 1200 }, (_, i) => `${unique('ghost')}-${i}`);
      const response = await api('/api/v1/certificates/bulk-revoke', { certificate_ids: ids });
      const result = response.json() as BulkRevokeResult;
      expect(result).toMatchObject({ total_matched: 0, total_failed: 1200, errors_truncated: true });
      expect(result.errors).toHaveLength(1000);
    });

    it('redoes a failing batch certificate by certificate, so only the failing one is listed', async () => {
      const owner = unique('poison');
      await insertOwner(db, owner);
      await insertCertificates(db, [
        { id: `${owner}-1`, owner_id: owner, agent_id: 'bulk-agent' },
        { id: `${owner}-2-poison`, owner_id: owner, agent_id: 'bulk-agent' },
        { id: `${owner}-3`, owner_id: owner, agent_id: 'bulk-agent' },
      ]);
      // A database failure on one row (a trigger standing in for any error the batch hits).
      await db.query(`CREATE FUNCTION issuance.bulk_test_refuse() RETURNS trigger AS $$
        BEGIN IF NEW.id LIKE '%-poison' THEN RAISE EXCEPTION 'poisoned row'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
      await db.query(`CREATE TRIGGER bulk_test_refuse BEFORE UPDATE ON issuance.certificates
        FOR EACH ROW EXECUTE FUNCTION issuance.bulk_test_refuse()`);
      try {
        for (const body of [
          { owner_id: owner },
          { certificate_ids: [`${owner}-1`, `${owner}-2-poison`, `${owner}-3`] },
        ]) {
          await db.query(
            `UPDATE issuance.certificates SET status = 'Active' WHERE owner_id = $1 AND id NOT LIKE '%-poison'`,
            [owner],
          );
          await db.query(`DELETE FROM issuance.jobs WHERE certificate_id LIKE $1`, [`${owner}-%`]);
          const result = (await api('/api/v1/certificates/bulk-renew', body)).json() as BulkRenewResult;
          expect(result).toMatchObject({
            total_matched: 2,
            total_enqueued: 2,
            total_failed: 1,
            errors: [{ certificate_id: `${owner}-2-poison`, message: 'internal error' }],
          });
          expect((await certificateRow(db, `${owner}-2-poison`)).status).toBe('Active');
          const { rows } = await db.query(
            'SELECT certificate_id FROM issuance.jobs WHERE certificate_id LIKE $1 ORDER BY 1',
            [`${owner}-%`],
          );
          expect(rows.map((r) => r.certificate_id)).toEqual([`${owner}-1`, `${owner}-3`]);
        }
      } finally {
        await db.query('DROP TRIGGER bulk_test_refuse ON issuance.certificates');
        await db.query('DROP FUNCTION issuance.bulk_test_refuse()');
      }
    }, 30_000);
  });

  describe('POST /api/v1/certificates/bulk-reassign', () => {
    it('refuses a missing owner_id, an unknown owner and an unknown team with 400 before any change', async () => {
      const tag = unique('ra');
      await insertOwner(db, `${tag}-o`);
      await insertCertificates(db, [{ id: `${tag}-1` }]);
      const missing = await api('/api/v1/certificates/bulk-reassign', { certificate_ids: [`${tag}-1`] });
      expect(missing.status).toBe(400);
      expect(missing.text).toContain('owner_id is required');
      const owner = await api('/api/v1/certificates/bulk-reassign', {
        certificate_ids: [`${tag}-1`],
        owner_id: 'nobody',
      });
      expect(`${owner.status} ${(owner.json() as { code: string }).code}`).toBe('400 reference_invalid');
      const team = await api('/api/v1/certificates/bulk-reassign', {
        certificate_ids: [`${tag}-1`],
        owner_id: `${tag}-o`,
        team_id: 'no-team',
      });
      expect(`${team.status} ${(team.json() as { code: string }).code}`).toBe('400 reference_invalid');
      expect(await certificateRow(db, `${tag}-1`)).toMatchObject({ owner_id: null, team_id: null });
      const criteria = await api('/api/v1/certificates/bulk-reassign', {
        owner_id: `${tag}-o`,
        team_id: 'x',
      });
      expect(criteria.status).toBe(400);
    });

    it('reassigns, skips certificates the owner and team already hold, lists unknown ids, and audits once', async () => {
      const tag = unique('rb');
      await insertTeam(db, `${tag}-t`);
      await insertOwner(db, `${tag}-o`, `${tag}-t`);
      await insertOwner(db, `${tag}-old`);
      await insertCertificates(db, [
        { id: `${tag}-1`, owner_id: `${tag}-old` },
        { id: `${tag}-2`, owner_id: `${tag}-o`, team_id: `${tag}-t` },
        { id: `${tag}-3`, owner_id: `${tag}-o` },
      ]);
      const requestId = unique('req-reassign');
      const response = await api(
        '/api/v1/certificates/bulk-reassign',
        {
          certificate_ids: [`${tag}-1`, `${tag}-2`, `${tag}-3`, `${tag}-x`],
          owner_id: `${tag}-o`,
          team_id: `${tag}-t`,
        },
        { requestId },
      );
      expect(response.status).toBe(200);
      expect(response.json() as BulkReassignResult).toEqual({
        total_matched: 3,
        total_reassigned: 2,
        total_skipped: 1,
        total_failed: 1,
        errors: [{ certificate_id: `${tag}-x`, message: 'not found' }],
        errors_truncated: false,
      });
      for (const id of [`${tag}-1`, `${tag}-3`]) {
        expect(await certificateRow(db, id)).toMatchObject({ owner_id: `${tag}-o`, team_id: `${tag}-t` });
      }
      const [event] = await auditOf('certificate.bulk_reassigned', requestId);
      expect(event.details).toMatchObject({ owner_id: `${tag}-o`, team_id: `${tag}-t`, total_reassigned: 2 });
    });
  });
});
