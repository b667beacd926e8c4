import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRaw } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IssuedCertificateDto } from '@certlane/contracts';
import { NatsBus } from '@certlane/platform';
import { createCsr, encodeOcspGetPath, parseCrl, SoftwareKeyProvider } from '@certlane/pki';
import { eventually, httpsRequest, startTestSystem, testNatsUrl, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

function get(url: string, ca: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpsRaw(url, { ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    req.once('error', reject);
    req.end();
  });
}

/**
 * The revocation service's timers, running against real issuance, NATS and Postgres with short
 * lead times (SERVICE_* variables): a CRL is rebuilt before its nextUpdate, a cached OCSP response
 * is re-signed before it expires and a delegated responder certificate is renewed before it
 * expires, each without any request in between; the test polls for the change with a deadline.
 */
describe('revocation service: timer sweeps', () => {
  let system: TestSystem;
  let bus: NatsBus;
  let db: Client;
  let dir: string;
  let certificate: IssuedCertificateDto;
  const url = () => system.services.revocation.url;

  const openssl = (args: string[]) => {
    const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    return { status: result.status, output: `${result.stdout}\n${result.stderr}`, stdout: result.stdout };
  };

  /** An RFC 5019 GET about the certificate, checked by openssl; returns its printed times. */
  async function ocspGet(name: string) {
    const response = await get(
      `${url()}/ocsp/iss-local/${encodeOcspGetPath(readFileSync(join(dir, 'req.der')))}`,
      system.ca,
    );
    expect(response.status).toBe(200);
    writeFileSync(join(dir, `${name}.resp`), response.body);
    const checked = openssl([
      'ocsp',
      '-respin',
      `${name}.resp`,
      '-issuer',
      'issuing.pem',
      '-serial',
      `0x${certificate.serial_hex}`,
      '-CAfile',
      'chain.pem',
      '-resp_text',
    ]);
    expect(checked.output).toContain('Response verify OK');
    expect(checked.output).toMatch(/: good/);
    const producedAt = new Date(/Produced At: (.+ GMT)/.exec(checked.stdout)![1]);
    const nextUpdate = new Date(/Next Update: (.+ GMT)/.exec(checked.stdout)![1]);
    return { producedAt, nextUpdate };
  }

  const sweepSignatures = async () => {
    const metrics = await httpsRequest(`${url()}/metrics`, { ca: system.ca });
    const line = /certlane_ocsp_responses_signed_total\{[^}]*trigger="sweep"[^}]*\} (\d+)/.exec(metrics.text);
    return line ? Number(line[1]) : 0;
  };

  const crlRow = async () =>
    (
      await db.query(
        "SELECT crl_number::int AS n, this_update, next_update FROM revocation.crl_state WHERE ca_id <> ''",
      )
    ).rows[0] as { n: number; this_update: Date; next_update: Date } | undefined;

  const responderRow = async () =>
    (await db.query('SELECT certificate_pem, created_at FROM revocation.ocsp_responders')).rows[0] as
      { certificate_pem: string; created_at: Date } | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-sweeps-'));
    system = await startTestSystem('revsweeps', ['issuance', 'revocation'], {
      // CRL valid 24 h, rebuilt 2 s after it is built; OCSP valid 1 h, re-signed 2 s after signing;
      // responder certificates (30 days) renewed after 5 s (the floor); sweeps every second.
      SERVICE_CRL_SWEEP_INTERVAL: '1s',
      SERVICE_CRL_REFRESH_BEFORE: '23h59m58s',
      SERVICE_OCSP_SWEEP_INTERVAL: '1s',
      SERVICE_OCSP_REFRESH_BEFORE: '59m58s',
      SERVICE_OCSP_RESPONDER_RENEW_BEFORE: '719h59m55s',
    });
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'revocation-sweeps-test',
      requestTimeoutMs: 10_000,
      namespace: system.env.SERVICE_NATS_NAMESPACE,
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    const { signer } = await new SoftwareKeyProvider().generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const csr = await createCsr({ subject: [['CN', 'sweep.example.com']], signer });
    certificate = await bus.request('issuance.v1.issue-certificate', { csr_pem: csr.pem });
    const [issuing] = certificate.chain_pem.match(
      /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g,
    )!;
    writeFileSync(join(dir, 'issuing.pem'), issuing);
    writeFileSync(join(dir, 'chain.pem'), certificate.chain_pem);
    openssl([
      'ocsp',
      '-issuer',
      'issuing.pem',
      '-serial',
      `0x${certificate.serial_hex}`,
      '-no_nonce',
      '-reqout',
      'req.der',
    ]);
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await bus?.close();
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('rebuilds the CRL before its nextUpdate without being asked', async () => {
    const first = await get(`${url()}/crl/iss-local.crl`, system.ca);
    expect(first.status).toBe(200);
    const before = parseCrl(first.body);
    const stored = (await crlRow())!;

    await eventually(async () => ((await crlRow())?.n ?? 0) > stored.n, 'a CRL rebuilt by the sweep', 15_000);
    const after = (await crlRow())!;
    expect(after.this_update.getTime()).toBeGreaterThan(stored.this_update.getTime());
    expect(after.this_update.getTime()).toBeLessThan(before.nextUpdate!.getTime());
    expect(after.next_update.getTime() - after.this_update.getTime()).toBe(24 * 3600_000);

    const served = await get(`${url()}/crl/iss-local.crl`, system.ca);
    writeFileSync(join(dir, 'after.crl'), served.body);
    const text = openssl([
      'crl',
      '-inform',
      'DER',
      '-in',
      'after.crl',
      '-noout',
      '-text',
      '-CAfile',
      'chain.pem',
    ]);
    expect(text.output).toContain('verify OK');
    expect(Number(/CRL Number:\s+(\d+)/.exec(text.stdout)![1])).toBeGreaterThan(Number(before.crlNumber));
  }, 30_000);

  it('re-signs a cached OCSP response before it expires without being asked', async () => {
    const first = await ocspGet('first');
    const signedBySweep = await sweepSignatures();

    await eventually(
      async () => (await sweepSignatures()) > signedBySweep,
      'a response re-signed by the sweep',
      15_000,
    );
    const later = await ocspGet('later');
    expect(later.producedAt.getTime()).toBeGreaterThan(first.producedAt.getTime());
    expect(later.nextUpdate.getTime()).toBeGreaterThan(first.nextUpdate.getTime());
  }, 30_000);

  it('renews the delegated responder certificate before it expires without being asked', async () => {
    await eventually(async () => (await responderRow()) !== undefined, 'a responder');
    const before = (await responderRow())!;
    await eventually(
      async () => (await responderRow())!.certificate_pem !== before.certificate_pem,
      'a responder certificate renewed by the sweep',
      15_000,
    );
    const after = (await responderRow())!;
    expect(after.created_at.getTime()).toBeGreaterThan(before.created_at.getTime());
    // Responses are signed by the new responder, which chains to the issuing CA.
    const answer = await ocspGet('renewed');
    expect(answer.producedAt.getTime()).toBeGreaterThanOrEqual(
      Math.floor(after.created_at.getTime() / 1000) * 1000,
    );
  }, 30_000);
});
