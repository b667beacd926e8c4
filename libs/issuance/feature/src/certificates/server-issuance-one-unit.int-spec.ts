import { randomBytes } from 'node:crypto';
import { CertificateDto } from '@certlane/contracts';
import { eventually, httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

/**
 * Server key generation records an issued serial in the transaction that stores its version and
 * completes the job (ADR 0045): when that transaction fails after the CA signed, no serial is left
 * recorded without a version (one the revocation service would answer `good` for, whose key is
 * lost and that no API can revoke). The failure is injected with a trigger that refuses the
 * version of certificates named `refused-*`.
 */
describe('server issuance as one unit', () => {
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
    system = await startTestSystem('oneunit', ['auth', 'issuance', 'api-gateway'], {
      SERVICE_KEYGEN_MODE: 'server',
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
    // Nothing was announced to the revocation service either: no issued event in the outbox.
    const events = await db.query(
      `SELECT 1 FROM issuance.outbox WHERE subject = 'issuance.v1.certificate.issued'
         AND envelope->'data'->>'serial_hex' NOT IN (SELECT serial_number FROM issuance.certificate_versions)`,
    );
    expect(events.rows).toEqual([]);
  }, 60_000);
});
