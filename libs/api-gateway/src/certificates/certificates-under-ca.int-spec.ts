import {
  AuditEventDto,
  BulkRenewResult,
  BulkRevokeResult,
  CaCertificateDto,
  CertificateDto,
  CertificateVersionDto,
  JobDto,
} from '@certlane/contracts';
import { apiRequestAs, eventually, HttpsResult, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

/**
 * ADR 0076 against the real auth, issuance, revocation and gateway processes (server key
 * generation, so every certificate is issued by the local CA through the product's own path): the
 * inventory lists the certificates under a CA (signed by it or by a CA below it, by their current
 * version), bulk renew moves them under the issuer's issuing CA of the moment, and bulk revoke
 * takes a CA's certificates out of service, each in one call after the CA is revoked.
 */
describe('certificates under a CA', () => {
  let system: TestSystem;
  let db: Client;
  let admin: string;
  let operator: string;
  let teamCa: CaCertificateDto;
  let deptCa: CaCertificateDto;
  let nextCa: CaCertificateDto;

  const api = (method: string, path: string, body?: unknown, key = admin): Promise<HttpsResult> =>
    apiRequestAs(system, key, method, path, body);

  const listIds = async (query: string): Promise<{ ids: string[]; total: number }> => {
    const response = await api('GET', `/api/v1/certificates?${query}`);
    expect(response.status).toBe(200);
    const page = response.json() as { data: CertificateDto[]; total: number };
    return { ids: page.data.map((certificate) => certificate.id), total: page.total };
  };

  const createCertificate = async (id: string) => {
    const response = await api('POST', '/api/v1/certificates', {
      id,
      common_name: `${id}.under.example`,
      key_algorithm: 'ECDSA-P256',
    });
    expect(response.status).toBe(201);
    expect((response.json() as CertificateDto).status).toBe('Active');
  };

  const createCa = async (body: Record<string, unknown>): Promise<CaCertificateDto> => {
    const response = await api('POST', '/api/v1/intermediate-cas', { issuer_id: 'iss-local', ...body });
    expect(response.status).toBe(201);
    return response.json() as CaCertificateDto;
  };

  /** The CA that signed the certificate's current version, as issuance recorded it. */
  const signerOf = async (id: string): Promise<string> => {
    const { rows } = await db.query(
      `SELECT ic.ca_id FROM issuance.certificates c
         JOIN issuance.certificate_versions v ON v.id = c.current_version_id
         JOIN issuance.issued_certificates ic ON ic.issuer_id = v.issuer_id AND ic.serial_hex = v.serial_number
        WHERE c.id = $1`,
      [id],
    );
    return rows[0]?.ca_id;
  };

  beforeAll(async () => {
    system = await startTestSystem('underca', ['auth', 'issuance', 'revocation', 'api-gateway'], {
      SERVICE_KEYGEN_MODE: 'server',
    });
    admin = system.env.SERVICE_AUTH_SECRET!;
    const key = await api('POST', '/api/v1/auth/api-keys', {
      name: 'under-ca-operator',
      role_ids: ['r-operator'],
    });
    operator = (key.json() as { key: string }).key;
    db = new Client({ connectionString: system.database.url });
    await db.connect();

    // The seeded issuing CA signs u-seeded; a team CA under the root signs u-team-1 and u-team-2;
    // a department CA under the team CA signs u-dept; then another CA under the root becomes the
    // issuing CA, so renewals move there.
    await createCertificate('u-seeded');
    teamCa = await createCa({
      parent_id: 'ca-local-root',
      common_name: 'Team CA',
      path_length: 1,
      issuing: true,
    });
    await createCertificate('u-team-1');
    await createCertificate('u-team-2');
    deptCa = await createCa({ parent_id: teamCa.id, common_name: 'Dept CA', path_length: 0, issuing: true });
    await createCertificate('u-dept');
    nextCa = await createCa({
      parent_id: 'ca-local-root',
      common_name: 'Next CA',
      path_length: 0,
      issuing: true,
    });
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  it('records each certificate under the CA that was issuing when it was made', async () => {
    expect(await signerOf('u-seeded')).toBe('ca-local-issuing-1');
    expect(await signerOf('u-team-1')).toBe(teamCa.id);
    expect(await signerOf('u-dept')).toBe(deptCa.id);
  });

  it('lists the certificates signed by a CA or by a CA below it, with an exact total', async () => {
    expect(await listIds(`ca_id=${teamCa.id}`)).toEqual({
      ids: ['u-dept', 'u-team-1', 'u-team-2'],
      total: 3,
    });
    expect(await listIds(`ca_id=${deptCa.id}`)).toEqual({ ids: ['u-dept'], total: 1 });
    expect(await listIds('ca_id=ca-local-issuing-1')).toEqual({ ids: ['u-seeded'], total: 1 });
    expect(await listIds('ca_id=ca-local-root')).toEqual({
      ids: ['u-dept', 'u-seeded', 'u-team-1', 'u-team-2'],
      total: 4,
    });
    expect(await listIds(`ca_id=${nextCa.id}`)).toEqual({ ids: [], total: 0 });
    expect(await listIds('ca_id=ca-nope-0000')).toEqual({ ids: [], total: 0 });
  });

  it('pages the list and ANDs the CA with the other filters', async () => {
    expect(await listIds(`ca_id=${teamCa.id}&per_page=1&page=2`)).toEqual({ ids: ['u-team-1'], total: 3 });
    expect(await listIds(`ca_id=${teamCa.id}&status=Active&issuer_id=iss-local`)).toEqual({
      ids: ['u-dept', 'u-team-1', 'u-team-2'],
      total: 3,
    });
    expect(await listIds(`ca_id=${teamCa.id}&status=Revoked`)).toEqual({ ids: [], total: 0 });
    expect(await listIds(`ca_id=${teamCa.id}&issuer_id=iss-other`)).toEqual({ ids: [], total: 0 });
  });

  it('refuses a CA id longer than any id (400)', async () => {
    const response = await api('GET', `/api/v1/certificates?ca_id=${'c'.repeat(129)}`);
    expect(response.status).toBe(400);
    expect(response.text).toMatch(/ca_id/);
    const bulk = await api('POST', '/api/v1/certificates/bulk-renew', { ca_id: 'c'.repeat(129) }, operator);
    expect(bulk.status).toBe(400);
  });

  it('renews everything under a revoked CA in one call, under the issuing CA of the moment', async () => {
    const revoked = await api('POST', `/api/v1/intermediate-cas/${teamCa.id}/revoke`, {
      reason: 'caCompromise',
    });
    expect(revoked.status).toBe(200);
    const response = await api('POST', '/api/v1/certificates/bulk-renew', { ca_id: teamCa.id }, operator);
    expect(response.status).toBe(200);
    const result = response.json() as BulkRenewResult;
    expect(result).toMatchObject({ total_matched: 3, total_enqueued: 3, total_failed: 0 });
    expect(result.enqueued_jobs.map((job) => job.certificate_id).sort()).toEqual([
      'u-dept',
      'u-team-1',
      'u-team-2',
    ]);
    await eventually(async () => {
      const jobs = await Promise.all(
        result.enqueued_jobs.map(
          async (job) => ((await api('GET', `/api/v1/jobs/${job.job_id}`)).json() as JobDto).status,
        ),
      );
      return jobs.every((status) => status === 'Completed');
    }, 'the renewals under the revoked CA complete');
    for (const id of ['u-dept', 'u-team-1', 'u-team-2']) expect(await signerOf(id)).toBe(nextCa.id);
    // The versions name the CA that signed each one, the new under the issuing CA.
    const versions = (await api('GET', '/api/v1/certificates/u-dept/versions')).json() as {
      data: CertificateVersionDto[];
    };
    expect(versions.data.map((version) => [version.version, version.ca_id])).toEqual([
      [2, nextCa.id],
      [1, deptCa.id],
    ]);
    // Their current versions are no longer under the revoked CA; the one outside it never was.
    expect(await listIds(`ca_id=${teamCa.id}`)).toEqual({ ids: [], total: 0 });
    expect(await listIds(`ca_id=${nextCa.id}`)).toEqual({
      ids: ['u-dept', 'u-team-1', 'u-team-2'],
      total: 3,
    });
    expect(await signerOf('u-seeded')).toBe('ca-local-issuing-1');
    // A second call finds nothing left to renew.
    const again = (
      await api('POST', '/api/v1/certificates/bulk-renew', { ca_id: teamCa.id }, operator)
    ).json() as BulkRenewResult;
    expect(again).toMatchObject({ total_matched: 0, total_enqueued: 0 });
  });

  it('records the CA in the bulk call audit criteria', async () => {
    let events: AuditEventDto[] = [];
    await eventually(async () => {
      const page = (
        await api('GET', '/api/v1/audit?per_page=100&action=certificate.bulk_renewed')
      ).json() as {
        data: AuditEventDto[];
      };
      events = page.data;
      return events.length >= 2;
    }, 'bulk renew audit records');
    expect(events.map((event) => (event.details as { criteria: unknown }).criteria)).toEqual([
      { ca_id: teamCa.id },
      { ca_id: teamCa.id },
    ]);
  });

  it('revokes the certificates under a CA in one call, and only those', async () => {
    const response = await api(
      'POST',
      '/api/v1/certificates/bulk-revoke',
      { ca_id: 'ca-local-issuing-1', reason: 'superseded' },
      operator,
    );
    expect(response.status).toBe(200);
    expect(response.json() as BulkRevokeResult).toMatchObject({ total_matched: 1, total_revoked: 1 });
    expect(await listIds('status=Revoked')).toEqual({ ids: ['u-seeded'], total: 1 });
    expect(await listIds(`ca_id=${nextCa.id}&status=Active`)).toEqual({
      ids: ['u-dept', 'u-team-1', 'u-team-2'],
      total: 3,
    });
  });
});
