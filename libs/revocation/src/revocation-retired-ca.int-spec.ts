import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRaw } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CaCertificateDto, IssuedCertificateDto } from '@certlane/contracts';
import { NatsBus } from '@certlane/platform';
import { createCsr, parseCrl, SoftwareKeyProvider } from '@certlane/pki';
import { eventually, startTestSystem, testNatsUrl, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

function raw(
  url: string,
  ca: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Buffer; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = httpsRaw(url, { ca, agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }),
      );
    });
    req.once('error', reject);
    req.end();
  });
}

const provider = new SoftwareKeyProvider();
const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g;

/**
 * ADR 0023 against the real issuance and revocation services, NATS and Postgres, checked with the
 * `openssl` binary: OCSP answers `unknown` for a well-formed serial the CA never issued, `good`
 * for one it issued (also before the issued event is consumed), `revoked` for a revoked one, for
 * a certificate of a retired intermediate CA too; each CA of the issuer has its own CRL.
 */
describe('revocation service: issued serials and retired CAs', () => {
  let system: TestSystem;
  let bus: NatsBus;
  let db: Client;
  let dir: string;
  let admin: string;
  const url = () => system.services.revocation.url;

  const openssl = (args: string[]) => {
    const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    return { status: result.status, output: `${result.stdout}\n${result.stderr}`, stdout: result.stdout };
  };

  async function issue(name: string): Promise<IssuedCertificateDto> {
    const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const csr = await createCsr({
      subject: [['CN', name]],
      signer,
      subjectAltNames: [{ type: 'dns', value: name }],
    });
    const issued = await bus.request('issuance.v1.issue-certificate', { csr_pem: csr.pem });
    writeFileSync(join(dir, `${name}.pem`), issued.certificate_pem);
    return issued;
  }

  /** `openssl ocsp` POSTing to the issuer's URL (what the certificates carry) about one serial. */
  function ocsp(issuerFile: string, chainFile: string, serial: string) {
    return openssl([
      'ocsp',
      '-issuer',
      issuerFile,
      '-serial',
      `0x${serial}`,
      '-url',
      `${url()}/ocsp/iss-local`,
      '-CAfile',
      chainFile,
    ]);
  }

  const issuedRows = async (serial: string) =>
    (await db.query('SELECT ca_id FROM revocation.issued_certificates WHERE serial_hex = $1', [serial])).rows;

  /** A serial in the local CA's format (17 octets, first bits 01) that was never issued. */
  const neverIssued = () => {
    const bytes = randomBytes(17);
    bytes[0] = (bytes[0] & 0x3f) | 0x40;
    return bytes.toString('hex');
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-retired-ca-'));
    system = await startTestSystem('revretired', ['auth', 'issuance', 'revocation', 'api-gateway']);
    admin = system.env.SERVICE_AUTH_SECRET!;
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'revocation-retired-ca-test',
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
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  let good: IssuedCertificateDto;
  let toRevoke: IssuedCertificateDto;

  it('answers good for an issued serial and unknown for a well-formed serial never issued', async () => {
    good = await issue('good.example.com');
    toRevoke = await issue('revoke.example.com');
    const [issuing] = good.chain_pem.match(PEM_BLOCK)!;
    writeFileSync(join(dir, 'old-issuing.pem'), issuing);
    writeFileSync(join(dir, 'old-chain.pem'), good.chain_pem);
    await eventually(
      async () => (await issuedRows(good.serial_hex)).length === 1,
      'the issued event consumed',
    );
    expect((await issuedRows(good.serial_hex))[0].ca_id).toBe('ca-local-issuing-1');

    const answer = ocsp('old-issuing.pem', 'old-chain.pem', good.serial_hex);
    expect(answer.output).toContain('Response verify OK');
    expect(answer.output).toMatch(new RegExp(`0x${good.serial_hex}: good`));

    const stranger = neverIssued();
    const unknown = ocsp('old-issuing.pem', 'old-chain.pem', stranger);
    expect(unknown.output).toContain('Response verify OK');
    expect(unknown.output).toMatch(new RegExp(`0x${stranger}: unknown`));
  });

  it('answers good before the issued event is consumed, by asking issuance, and keeps the answer', async () => {
    const fresh = await issue('fresh.example.com');
    await eventually(
      async () => (await issuedRows(fresh.serial_hex)).length === 1,
      'the issued event consumed',
    );
    // As if the event had not arrived yet: the revocation service knows nothing of the serial.
    await db.query('DELETE FROM revocation.issued_certificates WHERE serial_hex = $1', [fresh.serial_hex]);

    const answer = ocsp('old-issuing.pem', 'old-chain.pem', fresh.serial_hex);
    expect(answer.output).toContain('Response verify OK');
    expect(answer.output).toMatch(new RegExp(`0x${fresh.serial_hex}: good`));
    expect(await issuedRows(fresh.serial_hex)).toEqual([{ ca_id: 'ca-local-issuing-1' }]);
  });

  it('keeps answering for a retired CA: good, revoked and unknown, and publishes its CRL', async () => {
    const created = (await bus.request('issuance.v1.create-ca', {
      issuer_id: 'iss-local',
      common_name: 'Local Issuing CA 2',
      parent_id: 'ca-local-root',
      path_length: 0,
      issuing: true,
    })) as CaCertificateDto;
    await bus.request('issuance.v1.retire-ca', { id: 'ca-local-issuing-1' });
    await bus.request('issuance.v1.revoke-certificate', {
      issuer_id: 'iss-local',
      serial_hex: toRevoke.serial_hex,
      reason: 'keyCompromise',
    });
    const current = await issue('current.example.com');
    expect(current.ca_id).toBe(created.id);
    const [newIssuing] = current.chain_pem.match(PEM_BLOCK)!;
    writeFileSync(join(dir, 'new-issuing.pem'), newIssuing);
    writeFileSync(join(dir, 'new-chain.pem'), current.chain_pem);

    // The retired CA's certificates, through the URL they carry (routed by issuerKeyHash).
    await eventually(
      () => /: revoked/.test(ocsp('old-issuing.pem', 'old-chain.pem', toRevoke.serial_hex).output),
      'revoked for the retired CA',
    );
    const revoked = ocsp('old-issuing.pem', 'old-chain.pem', toRevoke.serial_hex);
    expect(revoked.output).toContain('Response verify OK');
    expect(revoked.output).toMatch(/Reason: keyCompromise/);
    const stillGood = ocsp('old-issuing.pem', 'old-chain.pem', good.serial_hex);
    expect(stillGood.output).toContain('Response verify OK');
    expect(stillGood.output).toMatch(new RegExp(`0x${good.serial_hex}: good`));
    const stranger = neverIssued();
    const unknown = ocsp('old-issuing.pem', 'old-chain.pem', stranger);
    expect(unknown.output).toContain('Response verify OK');
    expect(unknown.output).toMatch(new RegExp(`0x${stranger}: unknown`));
    // The certificate itself, as a relying party would check it.
    const byCert = openssl([
      'ocsp',
      '-issuer',
      'old-issuing.pem',
      '-cert',
      'good.example.com.pem',
      '-url',
      `${url()}/ocsp/iss-local`,
      '-CAfile',
      'old-chain.pem',
    ]);
    expect(byCert.output).toContain('Response verify OK');
    expect(byCert.output).toMatch(/good\.example\.com\.pem: good/);

    // The new CA answers for its own certificates, and unknown for one of the retired CA.
    await eventually(
      () => /: good/.test(ocsp('new-issuing.pem', 'new-chain.pem', current.serial_hex).output),
      'good under the new CA',
    );
    expect(ocsp('new-issuing.pem', 'new-chain.pem', current.serial_hex).output).toContain(
      'Response verify OK',
    );
    expect(ocsp('new-issuing.pem', 'new-chain.pem', good.serial_hex).output).toMatch(/: unknown/);

    // CRLs: the retired CA's at its own URL (and through the gateway), the issuer URL is the new CA's.
    let oldCrl = await raw(`${url()}/crl/iss-local/ca-local-issuing-1.crl`, system.ca);
    await eventually(async () => {
      oldCrl = await raw(`${url()}/crl/iss-local/ca-local-issuing-1.crl`, system.ca);
      return parseCrl(oldCrl.body).entries.some((e) => e.serialNumber === toRevoke.serial_hex);
    }, 'the revoked serial on the retired CA CRL');
    expect(oldCrl.headers['content-type']).toBe('application/pkix-crl');
    writeFileSync(join(dir, 'old.crl'), oldCrl.body);
    const oldText = openssl([
      'crl',
      '-inform',
      'DER',
      '-in',
      'old.crl',
      '-noout',
      '-text',
      '-CAfile',
      'old-chain.pem',
    ]);
    expect(oldText.output).toContain('verify OK');
    expect(oldText.stdout).toContain('Local CA Issuing CA 1');
    writeFileSync(join(dir, 'old-crl.pem'), openssl(['crl', '-inform', 'DER', '-in', 'old.crl']).stdout);
    const checked = openssl([
      'verify',
      '-crl_check',
      '-CRLfile',
      'old-crl.pem',
      '-CAfile',
      'old-chain.pem',
      'revoke.example.com.pem',
    ]);
    expect(checked.output).toMatch(/certificate revoked/);

    const issuerCrl = await raw(`${url()}/crl/iss-local.crl`, system.ca);
    writeFileSync(join(dir, 'new.crl'), issuerCrl.body);
    const newText = openssl([
      'crl',
      '-inform',
      'DER',
      '-in',
      'new.crl',
      '-noout',
      '-text',
      '-CAfile',
      'new-chain.pem',
    ]);
    expect(newText.output).toContain('verify OK');
    expect(newText.stdout).toContain('Local Issuing CA 2');
    expect(newText.stdout).toContain('No Revoked Certificates');

    const viaGateway = await raw(
      `${system.services['api-gateway'].url}/api/v1/crl/iss-local?ca_id=ca-local-issuing-1`,
      system.ca,
      { authorization: `Bearer ${admin}` },
    );
    expect(viaGateway.status).toBe(200);
    expect(parseCrl(viaGateway.body).entries.map((e) => e.serialNumber)).toEqual([toRevoke.serial_hex]);
    const unknownCa = await raw(
      `${system.services['api-gateway'].url}/api/v1/crl/iss-local?ca_id=ca-nope`,
      system.ca,
      { authorization: `Bearer ${admin}` },
    );
    expect(unknownCa.status).toBe(404);
    const badCa = await raw(
      `${system.services['api-gateway'].url}/api/v1/crl/iss-local?ca_id=NOPE`,
      system.ca,
      {
        authorization: `Bearer ${admin}`,
      },
    );
    expect(badCa.status).toBe(400);
  }, 60_000);
});
