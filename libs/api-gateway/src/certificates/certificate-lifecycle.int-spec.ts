import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRaw } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertificateDto, CertificateVersionDto, JobDto, PemExportDto } from '@certlane/contracts';
import { eventually, httpsRequest, HttpsResult, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

/** Binary-safe HTTPS (PKCS#12, DER CRL); bodies are not recorded for the text secret scan. */
function raw(
  url: string,
  ca: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: Buffer; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = httpsRaw(
      url,
      { method: options.method ?? 'GET', ca, agent: false, headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }),
        );
      },
    );
    req.once('error', reject);
    req.end(options.body);
  });
}

const splitPem = (pem: string) =>
  pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];

/**
 * The certificate lifecycle end to end in server key generation, through the gateway over HTTPS
 * with the real auth, issuance, revocation and gateway processes (ADR 0024): create issues from
 * the local CA at once, renew adds a second version, revoke reaches the revocation service's CRL
 * and OCSP, and the exports verify with the real openssl.
 */
describe('certificate lifecycle (server key generation)', () => {
  let system: TestSystem;
  let db: Client;
  let dir: string;
  let admin: string;
  const bodies: string[] = [];

  const api = async (method: string, path: string, body?: unknown): Promise<HttpsResult> => {
    const response = await httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${admin}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    bodies.push(response.text);
    return response;
  };
  const json = <T>(response: HttpsResult) => response.json() as T;
  const openssl = (args: string[]) => {
    const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    return { status: result.status, output: `${result.stdout}\n${result.stderr}`, stdout: result.stdout };
  };
  const revocationUrl = () => system.services.revocation.url;

  let certificate: CertificateDto;
  let first: CertificateVersionDto;
  let second: CertificateVersionDto;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-lifecycle-'));
    system = await startTestSystem('lifecycle', ['auth', 'issuance', 'revocation', 'api-gateway'], {
      SERVICE_KEYGEN_MODE: 'server',
    });
    admin = system.env.SERVICE_AUTH_SECRET!;
    db = new Client({ connectionString: system.database.url });
    await db.connect();
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('issues at create: the certificate is Active with version 1 from the local CA and its key sealed', async () => {
    const response = await api('POST', '/api/v1/certificates', {
      id: 'lc-web',
      common_name: 'lc.example.com',
      sans: ['www.lc.example.com', '10.0.0.7'],
      key_algorithm: 'ECDSA-P256',
    });
    expect(response.status).toBe(201);
    certificate = json<CertificateDto>(response);
    expect(certificate).toMatchObject({
      status: 'Active',
      current_version_id: expect.stringMatching(/^ver-/),
      expires_at: expect.any(String),
      last_renewed_at: null,
    });
    const versions = json<{ data: CertificateVersionDto[]; total: number }>(
      await api('GET', '/api/v1/certificates/lc-web/versions'),
    );
    expect(versions.total).toBe(1);
    first = versions.data[0];
    expect(first).toMatchObject({
      id: certificate.current_version_id,
      version: 1,
      key_algorithm: 'ECDSA-P256',
      key_size: 256,
      issuer_id: 'iss-local',
      csr_pem: expect.stringContaining('BEGIN CERTIFICATE REQUEST'),
    });
    writeFileSync(join(dir, 'v1.pem'), first.cert_pem);
    const text = openssl(['x509', '-in', 'v1.pem', '-noout', '-text']).stdout;
    expect(text).toContain('DNS:lc.example.com');
    expect(text).toContain('DNS:www.lc.example.com');
    expect(text).toContain('IP Address:10.0.0.7');

    const [job] = json<{ data: JobDto[] }>(await api('GET', '/api/v1/jobs?certificate_id=lc-web')).data;
    expect(job).toMatchObject({ type: 'Issuance', status: 'Completed', attempts: 1 });
    const issued = await db.query('SELECT purpose FROM issuance.issued_certificates WHERE serial_hex = $1', [
      first.serial_number,
    ]);
    expect(issued.rows).toEqual([{ purpose: 'leaf' }]);
    const keys = await db.query('SELECT version_id, private_key_sealed FROM issuance.certificate_keys');
    expect(keys.rows).toHaveLength(1);
    expect(keys.rows[0].version_id).toBe(first.id);
    expect(keys.rows[0].private_key_sealed).toMatch(/^v1\./);
  });

  it('generates the key the certificate asks for (RSA-2048)', async () => {
    const response = await api('POST', '/api/v1/certificates', {
      id: 'lc-rsa',
      common_name: 'rsa.example.com',
      key_algorithm: 'RSA-2048',
    });
    expect(response.status).toBe(201);
    const [version] = json<{ data: CertificateVersionDto[] }>(
      await api('GET', '/api/v1/certificates/lc-rsa/versions'),
    ).data;
    expect(version).toMatchObject({ key_algorithm: 'RSA-2048', key_size: 2048 });
  });

  it('renews at once: a second version becomes current, the first is kept', async () => {
    const response = await api('POST', '/api/v1/certificates/lc-web/renew');
    expect(response.status).toBe(202);
    const { job_id } = json<{ job_id: string }>(response);
    expect(json<JobDto>(await api('GET', `/api/v1/jobs/${job_id}`))).toMatchObject({
      type: 'Renewal',
      status: 'Completed',
    });
    const versions = json<{ data: CertificateVersionDto[]; total: number }>(
      await api('GET', '/api/v1/certificates/lc-web/versions'),
    );
    expect(versions.data.map((v) => v.version)).toEqual([2, 1]);
    second = versions.data[0];
    expect(second.serial_number).not.toBe(first.serial_number);
    expect(second.job_id).toBe(job_id);
    certificate = json<CertificateDto>(await api('GET', '/api/v1/certificates/lc-web'));
    expect(certificate).toMatchObject({
      status: 'Active',
      current_version_id: second.id,
      last_renewed_at: expect.any(String),
      expires_at: second.not_after,
    });
    const keys = await db.query('SELECT count(*)::int AS n FROM issuance.certificate_keys');
    expect(keys.rows[0].n).toBe(3); // lc-web v1 and v2, lc-rsa v1
  });

  it('issues at once when an awaiting renewal is approved', async () => {
    await db.query(`UPDATE issuance.certificates SET status = 'RenewalInProgress' WHERE id = 'lc-rsa'`);
    await db.query(
      `INSERT INTO issuance.jobs (id, type, status, certificate_id) VALUES ('job-approve-lc', 'Renewal', 'AwaitingApproval', 'lc-rsa')`,
    );
    const approved = await api('POST', '/api/v1/jobs/job-approve-lc/approve');
    expect(approved.status).toBe(200);
    expect(approved.json()).toMatchObject({ status: 'Completed' });
    const certificateNow = json<CertificateDto>(await api('GET', '/api/v1/certificates/lc-rsa'));
    expect(certificateNow.status).toBe('Active');
    expect(json<{ total: number }>(await api('GET', '/api/v1/certificates/lc-rsa/versions')).total).toBe(2);
  });

  it('exports PEM that openssl verifies against the local root', async () => {
    const pem = json<PemExportDto>(await api('GET', '/api/v1/certificates/lc-web/export/pem'));
    expect(pem.cert_pem).toBe(second.cert_pem);
    const chain = splitPem(pem.chain_pem);
    expect(chain.length).toBeGreaterThanOrEqual(2);
    writeFileSync(join(dir, 'leaf.pem'), pem.cert_pem);
    writeFileSync(join(dir, 'root.pem'), chain[chain.length - 1]);
    writeFileSync(join(dir, 'intermediates.pem'), chain.slice(0, -1).join(''));
    const verified = openssl([
      'verify',
      '-CAfile',
      'root.pem',
      '-untrusted',
      'intermediates.pem',
      'leaf.pem',
    ]);
    expect(verified.output).toContain('leaf.pem: OK');
    expect(verified.status).toBe(0);
    const file = await raw(
      `${system.services['api-gateway'].url}/api/v1/certificates/lc-web/export/pem?download=true`,
      system.ca,
      {
        headers: { authorization: `Bearer ${admin}` },
      },
    );
    writeFileSync(join(dir, 'full.pem'), file.body);
    expect(openssl(['verify', '-CAfile', 'root.pem', '-untrusted', 'full.pem', 'full.pem']).output).toContain(
      'OK',
    );
  });

  it.each([
    ['an empty password', { password: '' }],
    ['no password', {}],
    ['a password', { password: 'correct horse' }],
  ])('exports PKCS#12 with %s: openssl shows the certificates and no key', async (_label, body) => {
    const response = await raw(
      `${system.services['api-gateway'].url}/api/v1/certificates/lc-web/export/pkcs12`,
      system.ca,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      },
    );
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-pkcs12');
    writeFileSync(join(dir, 'export.p12'), response.body);
    const password = 'password' in body ? body.password : '';
    const info = openssl(['pkcs12', '-info', '-nokeys', '-in', 'export.p12', '-passin', `pass:${password}`]);
    expect(info.status).toBe(0);
    expect(splitPem(info.stdout)).toHaveLength(1 + splitPem(second.chain_pem).length);
    expect(info.stdout).toContain(second.cert_pem.trim());
    const everything = openssl([
      'pkcs12',
      '-info',
      '-nodes',
      '-in',
      'export.p12',
      '-passin',
      `pass:${password}`,
    ]);
    expect(everything.status).toBe(0);
    expect(everything.output).not.toMatch(/PRIVATE KEY|Shrouded Keybag|Key bag/i);
  });

  it('revokes every unexpired version at the local CA: the CRL and OCSP of the revocation service show it', async () => {
    const response = await api('POST', '/api/v1/certificates/lc-web/revoke', { reason: 'keyCompromise' });
    expect(response.status).toBe(200);
    expect(json<CertificateDto>(await api('GET', '/api/v1/certificates/lc-web'))).toMatchObject({
      status: 'Revoked',
      revocation_reason: 'keyCompromise',
    });
    const chain = splitPem(second.chain_pem);
    writeFileSync(join(dir, 'issuing.pem'), chain[0] ?? '');
    writeFileSync(join(dir, 'chain.pem'), second.chain_pem);
    const crlText = async () => {
      const crl = await raw(`${revocationUrl()}/crl/iss-local.crl`, system.ca);
      writeFileSync(join(dir, 'now.crl'), crl.body);
      return openssl(['crl', '-inform', 'DER', '-in', 'now.crl', '-noout', '-text', '-CAfile', 'chain.pem']);
    };
    await eventually(
      async () => {
        const text = (await crlText()).stdout.toUpperCase();
        return [first, second].every((v) => text.includes(v.serial_number.toUpperCase()));
      },
      'both serials in the CRL',
      10_000,
    );
    const crl = await crlText();
    expect(crl.output).toContain('verify OK');
    expect(crl.stdout).toMatch(
      new RegExp(
        `Serial Number: ${second.serial_number.toUpperCase()}[\\s\\S]*?CRL Reason Code:\\s+Key Compromise`,
      ),
    );
    const ocsp = openssl([
      'ocsp',
      '-issuer',
      'issuing.pem',
      '-serial',
      `0x${second.serial_number}`,
      '-url',
      `${revocationUrl()}/ocsp/iss-local`,
      '-CAfile',
      'chain.pem',
    ]);
    expect(ocsp.output).toContain('Response verify OK');
    expect(ocsp.output).toMatch(new RegExp(`0x${second.serial_number}: revoked`));
    expect(ocsp.output).toMatch(/Reason: keyCompromise/);
  });

  it('renews a revoked certificate into a fresh current version, clearing the revocation fields', async () => {
    const response = await api('POST', '/api/v1/certificates/lc-web/renew');
    expect(response.status).toBe(202);
    expect(json<CertificateDto>(await api('GET', '/api/v1/certificates/lc-web'))).toMatchObject({
      status: 'Active',
      revoked_at: null,
      revocation_reason: null,
    });
    const [third] = json<{ data: CertificateVersionDto[] }>(
      await api('GET', '/api/v1/certificates/lc-web/versions'),
    ).data;
    expect(third.version).toBe(3);
    const revoked = await db.query('SELECT serial_hex FROM issuance.revocations ORDER BY serial_hex');
    expect(revoked.rows.map((r) => r.serial_hex).sort()).toEqual(
      [first.serial_number, second.serial_number].sort(),
    );
  });

  it('never returns or stores a private key in the clear', async () => {
    for (const body of bodies) expect(body).not.toMatch(/PRIVATE KEY/);
    const { rows } = await db.query(
      `SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = 'issuance' AND data_type = 'text'`,
    );
    for (const { table_name, column_name } of rows) {
      const found = await db.query(
        `SELECT count(*)::int AS n FROM issuance.${table_name} WHERE ${column_name} LIKE '%PRIVATE KEY%'`,
      );
      expect({ table_name, column_name, n: found.rows[0].n }).toEqual({ table_name, column_name, n: 0 });
    }
  });
});
