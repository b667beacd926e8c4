import { randomBytes } from 'node:crypto';
import { NatsBus } from '@certlane/platform';
import { startTestSystem, testNatsUrl, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

/**
 * Revoking a certificate cancels its open issuance and renewal jobs (ADR 0024 amendment): a
 * renewal requested before the revocation must not, once its agent sends the CSR, store a new
 * version and move the certificate from Revoked back to Active. One revoke and bulk revoke alike,
 * and archiving, whose late CSR would get a certificate signed for an archived record.
 */
describe('revoking a certificate with a renewal in progress', () => {
  let system: TestSystem;
  let bus: NatsBus;
  let db: Client;
  const context = () => ({ request_id: `req-${randomBytes(4).toString('hex')}`, actor_id: 'tester' });

  /** An Active certificate of the local CA run by an agent, so a renewal waits for its CSR. */
  async function seed(): Promise<string> {
    const id = `rvk-${randomBytes(4).toString('hex')}`;
    await db.query(
      `INSERT INTO issuance.certificates (id, name, common_name, status, issuer_id, renewal_policy_id,
         agent_id, not_before, expires_at)
       VALUES ($1, $1, $1 || '.example.com', 'Active', 'iss-local', 'rp-default', 'agt-edge',
         now() - interval '300 days', now() + interval '60 days')`,
      [id],
    );
    return id;
  }

  const jobsOf = async (id: string) =>
    (
      await db.query<{ status: string; last_error: string | null }>(
        `SELECT status, last_error FROM issuance.jobs WHERE certificate_id = $1`,
        [id],
      )
    ).rows;

  const statusOf = async (id: string) =>
    (await db.query<{ status: string }>(`SELECT status FROM issuance.certificates WHERE id = $1`, [id]))
      .rows[0].status;

  beforeAll(async () => {
    system = await startTestSystem('revokejobs', ['issuance']);
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'revoke-jobs-test',
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

  it('one revoke cancels the open renewal and the certificate stays Revoked', async () => {
    const id = await seed();
    await bus.request('issuance.v1.renew-certificate', { id }, { context: context() });
    expect(await jobsOf(id)).toEqual([expect.objectContaining({ status: 'AwaitingCSR' })]);
    await bus.request(
      'issuance.v1.revoke-managed-certificate',
      { id, reason: 'keyCompromise' },
      { context: context() },
    );
    expect(await statusOf(id)).toBe('Revoked');
    expect(await jobsOf(id)).toEqual([{ status: 'Cancelled', last_error: 'certificate revoked' }]);
  });

  it('bulk revoke cancels the open renewals of the certificates it revokes', async () => {
    const id = await seed();
    await bus.request('issuance.v1.renew-certificate', { id }, { context: context() });
    const result = await bus.request(
      'issuance.v1.bulk-revoke-certificates',
      { certificate_ids: [id], reason: 'keyCompromise' },
      { context: context() },
    );
    expect(result.total_revoked).toBe(1);
    expect(await statusOf(id)).toBe('Revoked');
    expect(await jobsOf(id)).toEqual([{ status: 'Cancelled', last_error: 'certificate revoked' }]);
  });

  it('archiving cancels the open renewal too: no late CSR signs a certificate for an archived record', async () => {
    const id = await seed();
    await bus.request('issuance.v1.renew-certificate', { id }, { context: context() });
    const archived = await bus.request('issuance.v1.archive-certificate', { id }, { context: context() });
    expect(archived.status).toBe('Archived');
    expect(await statusOf(id)).toBe('Archived');
    expect(await jobsOf(id)).toEqual([{ status: 'Cancelled', last_error: 'certificate archived' }]);
  });
});
