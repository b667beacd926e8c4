import { CertlaneError, ErrorCode, IssuedAndRecordedDto } from '@certlane/contracts';
import { createCsr, SoftwareKeyProvider } from '@certlane/pki';
import { NatsBus } from '@certlane/platform';
import { eventually, startTestSystem, testNatsUrl, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

const provider = new SoftwareKeyProvider();

async function csrFor(name: string): Promise<string> {
  const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
  return (
    await createCsr({ subject: [['CN', name]], signer, subjectAltNames: [{ type: 'dns', value: name }] })
  ).pem;
}

/**
 * `issuance.v1.issue-and-record` (ADR 0066) against a real issuance process: concurrent requests
 * are recorded by group commit, each answered only after the transaction holding its certificate
 * has committed; a batch with a bad request is written again one by one, so only the bad one fails.
 */
describe('issue and record (group commit)', () => {
  let system: TestSystem;
  let bus: NatsBus;
  let db: Client;
  let locker: Client;

  beforeAll(async () => {
    system = await startTestSystem('issuerecord', ['issuance']);
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'issuerecord-test',
      requestTimeoutMs: 30_000,
      namespace: system.env.SERVICE_NATS_NAMESPACE,
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    locker = new Client({ connectionString: system.database.url });
    await locker.connect();
  }, 60_000);

  afterAll(async () => {
    await locker?.end();
    await db?.end();
    await bus?.close();
    await system?.stop();
  });

  const enroll = async (name: string, owner?: string) =>
    bus.request('issuance.v1.issue-and-record', {
      csr_pem: await csrFor(name),
      source: 'EST',
      ...(owner ? { owner_id: owner } : {}),
      tags: { est_profile: 'test', name },
    });

  const issuedSerials = async () =>
    (
      await db.query<{ serial_hex: string }>(
        `SELECT serial_hex FROM issuance.issued_certificates WHERE purpose = 'leaf'`,
      )
    ).rows.map((row) => row.serial_hex);

  /** The backend of the issuance service waiting for the test's lock on issued_certificates. */
  const blockedWriter = async (): Promise<number | undefined> =>
    (
      await db.query<{ pid: number }>(
        `SELECT l.pid FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
          WHERE NOT l.granted AND c.relname = 'issued_certificates'`,
      )
    ).rows[0]?.pid;

  it('records an enrollment certificate with its final status, current version, audit and events', async () => {
    const answer = await enroll('one.example.com');
    const { rows } = await db.query(
      `SELECT c.source, c.status, c.common_name, c.sans, c.tags, c.current_version_id, c.expires_at,
              v.version, v.serial_number, v.cert_pem
         FROM issuance.certificates c JOIN issuance.certificate_versions v ON v.id = c.current_version_id
        WHERE c.id = $1`,
      [answer.certificate_id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      source: 'EST',
      status: 'Active',
      common_name: 'one.example.com',
      sans: ['one.example.com'],
      tags: { est_profile: 'test', name: 'one.example.com' },
      current_version_id: answer.version_id,
      version: 1,
      serial_number: answer.serial_hex,
      cert_pem: answer.certificate_pem,
    });
    expect(await issuedSerials()).toContain(answer.serial_hex);
    const events = await db.query<{ subject: string; action: string | null }>(
      `SELECT subject, envelope->'data'->>'action' AS action FROM issuance.outbox
        WHERE envelope->'data'->>'certificate_id' = $1 OR envelope->'data'->>'id' = $1
           OR envelope->'data'->>'resource_id' IN ($1, $2) OR envelope->'data'->>'serial_hex' = $2
        ORDER BY seq`,
      [answer.certificate_id, answer.serial_hex],
    );
    expect(events.rows.map((row) => row.action ?? row.subject)).toEqual([
      'certificate.issued',
      'issuance.v1.certificate.issued',
      'issuance.v1.certificate.status-changed',
      'issuance.v1.certificate.created',
      'certificate.created',
    ]);
    // The statement-level count triggers saw the row once, with its final status.
    const counts = await db.query<{ dimension: string; value: string; total: string }>(
      `SELECT dimension, value, sum(delta)::text AS total FROM issuance.certificate_count_deltas
        WHERE dimension = 'status' GROUP BY dimension, value HAVING sum(delta) <> 0`,
    );
    expect(counts.rows).toEqual([{ dimension: 'status', value: 'Active', total: '1' }]);
  });

  it('records a renewal (version_of) as the next version of the certificate it renews, keeping its fields', async () => {
    const first = await bus.request('issuance.v1.issue-and-record', {
      csr_pem: await csrFor('renew.example.com'),
      source: 'ACME',
      tags: { acme_profile: 'default', first: 'yes' },
    });
    const renewal = await bus.request('issuance.v1.issue-and-record', {
      csr_pem: await csrFor('renew.example.com'),
      source: 'ACME',
      version_of: first.certificate_id,
      tags: { acme_profile: 'default' },
    });
    expect(renewal.certificate_id).toBe(first.certificate_id);
    expect(renewal.version_id).not.toBe(first.version_id);
    const { rows } = await db.query(
      `SELECT c.source, c.tags, c.current_version_id, v.version, v.serial_number
         FROM issuance.certificates c JOIN issuance.certificate_versions v ON v.id = c.current_version_id
        WHERE c.id = $1`,
      [first.certificate_id],
    );
    expect(rows).toEqual([
      {
        source: 'ACME',
        tags: { acme_profile: 'default', first: 'yes' },
        current_version_id: renewal.version_id,
        version: 2,
        serial_number: renewal.serial_hex,
      },
    ]);
    expect(await issuedSerials()).toEqual(expect.arrayContaining([first.serial_hex, renewal.serial_hex]));
  });

  it('revoke-certificate of a current version revokes its certificate in the inventory; of an older version, not', async () => {
    const first = await bus.request('issuance.v1.issue-and-record', {
      csr_pem: await csrFor('revoked.example.com'),
      source: 'ACME',
    });
    const renewal = await bus.request('issuance.v1.issue-and-record', {
      csr_pem: await csrFor('revoked.example.com'),
      source: 'ACME',
      version_of: first.certificate_id,
    });
    const inventory = async () =>
      (
        await db.query(
          `SELECT status, revocation_reason, revoked_at IS NOT NULL AS revoked FROM issuance.certificates WHERE id = $1`,
          [first.certificate_id],
        )
      ).rows[0];
    const revoke = (serial: string, reason: 'superseded' | 'keyCompromise') =>
      bus.request('issuance.v1.revoke-certificate', { issuer_id: 'iss-local', serial_hex: serial, reason });

    // The replaced version's serial: revoked at the issuer, the certificate (its renewal) untouched.
    expect(await revoke(first.serial_hex, 'superseded')).toMatchObject({ already_revoked: false });
    expect(await inventory()).toEqual({ status: 'Active', revocation_reason: null, revoked: false });

    expect(await revoke(renewal.serial_hex, 'keyCompromise')).toMatchObject({ already_revoked: false });
    expect(await inventory()).toEqual({
      status: 'Revoked',
      revocation_reason: 'keyCompromise',
      revoked: true,
    });
    const audits = await db.query(
      `SELECT envelope->'data'->'details'->>'from' AS "from", envelope->'data'->'details'->>'serial_number' AS serial
         FROM issuance.outbox
        WHERE envelope->'data'->>'action' = 'certificate.revoked' AND envelope->'data'->>'resource_id' = $1`,
      [first.certificate_id],
    );
    expect(audits.rows).toEqual([{ from: 'Active', serial: renewal.serial_hex }]);

    // Again: already revoked, the first reason kept, nothing recorded twice.
    expect(await revoke(renewal.serial_hex, 'superseded')).toMatchObject({
      reason: 'keyCompromise',
      already_revoked: true,
    });
    expect(await inventory()).toEqual({
      status: 'Revoked',
      revocation_reason: 'keyCompromise',
      revoked: true,
    });
  });

  it('records an EST or SCEP renewal (renews_certificate_pem) as the next version of the certificate renewed, when it is current', async () => {
    const first = await enroll('reenrolled.example.com');
    const renewal = await bus.request('issuance.v1.issue-and-record', {
      csr_pem: await csrFor('reenrolled.example.com'),
      source: 'EST',
      renews_certificate_pem: first.certificate_pem,
      tags: { est_profile: 'test' },
    });
    expect(renewal.certificate_id).toBe(first.certificate_id);
    // Renewing the replaced version again is no renewal of the inventory certificate: a new one.
    const stale = await bus.request('issuance.v1.issue-and-record', {
      csr_pem: await csrFor('reenrolled.example.com'),
      source: 'EST',
      renews_certificate_pem: first.certificate_pem,
      tags: { est_profile: 'test' },
    });
    expect(stale.certificate_id).not.toBe(first.certificate_id);
    const { rows } = await db.query(
      `SELECT c.id, v.version FROM issuance.certificates c
         JOIN issuance.certificate_versions v ON v.id = c.current_version_id WHERE c.id IN ($1, $2) ORDER BY v.version`,
      [first.certificate_id, stale.certificate_id],
    );
    expect(rows).toEqual([
      { id: stale.certificate_id, version: 1 },
      { id: first.certificate_id, version: 2 },
    ]);
    // Not a certificate: refused before anything is signed.
    const before = (await issuedSerials()).length;
    await expect(
      bus.request('issuance.v1.issue-and-record', {
        csr_pem: await csrFor('reenrolled.example.com'),
        source: 'EST',
        renews_certificate_pem: 'not a certificate',
      }),
    ).rejects.toMatchObject({ code: 'validation_failed', details: { field: 'renews_certificate_pem' } });
    expect((await issuedSerials()).length).toBe(before);
  });

  it('records a renewal of a certificate no longer in the inventory as a new certificate', async () => {
    const answer = await bus.request('issuance.v1.issue-and-record', {
      csr_pem: await csrFor('orphan.example.com'),
      source: 'ACME',
      version_of: 'mc-does-not-exist',
    });
    expect(answer.certificate_id).not.toBe('mc-does-not-exist');
    const { rows } = await db.query(
      `SELECT c.common_name, v.version, v.serial_number FROM issuance.certificates c
         JOIN issuance.certificate_versions v ON v.id = c.current_version_id WHERE c.id = $1`,
      [answer.certificate_id],
    );
    expect(rows).toEqual([
      { common_name: 'orphan.example.com', version: 1, serial_number: answer.serial_hex },
    ]);
    expect((await issuedSerials()).filter((serial) => serial === answer.serial_hex)).toHaveLength(1);
  });

  it('answers nothing before its commit, and a batch with a bad request fails only that request', async () => {
    const before = new Set(await issuedSerials());
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE issuance.issued_certificates IN EXCLUSIVE MODE');
    const settled: string[] = [];
    const track = (name: string, call: Promise<IssuedAndRecordedDto>) =>
      call.then(
        (answer) => {
          settled.push(name);
          return { name, answer } as const;
        },
        (error: unknown) => {
          settled.push(name);
          return { name, error } as const;
        },
      );
    // The first request's transaction waits on the lock; the others queue behind it.
    const first = track('crashed', enroll('crashed.example.com'));
    await eventually(async () => (await blockedWriter()) !== undefined, 'the writer waiting on the lock');
    const names = Array.from({ length: 11 }, (_, i) => `batch-${i}.example.com`);
    const bad = new Set([names[2], names[5], names[9]]);
    const rest = names.map((name) => track(name, enroll(name, bad.has(name) ? 'no-such-owner' : undefined)));
    expect(settled).toEqual([]);
    // The writer dies mid-transaction (as in a crash): its caller gets an error, never a certificate.
    const pid = (await blockedWriter()) as number;
    await db.query('SELECT pg_terminate_backend($1)', [pid]);
    await locker.query('ROLLBACK');

    const crashed = await first;
    expect('error' in crashed).toBe(true);
    const outcomes = await Promise.all(rest);
    for (const outcome of outcomes) {
      if (bad.has(outcome.name)) {
        expect('error' in outcome && outcome.error).toBeInstanceOf(CertlaneError);
        expect('error' in outcome && (outcome.error as CertlaneError).code).toBe(ErrorCode.ReferenceInvalid);
        continue;
      }
      if (!('answer' in outcome)) throw new Error(`${outcome.name} failed: ${String(outcome.error)}`);
      const { rows } = await db.query(
        `SELECT c.common_name, c.source, v.serial_number FROM issuance.certificates c
           JOIN issuance.certificate_versions v ON v.id = c.current_version_id WHERE c.id = $1`,
        [outcome.answer.certificate_id],
      );
      expect(rows).toEqual([
        { common_name: outcome.name, source: 'EST', serial_number: outcome.answer.serial_hex },
      ]);
    }
    // Exactly the answered certificates' serials were recorded: none for the crashed or bad ones.
    const added = (await issuedSerials()).filter((serial) => !before.has(serial)).sort();
    const answered = outcomes.flatMap((o) => ('answer' in o ? [o.answer.serial_hex] : [])).sort();
    expect(answered).toHaveLength(8);
    expect(added).toEqual(answered);
  });
});
