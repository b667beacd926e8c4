import {
  embeddedPostgresBinDir,
  httpsRequest,
  PrivateServer,
  startPrivatePostgres,
  startTestSystem,
  TestSystem,
} from '@certlane/testing';
import { Client } from 'pg';

/**
 * Issue 14.2 on the Postgres the quick start embeds (18), not the shared test server (15):
 * PostgreSQL 18 reports a delete refused by ON DELETE RESTRICT as 23001 where older versions said
 * 23503 (ADR 0040). Deleting a renewal policy, owner or team that is still referenced is 409 with
 * its own code there too, never 500, and nothing is deleted.
 */
describe('deleting what is still referenced, on PostgreSQL 18', () => {
  let postgres: PrivateServer;
  let system: TestSystem;
  let certificateId: string;

  const api = (method: string, path: string, body?: unknown) =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const created = async <T>(path: string, body: unknown): Promise<T> => {
    const response = await api('POST', path, body);
    expect([response.status, response.text]).toEqual([201, expect.any(String)]);
    return response.json() as T;
  };
  const refusal = async (path: string) => {
    const response = await api('DELETE', path);
    return { status: response.status, body: response.json() as { code: string; details?: unknown } };
  };

  beforeAll(async () => {
    postgres = await startPrivatePostgres({ binDir: embeddedPostgresBinDir() });
    system = await startTestSystem(
      'referenced-deletes-pg18',
      ['auth', 'issuance', 'api-gateway'],
      // Server key generation: in agent mode a certificate needs an agent to be created at all.
      { SERVICE_KEYGEN_MODE: 'server' },
      { databaseServerUrl: postgres.url },
    );
    // A team only an owner references, a team only the certificate references, and an owner and
    // the default renewal policy the certificate references.
    await created('/api/v1/teams', { id: 'staffed', name: 'Staffed' });
    await created('/api/v1/teams', { id: 'assigned', name: 'Assigned' });
    await created('/api/v1/owners', { id: 'keeper', name: 'Keeper', team_id: 'staffed' });
    const certificate = await created<{ id: string }>('/api/v1/certificates', {
      common_name: 'still-referenced.example.com',
      renewal_policy_id: 'rp-default',
      owner_id: 'keeper',
      team_id: 'assigned',
    });
    certificateId = certificate.id;
  }, 90_000);

  afterAll(async () => {
    await system?.stop();
    await postgres?.destroy();
  }, 60_000);

  it('runs on PostgreSQL 18, which reports an ON DELETE RESTRICT refusal as 23001', async () => {
    const client = new Client({ connectionString: system.database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: string }>(
        "SELECT current_setting('server_version_num') AS version",
      );
      expect(Number(rows[0].version)).toBeGreaterThanOrEqual(180000);
      await expect(
        client.query("DELETE FROM issuance.renewal_policies WHERE id = 'rp-default'"),
      ).rejects.toMatchObject({
        code: '23001',
      });
    } finally {
      await client.end();
    }
  });

  it('refuses to delete the default renewal policy a certificate uses with 409 renewal_policy_in_use', async () => {
    expect(await refusal('/api/v1/renewal-policies/rp-default')).toMatchObject({
      status: 409,
      body: { code: 'renewal_policy_in_use' },
    });
    expect((await api('GET', '/api/v1/renewal-policies/rp-default')).status).toBe(200);
  });

  it('refuses to delete an owner a certificate references with 409 owner_in_use', async () => {
    expect(await refusal('/api/v1/owners/keeper')).toMatchObject({
      status: 409,
      body: { code: 'owner_in_use', details: { referenced_by: 'certificates' } },
    });
    expect((await api('GET', '/api/v1/owners/keeper')).status).toBe(200);
  });

  it('refuses to delete a team an owner references with 409 team_in_use', async () => {
    expect(await refusal('/api/v1/teams/staffed')).toMatchObject({
      status: 409,
      body: { code: 'team_in_use', details: { referenced_by: 'owners' } },
    });
    expect((await api('GET', '/api/v1/teams/staffed')).status).toBe(200);
  });

  it('refuses to delete a team a certificate references with 409 team_in_use', async () => {
    expect(await refusal('/api/v1/teams/assigned')).toMatchObject({
      status: 409,
      body: { code: 'team_in_use', details: { referenced_by: 'certificates' } },
    });
    expect((await api('GET', '/api/v1/teams/assigned')).status).toBe(200);
  });

  it('leaves the certificate and its references as they were', async () => {
    const response = await api('GET', `/api/v1/certificates/${certificateId}`);
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({
      renewal_policy_id: 'rp-default',
      owner_id: 'keeper',
      team_id: 'assigned',
    });
  });
});
