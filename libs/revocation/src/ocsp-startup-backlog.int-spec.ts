import { randomBytes, randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertificateRevoked, EventEnvelope, IssuedCertificateDto } from '@certlane/contracts';
import { NatsBus, StoredEvent } from '@certlane/platform';
import { createCsr, SoftwareKeyProvider } from '@certlane/pki';
import { eventually, startServiceProcess, startTestSystem, TestSystem, testNatsUrl } from '@certlane/testing';
import { Client } from 'pg';

const SUBJECT = 'issuance.v1.certificate.revoked' as const;
/** Revocation events queued while the service is down: each costs its consumer a lookup and a commit. */
const QUEUED = 2000;

/**
 * H1 of the revocation review (ADR 0039, amendment of the sixteenth stop): a revocation service
 * that starts while the durable consumer of revocation events has a backlog never heard those
 * events on the fan-out. Until the consumer has recorded them, it must not sign `good` for a
 * serial the table does not list yet (it answered `good`, cached for half an hour, for a revoked
 * certificate queued behind a bulk revocation): `tryLater` instead, then the truth.
 */
describe('OCSP of a revocation service started while revocation events are queued (RFC 6960 2.2)', () => {
  let system: TestSystem;
  let bus: NatsBus;
  let db: Client;
  let dir: string;
  let target: IssuedCertificateDto;
  let control: IssuedCertificateDto;

  const openssl = (args: string[]) => {
    const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    return `${result.stdout}\n${result.stderr}`;
  };
  /** `openssl ocsp` POSTing (with a nonce: never answered from a cache) about `serial`; its verdict. */
  const ocsp = (serial: string) => {
    const output = openssl([
      'ocsp',
      '-issuer',
      'issuing.pem',
      '-serial',
      `0x${serial}`,
      '-url',
      `${system.services.revocation.url}/ocsp/iss-local`,
      '-CAfile',
      'chain.pem',
    ]);
    const verdict = new RegExp(`0x${serial}: (good|revoked|unknown)`).exec(output)?.[1];
    if (verdict) return verdict;
    if (/Responder Error: trylater \(3\)/.test(output)) return 'trylater';
    throw new Error(`unexpected openssl ocsp output: ${output}`);
  };
  const recorded = async () =>
    Number((await db.query('SELECT count(*) AS n FROM revocation.revocations')).rows[0].n);

  async function issue(name: string): Promise<IssuedCertificateDto> {
    const { signer } = await new SoftwareKeyProvider().generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const csr = await createCsr({
      subject: [['CN', name]],
      signer,
      subjectAltNames: [{ type: 'dns', value: name }],
    });
    return bus.request('issuance.v1.issue-certificate', { csr_pem: csr.pem });
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-ocsp-backlog-'));
    system = await startTestSystem('ocspbacklog', ['issuance', 'revocation']);
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'ocsp-startup-backlog-test',
      requestTimeoutMs: 10_000,
      namespace: system.env.SERVICE_NATS_NAMESPACE,
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    target = await issue('target.example.com');
    control = await issue('control.example.com');
    const [issuing] = target.chain_pem.match(
      /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g,
    )!;
    writeFileSync(join(dir, 'issuing.pem'), issuing);
    writeFileSync(join(dir, 'chain.pem'), target.chain_pem);
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await bus?.close();
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers tryLater (never good) about a serial whose revocation is queued behind others, and the truth once the consumer caught up', async () => {
    expect(ocsp(target.serial_hex)).toBe('good');
    await system.services.revocation.stop();

    // A bulk revocation's worth of events (serials the CA never issued), then the real one.
    const events: StoredEvent[] = Array.from({ length: QUEUED }, () => {
      const data: CertificateRevoked = {
        issuer_id: 'iss-local',
        serial_hex: `4${randomBytes(17).toString('hex').slice(1)}`,
        reason: 'superseded',
        revoked_at: new Date().toISOString(),
      };
      const envelope: EventEnvelope<CertificateRevoked> = {
        id: randomUUID(),
        subject: SUBJECT,
        occurred_at: data.revoked_at,
        data,
      };
      return { subject: SUBJECT, id: envelope.id, json: JSON.stringify(envelope) };
    });
    expect((await bus.publishMany(events)).published).toBe(QUEUED);
    const queued = (await bus.consumerProgress(SUBJECT, 'revocation-revocations')).published;
    await bus.request('issuance.v1.revoke-certificate', {
      issuer_id: 'iss-local',
      serial_hex: target.serial_hex,
      reason: 'keyCompromise',
    });
    await eventually(
      async () => (await bus.consumerProgress(SUBJECT, 'revocation-revocations')).published > queued,
      'the revocation published behind the queued ones',
    );

    system.services.revocation = await startServiceProcess('revocation', system.env, { ca: system.ca });
    const first = ocsp(target.serial_hex);
    const unrevoked = ocsp(control.serial_hex);
    // The window this test is about: the consumer had not reached the revocation yet.
    expect(await recorded()).toBeLessThan(QUEUED);
    expect(first).toMatch(/^(revoked|trylater)$/);
    expect(unrevoked).toBe('trylater');

    await eventually(
      async () => {
        const progress = await bus.consumerProgress(SUBJECT, 'revocation-revocations');
        return progress.acknowledged >= progress.published;
      },
      'the consumer has no backlog',
      120_000,
    );
    expect(await recorded()).toBe(QUEUED + 1);
    await eventually(() => ocsp(control.serial_hex) === 'good', 'good for the unrevoked certificate', 5000);
    expect(ocsp(target.serial_hex)).toBe('revoked');
  }, 240_000);
});
