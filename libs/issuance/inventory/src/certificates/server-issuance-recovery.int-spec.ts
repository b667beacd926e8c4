import { randomBytes } from 'node:crypto';
import { CertificateDto } from '@certlane/contracts';
import { eventually, httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

/**
 * Server key generation recovers from a failure mid-issuance without leaving anything behind.
 *
 * One unit: server key generation records an issued serial in the transaction that stores its version and
 * completes the job (ADR 0045): when that transaction fails after the CA signed, no serial is left
 * recorded without a version (one the revocation service would answer `good` for, whose key is
 * lost and that no API can revoke). The failure is injected with a trigger that refuses the
 * version of certificates named `refused-*`.
 *
 * Prompt retry: a job left Running by a lost worker is queued again after SERVICE_JOB_SERVER_LEASE
 * (3 s here) and issued, while attempts remain (ADR 0045).
 */
describe('server issuance recovery', () => {
  let system: TestSystem;
  let db: Client;

  const call = (method: string, path: string, body?: unknown) =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  /** Leaf serials the local CA recorded that no certificate version carries. */
  const orphanSerials = async (): Promise<string[]> =>
    (
      await db.query<{ serial_hex: string }>(
        `SELECT i.serial_hex FROM issuance.issued_certificates i
          LEFT JOIN issuance.certificate_versions v ON v.serial_number = i.serial_hex
         WHERE i.purpose = 'leaf' AND v.id IS NULL`,
      )
    ).rows.map((row) => row.serial_hex);

  beforeAll(async () => {
    system = await startTestSystem('srvrecover', ['auth', 'issuance', 'api-gateway'], {
      SERVICE_KEYGEN_MODE: 'server',
      SERVICE_JOB_SERVER_LEASE: '3s',
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    await db.query(`
      CREATE FUNCTION issuance.refuse_test_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM issuance.certificates c
                    WHERE c.id = NEW.certificate_id AND c.common_name LIKE 'refused-%') THEN
          RAISE EXCEPTION 'injected failure: the version is refused';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_test_version BEFORE INSERT ON issuance.certificate_versions
        FOR EACH ROW EXECUTE FUNCTION issuance.refuse_test_version();`);
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  it('records the serial of an issued certificate together with its version', async () => {
    const created = await call('POST', '/api/v1/certificates', {
      common_name: `kept-${randomBytes(4).toString('hex')}.example.com`,
    });
    expect(created.status).toBe(201);
    const certificate = created.json() as CertificateDto & { current_version?: { serial_number: string } };
    expect(certificate.status).toBe('Active');
    const { rows } = await db.query(
      `SELECT 1 FROM issuance.issued_certificates i
         JOIN issuance.certificate_versions v ON v.serial_number = i.serial_hex
        WHERE v.certificate_id = $1`,
      [certificate.id],
    );
    expect(rows).toHaveLength(1);
    expect(await orphanSerials()).toEqual([]);
  }, 60_000);

  it('leaves no issued serial without a version when storing the version fails after signing', async () => {
    const created = await call('POST', '/api/v1/certificates', {
      common_name: `refused-${randomBytes(4).toString('hex')}.example.com`,
    });
    expect(created.status).toBe(201);
    const id = (created.json() as CertificateDto).id;
    await eventually(
      async () =>
        ((await call('GET', `/api/v1/certificates/${id}`)).json() as CertificateDto).status === 'Failed',
      'the certificate whose version was refused to be Failed',
    );
    const job = await db.query<{ status: string; last_error: string }>(
      `SELECT status, last_error FROM issuance.jobs WHERE certificate_id = $1`,
      [id],
    );
    expect(job.rows).toEqual([{ status: 'Failed', last_error: expect.stringMatching(/injected failure/) }]);
    expect(await orphanSerials()).toEqual([]);
    // Nothing was announced to the revocation service either: no issued event in the outbox (but
    // those of the CA certificates, recorded under their parents, ADR 0075).
    const events = await db.query(
      `SELECT 1 FROM issuance.outbox WHERE subject = 'issuance.v1.certificate.issued'
         AND envelope->'data'->>'serial_hex' NOT IN (SELECT serial_number FROM issuance.certificate_versions)
         AND envelope->'data'->>'serial_hex' NOT IN
             (SELECT serial_hex FROM issuance.issued_certificates WHERE purpose = 'ca')`,
    );
    expect(events.rows).toEqual([]);
  }, 60_000);

  /**
   * An issued certificate whose Issuance job is put back to Running, as a worker lost mid-run
   * leaves it, after `attempts` starts (null: all the job's attempts used).
   */
  async function lostRun(attempts: number | null): Promise<{ certificate: string; job: string }> {
    const created = await call('POST', '/api/v1/certificates', {
      common_name: `lost-${randomBytes(4).toString('hex')}.example.com`,
    });
    expect(created.status).toBe(201);
    const certificate = (created.json() as CertificateDto).id;
    await db.query(`UPDATE issuance.certificates SET status = 'Pending' WHERE id = $1`, [certificate]);
    const { rows } = await db.query<{ id: string }>(
      `UPDATE issuance.jobs SET status = 'Running', completed_at = NULL, version_id = NULL,
         attempts = COALESCE($2, max_attempts),
         updated_at = now() - interval '1 hour'
       WHERE certificate_id = $1 RETURNING id`,
      [certificate, attempts],
    );
    expect(rows).toHaveLength(1);
    return { certificate, job: rows[0].id };
  }

  const jobOf = async (id: string) =>
    (
      await db.query<{
        status: string;
        attempts: number;
        max_attempts: number;
        last_error: string;
        version_id: string | null;
      }>('SELECT status, attempts, max_attempts, last_error, version_id FROM issuance.jobs WHERE id = $1', [
        id,
      ])
    ).rows[0];

  it('queues a server-run job whose worker was lost again after the lease, and issues it', async () => {
    const lost = await lostRun(1);
    await eventually(
      async () => (await jobOf(lost.job)).status === 'Completed',
      'the lost job to be re-queued and completed (lease 3 s)',
    );
    const job = await jobOf(lost.job);
    expect(job.attempts).toBe(2);
    expect(job.last_error).toMatch(
      new RegExp(`worker holding the job was lost .*queued again \\(attempt 1 of ${job.max_attempts}\\)`),
    );
    const versions = await db.query(
      'SELECT id FROM issuance.certificate_versions WHERE certificate_id = $1',
      [lost.certificate],
    );
    expect(versions.rows).toHaveLength(2);
    expect(versions.rows.map((row: { id: string }) => row.id)).toContain(job.version_id);
    expect(
      ((await call('GET', `/api/v1/certificates/${lost.certificate}`)).json() as CertificateDto).status,
    ).toBe('Active');
    expect(await orphanSerials()).toEqual([]);
    await eventually(async () => {
      const audit = (await call('GET', `/api/v1/audit?resource_id=${lost.job}`)).json() as {
        data: { action: string; details: { status?: string } }[];
      };
      return audit.data.some(
        (event) => event.action === 'job.timed_out' && event.details.status === 'Pending',
      );
    }, 'the job.timed_out audit record naming the re-queue');
  }, 60_000);

  it('fails a lost server-run job that has no attempt left', async () => {
    const lost = await lostRun(null);
    await eventually(async () => (await jobOf(lost.job)).status === 'Failed', 'the exhausted job to fail');
    expect(
      ((await call('GET', `/api/v1/certificates/${lost.certificate}`)).json() as CertificateDto).status,
    ).toBe('Failed');
  }, 60_000);
});
