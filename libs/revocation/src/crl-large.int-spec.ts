import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRaw } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IssuedCertificateDto, RevocationList } from '@certlane/contracts';
import { NatsBus } from '@certlane/platform';
import { createCsr, parseCrl, SoftwareKeyProvider } from '@certlane/pki';
import { startTestSystem, testNatsUrl, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

function get(url: string, ca: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: Buffer; headers: Record<string, unknown> }>(
    (resolve, reject) => {
      const req = httpsRaw(url, { ca, agent: false, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }),
        );
      });
      req.once('error', reject);
      req.end();
    },
  );
}

/** Revocations of one CA, enough for a CRL far larger than NATS's default max_payload (1 MiB). */
const REVOCATIONS = 25_000;

/**
 * A CRL larger than one bus message (review H2): 25,000 revocations of the issuing CA, inserted in
 * the revocation schema, make a DER CRL of about 1.4 MB (1.9 MB as base64), which the gateway
 * must still serve over real NATS, on `/api/v1/crl/{issuer}` and on the relying-party path it
 * forwards, verified by `openssl crl`; the JSON list of 10,000 asked for answers too.
 */
describe('a CRL larger than a bus message, through the gateway', () => {
  let system: TestSystem;
  let bus: NatsBus;
  let db: Client;
  let dir: string;
  let admin: string;
  let certificate: IssuedCertificateDto;
  const gateway = () => system.services['api-gateway'].url;

  const openssl = (args: string[]) => {
    const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    return { status: result.status, output: `${result.stdout}\n${result.stderr}`, stdout: result.stdout };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-crl-large-'));
    system = await startTestSystem('crllarge', ['auth', 'issuance', 'revocation', 'api-gateway']);
    admin = system.env.SERVICE_AUTH_SECRET!;
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'crl-large-test',
      requestTimeoutMs: 10_000,
      namespace: system.env.SERVICE_NATS_NAMESPACE,
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    const { signer } = await new SoftwareKeyProvider().generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const csr = await createCsr({ subject: [['CN', 'large.example.com']], signer });
    certificate = await bus.request('issuance.v1.issue-certificate', { csr_pem: csr.pem });
    writeFileSync(join(dir, 'chain.pem'), certificate.chain_pem);
    // Serials in the local CA's form (17 octets, first bits 01), half with a reason code.
    await db.query(
      `INSERT INTO revocation.revocations
         (issuer_id, serial_hex, reason, revoked_at, event_id, ca_id)
       SELECT 'iss-local', '4' || substr(md5(i::text), 1, 32) || lpad(to_hex(i % 256), 2, '0'),
              CASE WHEN i % 2 = 0 THEN 'keyCompromise' ELSE 'unspecified' END,
              now() - make_interval(secs => i), gen_random_uuid(), $1
       FROM generate_series(1, $2::int) AS i`,
      [certificate.ca_id, REVOCATIONS],
    );
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await bus?.close();
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function verify(name: string, der: Buffer) {
    writeFileSync(join(dir, name), der);
    const checked = openssl(['crl', '-inform', 'DER', '-in', name, '-noout', '-CAfile', 'chain.pem']);
    expect(checked.output).toContain('verify OK');
    expect(checked.status).toBe(0);
  }

  it('serves GET /api/v1/crl/{issuer} of more than 1 MiB, verified by openssl', async () => {
    const response = await get(`${gateway()}/api/v1/crl/iss-local`, system.ca, {
      authorization: `Bearer ${admin}`,
    });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/pkix-crl');
    expect(response.body.length).toBeGreaterThan(1024 * 1024);
    verify('api.crl', response.body);
    const crl = parseCrl(response.body);
    expect(crl.entries).toHaveLength(REVOCATIONS);
  }, 60_000);

  it('serves the forwarded relying-party path /crl/{issuer}/{ca}.crl, the same CRL', async () => {
    const api = await get(`${gateway()}/api/v1/crl/iss-local`, system.ca, {
      authorization: `Bearer ${admin}`,
    });
    const response = await get(`${gateway()}/crl/iss-local/${certificate.ca_id}.crl`, system.ca);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/pkix-crl');
    expect(response.headers['cache-control']).toMatch(/max-age=\d+/);
    verify('forwarded.crl', response.body);
    expect(parseCrl(response.body).crlNumber).toBe(parseCrl(api.body).crlNumber);
    const issuerPath = await get(`${gateway()}/crl/iss-local.crl`, system.ca);
    expect(issuerPath.status).toBe(200);
    expect(issuerPath.body.equals(response.body)).toBe(true);
  }, 60_000);

  it('answers GET /api/v1/crl?limit=10000 and pages through every revocation', async () => {
    const seen = new Set<string>();
    let offset = 0;
    let pages = 0;
    for (;;) {
      const response = await get(
        `${gateway()}/api/v1/crl?issuer_id=iss-local&limit=10000&offset=${offset}`,
        system.ca,
        { authorization: `Bearer ${admin}` },
      );
      expect(response.status).toBe(200);
      const page = JSON.parse(response.body.toString('utf8')) as RevocationList;
      expect(page.total).toBe(REVOCATIONS);
      expect(page.entries.length).toBeLessThanOrEqual(10_000);
      for (const entry of page.entries) seen.add(entry.serial_number);
      pages++;
      if (page.entries.length === 0 || offset + page.entries.length >= page.total) break;
      expect(page.entries.length).toBeGreaterThan(0);
      offset += page.entries.length;
    }
    expect(seen.size).toBe(REVOCATIONS);
    expect(pages).toBeLessThan(20);
  }, 60_000);
});
