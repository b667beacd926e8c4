import { createPrivateKey } from 'node:crypto';
import { createServer, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import {
  BulkRenewResult,
  CertificateDto,
  CertificateVersionDto,
  IssuedCertificateDto,
  JobDto,
} from '@certlane/contracts';
import { NatsBus } from '@certlane/platform';
import {
  CertificateAuthority,
  certificatePem,
  createCsr,
  createSelfSignedCa,
  parseCertificate,
  SoftwareKeyProvider,
} from '@certlane/pki';
import {
  freePort,
  httpsRequest,
  HttpsResult,
  startTestSystem,
  testNatsUrl,
  TestSystem,
} from '@certlane/testing';
import { Client } from 'pg';

const provider = new SoftwareKeyProvider();

/**
 * The certificate inventory and jobs through the real gateway, issuance and auth processes in
 * agent key generation (the default): every status code of /api/v1/certificates and
 * /api/v1/jobs (spec 4.2, 4.5, section 3; ADR 0024), concurrent renewals, and deployment
 * verification against a real TLS server started here.
 */
describe('certificates and jobs (agent key generation)', () => {
  let system: TestSystem;
  let bus: NatsBus;
  let db: Client;
  let admin: string;

  const api = (method: string, path: string, body?: unknown) =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${admin}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  const json = <T>(response: HttpsResult) => response.json() as T;
  let counter = 0;
  const uniqueId = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

  async function create(body: Record<string, unknown> = {}): Promise<CertificateDto> {
    const response = await api('POST', '/api/v1/certificates', {
      id: uniqueId('cert'),
      common_name: 'svc.example.com',
      // Agent key generation (the default) needs an agent (ADR 0042); issuance does not look it up.
      agent_id: 'cert-agent',
      ...body,
    });
    expect(response.status).toBe(201);
    return json<CertificateDto>(response);
  }

  /** A certificate the local CA issued for a key this test holds. */
  async function issueOwn(name: string): Promise<IssuedCertificateDto & { keyPem: string }> {
    const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const csr = await createCsr({
      subject: [['CN', name]],
      signer,
      subjectAltNames: [{ type: 'dns', value: name }],
    });
    const issued = await bus.request('issuance.v1.issue-certificate', { csr_pem: csr.pem });
    const keyPem = createPrivateKey({ key: signer.exportPkcs8(), format: 'der', type: 'pkcs8' })
      .export({ format: 'pem', type: 'pkcs8' })
      .toString();
    return { ...issued, keyPem };
  }

  async function imported(name = 'imported.example.com', extra: Record<string, unknown> = {}) {
    const own = await issueOwn(name);
    const certificate = await create({
      common_name: name,
      certificate_pem: own.certificate_pem + own.chain_pem,
      ...extra,
    });
    return { own, certificate };
  }

  /** A certificate from a CA Certlane does not hold, with SANs and a validity of its own. */
  async function foreignCertificate() {
    const { signer: caSigner } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const caCertificate = parseCertificate(
      (
        await createSelfSignedCa({
          subject: [['CN', 'Elsewhere Root CA']],
          signer: caSigner,
          notBefore: new Date('2025-01-01T00:00:00Z'),
          notAfter: new Date('2040-01-01T00:00:00Z'),
        })
      ).der,
    );
    const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const leaf = parseCertificate(
      (
        await new CertificateAuthority({ certificate: caCertificate, signer: caSigner }).issue({
          publicKey: signer.publicKey,
          subject: [['CN', 'foreign.example.org']],
          subjectAltNames: [
            { type: 'dns', value: 'foreign.example.org' },
            { type: 'dns', value: 'alt.example.org' },
            { type: 'ip', value: '192.0.2.7' },
          ],
          notBefore: new Date('2025-06-01T00:00:00Z'),
          notAfter: new Date('2035-06-01T00:00:00Z'),
        })
      ).der,
    );
    return { leaf, pem: certificatePem(leaf) + certificatePem(caCertificate) };
  }

  const jobsOf = async (certificateId: string) =>
    json<{ data: JobDto[] }>(await api('GET', `/api/v1/jobs?certificate_id=${certificateId}&per_page=500`))
      .data;

  beforeAll(async () => {
    system = await startTestSystem('certs', ['auth', 'issuance', 'deployment-dispatch', 'api-gateway']);
    admin = system.env.SERVICE_AUTH_SECRET!;
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'certificates-int-test',
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

  describe('POST /api/v1/certificates', () => {
    it('creates a Pending certificate with an Issuance job awaiting the agent CSR, and stores no key', async () => {
      const response = await api('POST', '/api/v1/certificates', {
        id: 'web-agent',
        common_name: 'web.example.com',
        sans: ['www.example.com'],
        environment: 'prod',
        agent_id: 'agent-7',
        source: 'Unspecified',
        tags: { app: 'web' },
      });
      expect(response.status).toBe(201);
      expect(response.json()).toMatchObject({
        id: 'web-agent',
        name: 'web.example.com',
        status: 'Pending',
        issuer_id: 'iss-local',
        renewal_policy_id: 'rp-default',
        key_algorithm: 'ECDSA-P256',
        source: '',
        owner_id: '',
        tags: { app: 'web' },
        current_version_id: null,
        expires_at: null,
      });
      const [job] = await jobsOf('web-agent');
      expect(job).toMatchObject({ type: 'Issuance', status: 'AwaitingCSR', agent_id: 'agent-7' });
      const { rows } = await db.query('SELECT count(*)::int AS n FROM issuance.certificate_keys');
      expect(rows[0].n).toBe(0);
    });

    it('generates an mc- id when none is given', async () => {
      const response = await api('POST', '/api/v1/certificates', {
        common_name: 'gen.example.com',
        agent_id: 'cert-agent',
      });
      expect(response.status).toBe(201);
      expect(json<CertificateDto>(response).id).toMatch(/^mc-[0-9a-f]{16}$/);
    });

    it('refuses a taken id with 409 certificate_exists', async () => {
      const first = await create();
      const again = await api('POST', '/api/v1/certificates', { id: first.id, common_name: 'x.example.com' });
      expect(again.status).toBe(409);
      expect(again.json()).toMatchObject({ code: 'certificate_exists' });
    });

    it.each([
      [{}, 'common_name'],
      [{ common_name: 'a.example.com', id: 'Upper' }, 'id'],
      [{ common_name: 'a.example.com', key_algorithm: 'DSA-1024' }, 'key_algorithm'],
      [{ common_name: 'a.example.com', source: 'Fax' }, 'source'],
      [{ common_name: 'a.example.com', unknown_field: 1 }, 'unknown_field'],
    ])('refuses %j with 400 validation_failed', async (body, field) => {
      const response = await api('POST', '/api/v1/certificates', body);
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ code: 'validation_failed' });
      expect(response.text).toContain(field);
    });

    it.each(['owner_id', 'team_id', 'issuer_id', 'renewal_policy_id'])(
      'refuses an unknown %s with 400 reference_invalid naming the field',
      async (field) => {
        const response = await api('POST', '/api/v1/certificates', {
          common_name: 'ref.example.com',
          [field]: 'does-not-exist',
        });
        expect(response.status).toBe(400);
        expect(response.json()).toMatchObject({ code: 'reference_invalid', details: { field } });
      },
    );

    it('imports a certificate and its chain as version 1 with the status its dates give, and no job', async () => {
      const { own, certificate } = await imported('import.example.com');
      expect(certificate).toMatchObject({
        status: 'Active',
        key_algorithm: 'ECDSA-P256',
        expires_at: own.not_after,
        not_before: own.not_before,
      });
      expect(await jobsOf(certificate.id)).toEqual([]);
      const versions = await api('GET', `/api/v1/certificates/${certificate.id}/versions`);
      expect(versions.status).toBe(200);
      expect(versions.json()).toMatchObject({
        total: 1,
        page: 1,
        per_page: 50,
        data: [
          {
            version: 1,
            serial_number: own.serial_hex,
            fingerprint_sha256: own.fingerprint_sha256,
            csr_pem: '',
            cert_pem: own.certificate_pem,
            chain_pem: own.chain_pem,
          },
        ],
      });
    });

    it('records an import the local CA issued under iss-local, its version too', async () => {
      const { certificate } = await imported('local-import.example.com');
      expect(certificate).toMatchObject({
        issuer_id: 'iss-local',
        common_name: 'local-import.example.com',
        sans: ['local-import.example.com'],
      });
      const versions = json<{ data: CertificateVersionDto[] }>(
        await api('GET', `/api/v1/certificates/${certificate.id}/versions`),
      );
      expect(versions.data[0].issuer_id).toBe('iss-local');
    });

    it('imports a certificate from a CA Certlane does not hold under no issuer, keeping its subject, SANs and validity', async () => {
      const { leaf, pem } = await foreignCertificate();
      const response = await api('POST', '/api/v1/certificates', {
        id: uniqueId('foreign'),
        common_name: 'placeholder.example.com',
        sans: ['placeholder.example.com'],
        certificate_pem: pem,
      });
      expect(response.status).toBe(201);
      const certificate = json<CertificateDto>(response);
      expect(certificate).toMatchObject({
        name: 'foreign.example.org',
        common_name: 'foreign.example.org',
        sans: ['foreign.example.org', 'alt.example.org', '192.0.2.7'],
        issuer_id: '',
        status: 'Active',
        not_before: '2025-06-01T00:00:00.000Z',
        expires_at: '2035-06-01T00:00:00.000Z',
      });
      expect(json<CertificateDto>(await api('GET', `/api/v1/certificates/${certificate.id}`))).toEqual(
        certificate,
      );
      const versions = json<{ data: CertificateVersionDto[] }>(
        await api('GET', `/api/v1/certificates/${certificate.id}/versions`),
      );
      expect(versions.data[0]).toMatchObject({ issuer_id: '', serial_number: leaf.serialNumber });
      const underLocal = json<{ data: CertificateDto[] }>(
        await api('GET', '/api/v1/certificates?issuer_id=iss-local&per_page=500'),
      );
      expect(underLocal.data.map((c) => c.id)).not.toContain(certificate.id);
      // Revoking it tells no issuer: the local CA's revocations (its CRL and OCSP) stay clear of it.
      const revoked = await api('POST', `/api/v1/certificates/${certificate.id}/revoke`, {});
      expect(revoked.status).toBe(200);
      expect(revoked.json()).toEqual({ status: 'revoked' });
      const { rows } = await db.query(
        'SELECT count(*)::int AS n FROM issuance.revocations WHERE serial_hex = $1',
        [leaf.serialNumber],
      );
      expect(rows[0].n).toBe(0);
    });

    it('takes common_name from the certificate when an import gives none', async () => {
      const { pem } = await foreignCertificate();
      const response = await api('POST', '/api/v1/certificates', { certificate_pem: pem });
      expect(response.status).toBe(201);
      expect(response.json()).toMatchObject({
        name: 'foreign.example.org',
        common_name: 'foreign.example.org',
      });
    });

    it('refuses an import naming a CA issuer that did not sign it with 400 validation_failed', async () => {
      const { pem } = await foreignCertificate();
      const response = await api('POST', '/api/v1/certificates', {
        common_name: 'foreign.example.org',
        issuer_id: 'iss-local',
        certificate_pem: pem,
      });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ code: 'validation_failed', details: { field: 'issuer_id' } });
    });

    it('refuses a certificate_pem that does not parse with 400', async () => {
      const response = await api('POST', '/api/v1/certificates', {
        common_name: 'bad.example.com',
        certificate_pem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
      });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({
        code: 'validation_failed',
        details: { fields: [expect.objectContaining({ field: 'certificate_pem' })] },
      });
    });
  });

  describe('GET /api/v1/certificates', () => {
    it('leaves archived certificates out of the default list and its total; status=Archived and the id still reach them', async () => {
      const env = uniqueId('arch');
      const kept = await create({ id: `${env}-kept`, environment: env });
      const gone = await create({ id: `${env}-gone`, environment: env });
      expect((await api('DELETE', `/api/v1/certificates/${gone.id}`)).status).toBe(204);
      type List = { data: CertificateDto[]; total: number };
      const byEnvironment = json<List>(await api('GET', `/api/v1/certificates?environment=${env}`));
      expect({ ids: byEnvironment.data.map((c) => c.id), total: byEnvironment.total }).toEqual({
        ids: [kept.id],
        total: 1,
      });
      const archived = json<List>(
        await api('GET', `/api/v1/certificates?environment=${env}&status=Archived`),
      );
      expect({ ids: archived.data.map((c) => c.id), total: archived.total }).toEqual({
        ids: [gone.id],
        total: 1,
      });
      const all = json<List>(await api('GET', '/api/v1/certificates?per_page=500'));
      expect(all.data.map((c) => c.id)).not.toContain(gone.id);
      expect(all.data.every((c) => c.status !== 'Archived')).toBe(true);
      const { rows } = await db.query(
        `SELECT count(*)::int AS n FROM issuance.certificates WHERE status <> 'Archived'`,
      );
      expect(all.total).toBe(rows[0].n);
      const byStatus = json<List>(await api('GET', '/api/v1/certificates?status=Archived&per_page=500'));
      expect(byStatus.data.map((c) => c.id)).toContain(gone.id);
      expect((await api('GET', `/api/v1/certificates/${gone.id}`)).json()).toMatchObject({
        status: 'Archived',
      });
    });

    it('filters by status, environment, owner, team and issuer, ordered by id, paginated', async () => {
      const env = uniqueId('env');
      const a = await create({ id: `${env}-a`, environment: env });
      const b = await create({ id: `${env}-b`, environment: env });
      const c = await create({ id: `${env}-c`, environment: env });
      const page1 = await api('GET', `/api/v1/certificates?environment=${env}&per_page=2`);
      expect(page1.status).toBe(200);
      expect(page1.json()).toMatchObject({ total: 3, page: 1, per_page: 2 });
      expect(json<{ data: CertificateDto[] }>(page1).data.map((x) => x.id)).toEqual([a.id, b.id]);
      const page2 = json<{ data: CertificateDto[] }>(
        await api('GET', `/api/v1/certificates?environment=${env}&per_page=2&page=2`),
      );
      expect(page2.data.map((x) => x.id)).toEqual([c.id]);
      const filtered = json<{ total: number }>(
        await api('GET', `/api/v1/certificates?environment=${env}&status=Pending&issuer_id=iss-local`),
      );
      expect(filtered.total).toBe(3);
      expect(
        json<{ total: number }>(await api('GET', `/api/v1/certificates?environment=${env}&status=Active`))
          .total,
      ).toBe(0);
      expect(
        json<{ total: number }>(await api('GET', `/api/v1/certificates?environment=${env}&owner_id=nobody`))
          .total,
      ).toBe(0);
      expect(
        json<{ total: number }>(await api('GET', `/api/v1/certificates?environment=${env}&team_id=nobody`))
          .total,
      ).toBe(0);
    });

    it('refuses an unknown status filter and a per_page above 500 with 400', async () => {
      expect((await api('GET', '/api/v1/certificates?status=Sleeping')).status).toBe(400);
      expect((await api('GET', '/api/v1/certificates?per_page=501')).status).toBe(400);
    });
  });

  describe('GET, PUT, DELETE /api/v1/certificates/{id}', () => {
    it('reads one certificate, 404 for an unknown id', async () => {
      const created = await create();
      const response = await api('GET', `/api/v1/certificates/${created.id}`);
      expect(response.status).toBe(200);
      expect(response.json()).toEqual(created);
      const missing = await api('GET', '/api/v1/certificates/nope');
      expect(missing.status).toBe(404);
      expect(missing.json()).toMatchObject({ code: 'certificate_not_found' });
    });

    it('updates the given fields and checks references (200, 400, 404)', async () => {
      const created = await create({ environment: 'dev', tags: { a: '1' } });
      const updated = await api('PUT', `/api/v1/certificates/${created.id}`, {
        environment: 'prod',
        name: 'Renamed',
      });
      expect(updated.status).toBe(200);
      expect(updated.json()).toMatchObject({ environment: 'prod', name: 'Renamed', tags: { a: '1' } });
      const badRef = await api('PUT', `/api/v1/certificates/${created.id}`, { renewal_policy_id: 'rp-nope' });
      expect(badRef.status).toBe(400);
      expect(badRef.json()).toMatchObject({
        code: 'reference_invalid',
        details: { field: 'renewal_policy_id' },
      });
      const badField = await api('PUT', `/api/v1/certificates/${created.id}`, { key_algorithm: 'RSA-1024' });
      expect(badField.status).toBe(400);
      const missing = await api('PUT', '/api/v1/certificates/nope', { environment: 'x' });
      expect(missing.status).toBe(404);
    });

    it('archives on DELETE (204) and answers 404 for an unknown id', async () => {
      const created = await create();
      const response = await api('DELETE', `/api/v1/certificates/${created.id}`);
      expect(response.status).toBe(204);
      expect(json<CertificateDto>(await api('GET', `/api/v1/certificates/${created.id}`)).status).toBe(
        'Archived',
      );
      expect((await api('DELETE', '/api/v1/certificates/nope')).status).toBe(404);
    });

    it('lists versions newest first, reads a null csr_pem as "", 404 for an unknown certificate', async () => {
      const { certificate } = await imported('versions.example.com');
      await db.query(
        `INSERT INTO issuance.certificate_versions (id, certificate_id, version, serial_number, fingerprint_sha256,
           key_algorithm, key_size, issued_at, not_before, not_after, cert_pem, csr_pem, issuer_id)
         SELECT 'ver-extra-' || certificate_id, certificate_id, 2, serial_number, fingerprint_sha256, key_algorithm,
           key_size, issued_at, not_before, not_after, cert_pem, NULL, issuer_id
           FROM issuance.certificate_versions WHERE certificate_id = $1`,
        [certificate.id],
      );
      const listed = json<{ data: CertificateVersionDto[]; total: number }>(
        await api('GET', `/api/v1/certificates/${certificate.id}/versions?per_page=1`),
      );
      expect(listed.total).toBe(2);
      expect(listed.data).toHaveLength(1);
      expect(listed.data[0]).toMatchObject({ version: 2, csr_pem: '' });
      expect((await api('GET', '/api/v1/certificates/nope/versions')).status).toBe(404);
    });
  });

  describe('POST /api/v1/certificates/{id}/renew', () => {
    it('creates a Renewal job awaiting the CSR (202 with job_id), then 409 unless forced', async () => {
      const { certificate } = await imported('renew.example.com');
      const first = await api('POST', `/api/v1/certificates/${certificate.id}/renew`);
      expect(first.status).toBe(202);
      const { job_id } = json<{ status: string; job_id: string }>(first);
      expect(json<JobDto>(await api('GET', `/api/v1/jobs/${job_id}`))).toMatchObject({
        type: 'Renewal',
        status: 'AwaitingCSR',
        certificate_id: certificate.id,
      });
      expect(json<CertificateDto>(await api('GET', `/api/v1/certificates/${certificate.id}`)).status).toBe(
        'RenewalInProgress',
      );
      const again = await api('POST', `/api/v1/certificates/${certificate.id}/renew`, {});
      expect(again.status).toBe(409);
      expect(again.json()).toMatchObject({ code: 'renewal_in_progress' });
      const forcedQuery = await api('POST', `/api/v1/certificates/${certificate.id}/renew?force=1`);
      expect(forcedQuery.status).toBe(202);
      const forcedBody = await api('POST', `/api/v1/certificates/${certificate.id}/renew`, { force: true });
      expect(forcedBody.status).toBe(202);
      expect((await jobsOf(certificate.id)).filter((j) => j.type === 'Renewal')).toHaveLength(3);
    });

    it("supersedes the certificate's older open renewal jobs when forced: they are cancelled, naming the new job", async () => {
      const { certificate } = await imported('supersede.example.com');
      const first = json<{ job_id: string }>(
        await api('POST', `/api/v1/certificates/${certificate.id}/renew`),
      );
      const forced = await api('POST', `/api/v1/certificates/${certificate.id}/renew?force=true`);
      expect(forced.status).toBe(202);
      const { job_id } = json<{ job_id: string }>(forced);
      const jobs = await jobsOf(certificate.id);
      expect(
        jobs.filter((j) => !['Completed', 'Failed', 'Cancelled'].includes(j.status)).map((j) => j.id),
      ).toEqual([job_id]);
      expect(jobs.find((j) => j.id === first.job_id)).toMatchObject({
        status: 'Cancelled',
        last_error: `superseded by ${job_id}`,
      });
      expect(json<CertificateDto>(await api('GET', `/api/v1/certificates/${certificate.id}`)).status).toBe(
        'RenewalInProgress',
      );
    });

    it("gives a single renewal and a bulk renewal the same max_attempts: the renewal policy's max_retries + 1", async () => {
      const policy = await api('POST', '/api/v1/renewal-policies', {
        name: uniqueId('Attempts'),
        max_retries: 5,
      });
      expect(policy.status).toBe(201);
      const policyId = json<{ id: string }>(policy).id;
      const single = (await imported('attempts-single.example.com')).certificate;
      const bulk = (await imported('attempts-bulk.example.com')).certificate;
      for (const id of [single.id, bulk.id]) {
        expect((await api('PUT', `/api/v1/certificates/${id}`, { renewal_policy_id: policyId })).status).toBe(
          200,
        );
      }
      expect((await api('POST', `/api/v1/certificates/${single.id}/renew`)).status).toBe(202);
      const bulkRenewed = await api('POST', '/api/v1/certificates/bulk-renew', {
        certificate_ids: [bulk.id],
      });
      expect(bulkRenewed.status).toBe(200);
      for (const id of [single.id, bulk.id]) {
        const [renewal] = (await jobsOf(id)).filter((j) => j.type === 'Renewal');
        expect([id, renewal.max_attempts]).toEqual([id, 6]);
      }
    });

    it('refuses with 400 keygen_agent_missing to create or renew, in agent key generation, a certificate without an agent', async () => {
      const id = uniqueId('no-agent');
      const refused = await api('POST', '/api/v1/certificates', { id, common_name: 'no-agent.example.com' });
      expect(refused.status).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'keygen_agent_missing', details: { field: 'agent_id' } });
      expect((await api('GET', `/api/v1/certificates/${id}`)).status).toBe(404);
      // An import needs no key and no agent; renewing it does.
      const { certificate } = await imported('no-agent-import.example.com', { agent_id: '' });
      const renew = await api('POST', `/api/v1/certificates/${certificate.id}/renew`);
      expect(renew.status).toBe(400);
      expect(renew.json()).toMatchObject({ code: 'keygen_agent_missing' });
      expect(await jobsOf(certificate.id)).toEqual([]);
      expect(json<CertificateDto>(await api('GET', `/api/v1/certificates/${certificate.id}`)).status).toBe(
        'Active',
      );
    });

    it('refuses with 400 certificate_not_renewable to renew, singly or in bulk, a certificate without an issuer, until PUT gives it one', async () => {
      const { pem } = await foreignCertificate();
      const certificate = await create({ id: uniqueId('issuerless'), certificate_pem: pem });
      expect(certificate.issuer_id).toBe('');
      const refused = await api('POST', `/api/v1/certificates/${certificate.id}/renew?force=true`);
      expect(refused.status).toBe(400);
      expect(refused.json()).toMatchObject({
        code: 'certificate_not_renewable',
        message: expect.stringContaining('has no issuer'),
        details: { field: 'issuer_id' },
      });
      const bulk = json<BulkRenewResult>(
        await api('POST', '/api/v1/certificates/bulk-renew', { certificate_ids: [certificate.id] }),
      );
      expect(bulk).toMatchObject({
        total_enqueued: 0,
        total_failed: 1,
        errors: [{ certificate_id: certificate.id, message: expect.stringContaining('has no issuer') }],
      });
      expect(await jobsOf(certificate.id)).toEqual([]);
      expect(json<CertificateDto>(await api('GET', `/api/v1/certificates/${certificate.id}`)).status).toBe(
        'Active',
      );
      // "" does not name an issuer; an existing issuer makes the certificate renewable.
      const cleared = await api('PUT', `/api/v1/certificates/${certificate.id}`, { issuer_id: '' });
      expect([cleared.status, cleared.json()]).toMatchObject([400, { code: 'reference_invalid' }]);
      const given = await api('PUT', `/api/v1/certificates/${certificate.id}`, { issuer_id: 'iss-local' });
      expect(json<CertificateDto>(given).issuer_id).toBe('iss-local');
      expect((await api('POST', `/api/v1/certificates/${certificate.id}/renew`)).status).toBe(202);
    });

    it('refuses with 501 not_implemented to issue or renew, singly or in bulk, under an issuer whose type cannot issue yet (ADR 0046)', async () => {
      const issuer = await api('POST', '/api/v1/issuers', {
        name: uniqueId('Remote DigiCert'),
        type: 'digicert',
        config: { api_key: 'dc-remote-key-0123', product_name_id: 'ssl_plus' },
      });
      expect(issuer.status).toBe(201);
      const issuerId = json<{ id: string }>(issuer).id;
      // A new certificate to issue there: refused before anything is stored.
      const id = uniqueId('remote-new');
      const refusedCreate = await api('POST', '/api/v1/certificates', {
        id,
        common_name: 'remote-new.example.com',
        issuer_id: issuerId,
        agent_id: 'cert-agent',
      });
      expect(refusedCreate.status).toBe(501);
      expect(refusedCreate.json()).toMatchObject({
        code: 'not_implemented',
        message: expect.stringContaining('of type digicert, which cannot issue yet'),
        details: { field: 'issuer_id' },
      });
      expect((await api('GET', `/api/v1/certificates/${id}`)).status).toBe(404);
      // An import of that CA's certificate is kept; renewing it cannot reach the CA.
      const { pem } = await foreignCertificate();
      const certificate = await create({
        id: uniqueId('remote-import'),
        certificate_pem: pem,
        issuer_id: issuerId,
      });
      expect(certificate.issuer_id).toBe(issuerId);
      const refused = await api('POST', `/api/v1/certificates/${certificate.id}/renew?force=true`);
      expect(refused.status).toBe(501);
      expect(refused.json()).toMatchObject({ code: 'not_implemented', details: { field: 'issuer_id' } });
      const bulk = json<BulkRenewResult>(
        await api('POST', '/api/v1/certificates/bulk-renew', { certificate_ids: [certificate.id] }),
      );
      expect(bulk).toMatchObject({
        total_enqueued: 0,
        total_failed: 1,
        errors: [{ certificate_id: certificate.id, message: expect.stringContaining('cannot issue yet') }],
      });
      expect(await jobsOf(certificate.id)).toEqual([]);
      expect(json<CertificateDto>(await api('GET', `/api/v1/certificates/${certificate.id}`)).status).toBe(
        'Active',
      );
      // Under a local CA issuer it renews.
      const given = await api('PUT', `/api/v1/certificates/${certificate.id}`, { issuer_id: 'iss-local' });
      expect(json<CertificateDto>(given).issuer_id).toBe('iss-local');
      expect((await api('POST', `/api/v1/certificates/${certificate.id}/renew`)).status).toBe(202);
    });

    it('refuses an archived certificate with 400 certificate_not_renewable, even forced; 404 unknown', async () => {
      const created = await create();
      await api('DELETE', `/api/v1/certificates/${created.id}`);
      const refused = await api('POST', `/api/v1/certificates/${created.id}/renew?force=true`);
      expect(refused.status).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'certificate_not_renewable' });
      expect((await api('POST', '/api/v1/certificates/nope/renew')).status).toBe(404);
      expect((await api('POST', `/api/v1/certificates/${created.id}/renew?force=maybe`)).status).toBe(400);
      expect((await api('POST', `/api/v1/certificates/${created.id}/renew`, { force: 'yes' })).status).toBe(
        400,
      );
    });

    it('refuses an expired certificate even forced (400), and renews a revoked one', async () => {
      const { certificate } = await imported('expired.example.com');
      await db.query(`UPDATE issuance.certificates SET status = 'Expired' WHERE id = $1`, [certificate.id]);
      const refused = await api('POST', `/api/v1/certificates/${certificate.id}/renew`, { force: true });
      expect(refused.status).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'certificate_not_renewable' });
      const revoked = (await imported('revoked-renew.example.com')).certificate;
      expect((await api('POST', `/api/v1/certificates/${revoked.id}/revoke`)).status).toBe(200);
      expect((await api('POST', `/api/v1/certificates/${revoked.id}/renew`)).status).toBe(202);
    });

    it('creates exactly one job for 10 concurrent renewals, and one each when forced', async () => {
      const { certificate } = await imported('concurrent.example.com');
      const plain = await Promise.all(
        Array.from({ length: 10 }, () => api('POST', `/api/v1/certificates/${certificate.id}/renew`)),
      );
      expect(plain.map((r) => r.status).sort()).toEqual([202, ...Array(9).fill(409)]);
      expect((await jobsOf(certificate.id)).filter((j) => j.type === 'Renewal')).toHaveLength(1);
      const forced = await Promise.all(
        Array.from({ length: 10 }, () =>
          api('POST', `/api/v1/certificates/${certificate.id}/renew?force=true`),
        ),
      );
      expect(forced.map((r) => r.status)).toEqual(Array(10).fill(202));
      const renewals = (await jobsOf(certificate.id)).filter((j) => j.type === 'Renewal');
      expect(renewals).toHaveLength(11);
      // Each forced renewal superseded the one before: one stays open.
      expect(renewals.filter((j) => j.status === 'Cancelled')).toHaveLength(10);
    });
  });

  describe('POST /api/v1/certificates/{id}/deploy', () => {
    /** A target at deployment-dispatch: run by `agentId`, or agentless (aws_acm) without one. */
    async function target(agentId?: string): Promise<string> {
      const id = uniqueId('tgt');
      const created = await api(
        'POST',
        '/api/v1/targets',
        agentId
          ? {
              id,
              name: id,
              type: 'nginx',
              agent_id: agentId,
              config: { cert_path: '/srv/c.pem', key_path: '/srv/k.pem' },
            }
          : { id, name: id, type: 'aws_acm', config: { region: 'eu-west-1' } },
      );
      expect(created.status).toBe(201);
      return id;
    }
    async function agent(): Promise<string> {
      const id = uniqueId('edge');
      expect(
        (await api('POST', '/api/v1/agents', { id, name: id, hostname: `${id}.example.com` })).status,
      ).toBe(201);
      return id;
    }
    const deploy = (certificateId: string, body?: unknown) =>
      api('POST', `/api/v1/certificates/${certificateId}/deploy`, body);

    it('creates a Pending Deployment job for the target (202), 400 without a version, 404 unknown', async () => {
      const { certificate } = await imported('deploy.example.com');
      const targetId = await target();
      const response = await deploy(certificate.id, { target_id: targetId });
      expect(response.status).toBe(202);
      const job = json<JobDto>(await api('GET', `/api/v1/jobs/${json<{ job_id: string }>(response).job_id}`));
      expect(job).toMatchObject({ type: 'Deployment', status: 'Pending', target_id: targetId });
      const pending = await create();
      const refused = await deploy(pending.id);
      expect(refused.status).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'certificate_not_issued' });
      expect((await api('POST', '/api/v1/certificates/nope/deploy')).status).toBe(404);
      expect((await deploy(certificate.id, { target_id: 7 })).status).toBe(400);
    });

    it('answers 404 target_not_found for a target that does not exist, and creates no job', async () => {
      const { certificate } = await imported('deploy-nope.example.com');
      const response = await deploy(certificate.id, { target_id: 'nope' });
      expect(response.status).toBe(404);
      expect(response.json()).toMatchObject({ code: 'target_not_found' });
      expect(await jobsOf(certificate.id)).toEqual([]);
    });

    it('answers 409 target_retired for a target retired with its agent', async () => {
      const { certificate } = await imported('deploy-retired.example.com');
      const edge = await agent();
      const targetId = await target(edge);
      expect((await api('DELETE', `/api/v1/agents/${edge}?force=true&reason=gone`)).status).toBe(200);
      const response = await deploy(certificate.id, { target_id: targetId });
      expect(response.status).toBe(409);
      expect(response.json()).toMatchObject({ code: 'target_retired' });
      expect(await jobsOf(certificate.id)).toEqual([]);
    });

    it.each(['Revoked', 'Archived', 'Expired'])(
      'answers 409 certificate_not_deployable for a %s certificate, with or without a target',
      async (status) => {
        const { certificate } = await imported(`deploy-${status.toLowerCase()}.example.com`);
        await db.query('UPDATE issuance.certificates SET status = $2 WHERE id = $1', [
          certificate.id,
          status,
        ]);
        for (const body of [undefined, { target_id: await target() }]) {
          const response = await deploy(certificate.id, body);
          expect(response.status).toBe(409);
          expect(response.json()).toMatchObject({ code: 'certificate_not_deployable', details: { status } });
        }
        expect(await jobsOf(certificate.id)).toEqual([]);
      },
    );

    it("answers 409 target_agent_mismatch for a target of another agent than the certificate's; gives the job to the target's agent otherwise", async () => {
      const [mine, theirs] = [await agent(), await agent()];
      const { certificate } = await imported('deploy-agents.example.com');
      await api('PUT', `/api/v1/certificates/${certificate.id}`, { agent_id: mine });
      const mismatch = await deploy(certificate.id, { target_id: await target(theirs) });
      expect(mismatch.status).toBe(409);
      expect(mismatch.json()).toMatchObject({ code: 'target_agent_mismatch' });
      const own = await deploy(certificate.id, { target_id: await target(mine) });
      expect(
        json<JobDto>(await api('GET', `/api/v1/jobs/${json<{ job_id: string }>(own).job_id}`)),
      ).toMatchObject({
        agent_id: mine,
      });
      // A certificate without an agent (server key generation) is deployed by the target's agent.
      const { certificate: unassigned } = await imported('deploy-unassigned.example.com', { agent_id: '' });
      const accepted = await deploy(unassigned.id, { target_id: await target(theirs) });
      expect(accepted.status).toBe(202);
      expect(
        json<JobDto>(await api('GET', `/api/v1/jobs/${json<{ job_id: string }>(accepted).job_id}`)),
      ).toMatchObject({ agent_id: theirs });
    });
  });

  describe('POST /api/v1/certificates/{id}/revoke', () => {
    it('revokes (200) with the reason and revoked_at, and records the serial at the local CA', async () => {
      const { own, certificate } = await imported('revoke.example.com');
      const response = await api('POST', `/api/v1/certificates/${certificate.id}/revoke`, {
        reason: 'keyCompromise',
      });
      expect(response.status).toBe(200);
      expect(response.json()).toMatchObject({ status: 'revoked' });
      expect(json<CertificateDto>(await api('GET', `/api/v1/certificates/${certificate.id}`))).toMatchObject({
        status: 'Revoked',
        revocation_reason: 'keyCompromise',
        revoked_at: expect.any(String),
      });
      const { rows } = await db.query('SELECT reason FROM issuance.revocations WHERE serial_hex = $1', [
        own.serial_hex,
      ]);
      expect(rows).toEqual([{ reason: 'keyCompromise' }]);
    });

    it('still answers 200 when the issuer step fails (a serial the local CA never issued)', async () => {
      const created = await create();
      await db.query(
        `INSERT INTO issuance.certificate_versions (id, certificate_id, version, serial_number, fingerprint_sha256,
           key_algorithm, key_size, issued_at, not_before, not_after, cert_pem, issuer_id)
         VALUES ($1, $2, 1, 'abcdef', 'ff', 'ECDSA-P256', 256, now(), now(), now() + interval '1 day', 'x', 'iss-local')`,
        [`ver-${created.id}`, created.id],
      );
      const response = await api('POST', `/api/v1/certificates/${created.id}/revoke`);
      expect(response.status).toBe(200);
      expect(json<CertificateDto>(await api('GET', `/api/v1/certificates/${created.id}`))).toMatchObject({
        status: 'Revoked',
        revocation_reason: 'unspecified',
      });
    });

    it('refuses an unknown reason with 400 and an unknown certificate with 404', async () => {
      const created = await create();
      expect(
        (await api('POST', `/api/v1/certificates/${created.id}/revoke`, { reason: 'KeyCompromise' })).status,
      ).toBe(400);
      expect((await api('POST', '/api/v1/certificates/nope/revoke')).status).toBe(404);
    });
  });

  describe('export', () => {
    it('serves PEM as JSON and as a file; 404 without certificate or version; 422 for unparseable PEM', async () => {
      const { own, certificate } = await imported('export.example.com');
      const response = await api('GET', `/api/v1/certificates/${certificate.id}/export/pem`);
      expect(response.status).toBe(200);
      expect(response.json()).toEqual({
        cert_pem: own.certificate_pem,
        chain_pem: own.chain_pem,
        full_pem: own.certificate_pem + own.chain_pem,
      });
      const file = await api('GET', `/api/v1/certificates/${certificate.id}/export/pem?download=true`);
      expect(file.status).toBe(200);
      expect(file.headers['content-type']).toContain('application/x-pem-file');
      expect(file.headers['content-disposition']).toBe(`attachment; filename="${certificate.id}.pem"`);
      expect(file.text).toBe(own.certificate_pem + own.chain_pem);

      expect((await api('GET', '/api/v1/certificates/nope/export/pem')).status).toBe(404);
      const pending = await create();
      const noVersion = await api('GET', `/api/v1/certificates/${pending.id}/export/pem`);
      expect(noVersion.status).toBe(404);
      expect(noVersion.json()).toMatchObject({ code: 'certificate_version_not_found' });
      expect((await api('POST', `/api/v1/certificates/${pending.id}/export/pkcs12`, {})).status).toBe(404);

      await db.query(
        `UPDATE issuance.certificate_versions SET cert_pem = '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n'
          WHERE certificate_id = $1`,
        [certificate.id],
      );
      const broken = await api('GET', `/api/v1/certificates/${certificate.id}/export/pem`);
      expect(broken.status).toBe(422);
      expect(broken.json()).toMatchObject({ code: 'stored_pem_unparseable' });
    });

    it('serves PKCS#12 as application/x-pkcs12, 404 for an unknown certificate', async () => {
      const { certificate } = await imported('p12.example.com');
      const response = await api('POST', `/api/v1/certificates/${certificate.id}/export/pkcs12`, {
        password: '',
      });
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/x-pkcs12');
      expect(response.headers['content-disposition']).toBe(`attachment; filename="${certificate.id}.p12"`);
      expect((await api('POST', '/api/v1/certificates/nope/export/pkcs12')).status).toBe(404);
    });
  });

  describe('/api/v1/jobs', () => {
    it('lists newest first with status and type filters, paginated; 400 for an unknown status', async () => {
      const created = await create();
      await api('POST', `/api/v1/certificates/${created.id}/renew?force=true`);
      const listed = json<{ data: JobDto[]; total: number }>(
        await api('GET', `/api/v1/jobs?certificate_id=${created.id}`),
      );
      expect(listed.data.map((j) => j.type)).toEqual(['Renewal', 'Issuance']);
      const renewals = json<{ data: JobDto[] }>(
        await api('GET', `/api/v1/jobs?type=Renewal&status=AwaitingCSR&per_page=500`),
      );
      expect(renewals.data.every((j) => j.type === 'Renewal' && j.status === 'AwaitingCSR')).toBe(true);
      const page = await api('GET', '/api/v1/jobs?per_page=1&page=2');
      expect(page.status).toBe(200);
      expect(page.json()).toMatchObject({ page: 2, per_page: 1 });
      expect((await api('GET', '/api/v1/jobs?status=Sleeping')).status).toBe(400);
      expect((await api('GET', '/api/v1/jobs?type=Coffee')).status).toBe(400);
    });

    it('reads one job, 404 for an unknown id', async () => {
      const created = await create();
      const [job] = await jobsOf(created.id);
      expect((await api('GET', `/api/v1/jobs/${job.id}`)).json()).toEqual(job);
      const missing = await api('GET', '/api/v1/jobs/job-nope');
      expect(missing.status).toBe(404);
      expect(missing.json()).toMatchObject({ code: 'job_not_found' });
    });

    it('cancels an open job (200), sending a renewing certificate back to its dates; 400 once finished; 404', async () => {
      const { certificate } = await imported('cancel.example.com');
      const { job_id } = json<{ job_id: string }>(
        await api('POST', `/api/v1/certificates/${certificate.id}/renew`),
      );
      const cancelled = await api('POST', `/api/v1/jobs/${job_id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.json()).toMatchObject({ status: 'cancelled', job_id });
      expect(json<JobDto>(await api('GET', `/api/v1/jobs/${job_id}`)).status).toBe('Cancelled');
      expect(json<CertificateDto>(await api('GET', `/api/v1/certificates/${certificate.id}`)).status).toBe(
        'Active',
      );
      const again = await api('POST', `/api/v1/jobs/${job_id}/cancel`);
      expect(again.status).toBe(400);
      expect(again.json()).toMatchObject({ code: 'job_invalid_transition' });
      expect((await api('POST', '/api/v1/jobs/job-nope/cancel')).status).toBe(404);
    });

    /** Approval gates come with governance; here a job is put in AwaitingApproval directly. */
    async function awaitingApproval(type = 'Renewal'): Promise<{ job: string; certificate: string }> {
      const { certificate } = await imported(`${uniqueId('approval')}.example.com`);
      await db.query(`UPDATE issuance.certificates SET status = 'RenewalInProgress' WHERE id = $1`, [
        certificate.id,
      ]);
      const { rows } = await db.query(
        `INSERT INTO issuance.jobs (id, type, status, certificate_id) VALUES ($1, $2, 'AwaitingApproval', $3) RETURNING id`,
        [`job-${uniqueId('approval')}`, type, certificate.id],
      );
      return { job: rows[0].id, certificate: certificate.id };
    }

    it('approves an awaiting job to AwaitingCSR in agent mode (200); 400 when not awaiting; 404', async () => {
      const { job } = await awaitingApproval();
      const approved = await api('POST', `/api/v1/jobs/${job}/approve`);
      expect(approved.status).toBe(200);
      expect(approved.json()).toMatchObject({ id: job, status: 'AwaitingCSR' });
      const again = await api('POST', `/api/v1/jobs/${job}/approve`);
      expect(again.status).toBe(400);
      expect(again.json()).toMatchObject({ code: 'job_invalid_transition' });
      expect((await api('POST', '/api/v1/jobs/job-nope/approve')).status).toBe(404);
      const deployment = await awaitingApproval('Deployment');
      expect(json<JobDto>(await api('POST', `/api/v1/jobs/${deployment.job}/approve`)).status).toBe(
        'Pending',
      );
    });

    it('rejects an awaiting job with its reason (200), the certificate back to its dates; 400; 404', async () => {
      const { job, certificate } = await awaitingApproval();
      const rejected = await api('POST', `/api/v1/jobs/${job}/reject`, { reason: 'not this week' });
      expect(rejected.status).toBe(200);
      expect(rejected.json()).toMatchObject({ status: 'Cancelled', last_error: 'not this week' });
      expect(json<CertificateDto>(await api('GET', `/api/v1/certificates/${certificate}`)).status).toBe(
        'Active',
      );
      expect((await api('POST', `/api/v1/jobs/${job}/reject`)).status).toBe(400);
      expect((await api('POST', '/api/v1/jobs/job-nope/reject')).status).toBe(404);
      expect((await api('POST', `/api/v1/jobs/${job}/reject`, { reason: 5 })).status).toBe(400);
    });
  });

  describe('events', () => {
    it('publishes every certificate and job change through the outbox, in commit order', async () => {
      const { certificate } = await imported('events.example.com');
      await api('PUT', `/api/v1/certificates/${certificate.id}`, { environment: 'staging' });
      const { job_id } = json<{ job_id: string }>(
        await api('POST', `/api/v1/certificates/${certificate.id}/renew`),
      );
      await api('POST', `/api/v1/jobs/${job_id}/cancel`);
      await api('DELETE', `/api/v1/certificates/${certificate.id}`);
      const { rows } = await db.query<{ subject: string; data: Record<string, string> }>(
        `SELECT subject, envelope->'data' AS data FROM issuance.outbox
          WHERE envelope->'data'->>'certificate_id' = $1 OR envelope->'data'->>'id' = $1 ORDER BY seq`,
        [certificate.id],
      );
      const events = rows.map((row) => {
        const subject = row.subject.slice(row.subject.indexOf('issuance.v1.'));
        return subject.endsWith('status-changed') ? `${subject} ${row.data.from}->${row.data.to}` : subject;
      });
      expect(events).toEqual([
        'issuance.v1.certificate.status-changed Pending->Active',
        'issuance.v1.certificate.created',
        'issuance.v1.certificate.updated',
        'issuance.v1.certificate.status-changed Active->RenewalInProgress',
        'issuance.v1.job.created',
        'issuance.v1.job.status-changed AwaitingCSR->Cancelled',
        'issuance.v1.certificate.status-changed RenewalInProgress->Active',
        'issuance.v1.certificate.status-changed Active->Archived',
        'issuance.v1.certificate.archived',
      ]);
    });
  });

  describe('deployment verification', () => {
    let server: Server;
    let endpoint: string;
    let own: IssuedCertificateDto & { keyPem: string };
    let deployment: string;

    beforeAll(async () => {
      own = await issueOwn('served.example.com');
      const certificate = await create({
        common_name: 'served.example.com',
        certificate_pem: own.certificate_pem + own.chain_pem,
      });
      server = createServer({ cert: own.certificate_pem + own.chain_pem, key: own.keyPem }, (_req, res) =>
        res.end('ok'),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      endpoint = `127.0.0.1:${(server.address() as AddressInfo).port}`;
      const deployed = await api('POST', `/api/v1/certificates/${certificate.id}/deploy`);
      deployment = json<{ job_id: string }>(deployed).job_id;
    });

    afterAll(async () => {
      await new Promise((resolve) => server?.close(resolve));
    });

    it('answers 404 before any verification, then verified for the served version', async () => {
      const none = await api('GET', `/api/v1/jobs/${deployment}/verification`);
      expect(none.status).toBe(404);
      expect(none.json()).toMatchObject({ code: 'verification_not_found' });
      const verified = await api('POST', `/api/v1/jobs/${deployment}/verify`, { endpoint });
      expect(verified.status).toBe(200);
      expect(verified.json()).toMatchObject({
        result: 'verified',
        endpoint,
        expected_fingerprint_sha256: own.fingerprint_sha256,
        served_fingerprint_sha256: own.fingerprint_sha256,
      });
      const latest = await api('GET', `/api/v1/jobs/${deployment}/verification`);
      expect(latest.status).toBe(200);
      expect(latest.json()).toEqual(verified.json());
    });

    it('reports mismatch for an endpoint serving another certificate, unreachable for a closed port', async () => {
      const gateway = new URL(system.services['api-gateway'].url);
      const mismatch = await api('POST', `/api/v1/jobs/${deployment}/verify`, {
        endpoint: `127.0.0.1:${gateway.port}`,
        server_name: 'localhost',
      });
      expect(mismatch.json()).toMatchObject({
        result: 'mismatch',
        served_fingerprint_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      const closed = await api('POST', `/api/v1/jobs/${deployment}/verify`, {
        endpoint: `127.0.0.1:${await freePort()}`,
      });
      expect(closed.status).toBe(200);
      expect(closed.json()).toMatchObject({
        result: 'unreachable',
        served_fingerprint_sha256: '',
        error: expect.any(String),
      });
      expect(
        json<{ result: string }>(await api('GET', `/api/v1/jobs/${deployment}/verification`)).result,
      ).toBe('unreachable');
    });

    it('refuses a missing endpoint, a non-deployment job (400) and an unknown job (404)', async () => {
      const noEndpoint = await api('POST', `/api/v1/jobs/${deployment}/verify`);
      expect(noEndpoint.status).toBe(400);
      const created = await create();
      const [issuance] = await jobsOf(created.id);
      expect((await api('POST', `/api/v1/jobs/${issuance.id}/verify`, { endpoint })).status).toBe(400);
      expect((await api('POST', '/api/v1/jobs/job-nope/verify', { endpoint })).status).toBe(404);
      expect((await api('GET', '/api/v1/jobs/job-nope/verification')).status).toBe(404);
    });
  });
});
