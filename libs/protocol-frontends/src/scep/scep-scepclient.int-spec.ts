import { spawn, spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApprovalDto, Page, ScepProfileDto, ScepProfileList } from '@certlane/contracts';
import {
  eventually,
  httpsRequest,
  metricValue,
  scrapeMetrics,
  startTestSystem,
  TestSystem,
} from '@certlane/testing';
import { Client } from 'pg';

const CHALLENGE = 'scepclient-challenge-0123456';

/**
 * SCEP through the gateway of the split deployment to protocol-frontends and issuance, with
 * micromdm's `scepclient` (Debian package `scep`, unmodified) as the device: a PKCSReq with the
 * challenge password, a RenewalReq signed by the certificate it got, a wrong password answered
 * FAILURE badRequest. scepclient 2.1 encrypts with DES and signs with SHA-1, so its profile
 * enables legacy algorithms; it encrypts to every certificate of GetCACert unless told the RA's
 * fingerprint, and the local CA's key is not RSA, so it is given the RA fingerprint.
 */
describe('SCEP with micromdm scepclient', () => {
  let system: TestSystem;
  let gateway: string;
  let db: Client;
  let profile: ScepProfileDto;
  const root = mkdtempSync(join(tmpdir(), 'scepclient-'));

  const api = async (method: string, path: string, body?: unknown) =>
    httpsRequest(`${gateway}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  /** Runs scepclient in its own directory (key, CSR and certificate live there). */
  function scepclient(
    device: string,
    args: string[],
  ): { status: number | null; output: string; dir: string } {
    const dir = join(root, device);
    mkdirSync(dir, { recursive: true });
    const result = spawnSync(
      'scepclient',
      [
        '-server-url',
        `${gateway}/scep`,
        '-private-key',
        join(dir, 'key.pem'),
        '-certificate',
        join(dir, 'cert.pem'),
        '-cn',
        device,
        '-ca-fingerprint',
        profile.ra_certificate.fingerprint_sha256,
        ...args,
      ],
      { encoding: 'utf8', env: { ...process.env, SSL_CERT_FILE: join(root, 'ca.pem') }, timeout: 60_000 },
    );
    return { status: result.status, output: `${result.stdout}${result.stderr}`, dir };
  }

  /** scepclient run in the background (it polls a PENDING answer every 30 s until decided). */
  function scepclientAsync(
    device: string,
    args: string[],
    pathId: string,
    fingerprint: string,
  ): Promise<{ status: number | null; output: string; dir: string }> {
    const dir = join(root, device);
    mkdirSync(dir, { recursive: true });
    const child = spawn(
      'scepclient',
      ['-server-url', `${gateway}/scep/${pathId}`, '-private-key', join(dir, 'key.pem')]
        .concat(['-certificate', join(dir, 'cert.pem'), '-cn', device, '-ca-fingerprint', fingerprint])
        .concat(args),
      { env: { ...process.env, SSL_CERT_FILE: join(root, 'ca.pem') }, timeout: 90_000 },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    return new Promise((resolve) => child.on('close', (status) => resolve({ status, output, dir })));
  }

  beforeAll(async () => {
    system = await startTestSystem('scepcli', ['auth', 'issuance', 'protocol-frontends', 'api-gateway']);
    gateway = system.services['api-gateway'].url;
    writeFileSync(join(root, 'ca.pem'), system.ca);
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    expect((await api('POST', '/api/v1/owners', { id: 'owner-mdm', name: 'MDM devices' })).status).toBe(201);
    const created = await api('POST', '/api/v1/admin/scep/profiles', {
      path_id: 'default',
      challenge_password: CHALLENGE,
      legacy_algorithms: true,
      owner: 'owner-mdm',
    });
    expect(created.status).toBe(201);
    profile = created.json() as ScepProfileDto;
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  it('RFC 8894 3.3.1: scepclient enrolls with the challenge password and the certificate lands in the inventory as SCEP', async () => {
    const run = scepclient('device-one', ['-challenge', CHALLENGE]);
    expect([run.status, run.output]).toEqual([0, expect.stringContaining('SUCCESS')]);
    const issued = new X509Certificate(readFileSync(join(run.dir, 'cert.pem')));
    expect(issued.subject).toContain('CN=device-one');
    const ra = new X509Certificate(
      (await db.query('SELECT ra_certificate_pem FROM protocol_frontends.scep_profiles')).rows[0]
        .ra_certificate_pem,
    );
    expect(issued.issuer).toBe(ra.issuer);
    const inventory = await db.query(
      `SELECT source, owner_id FROM issuance.certificates WHERE common_name = 'device-one'`,
    );
    expect(inventory.rows).toEqual([{ source: 'SCEP', owner_id: 'owner-mdm' }]);
    const audit = await db.query(
      `SELECT envelope->'data'->>'action' AS action, envelope->'data'->>'outcome' AS outcome
       FROM protocol_frontends.outbox WHERE subject LIKE '%.audit.recorded'`,
    );
    expect(audit.rows).toContainEqual({ action: 'scep_pkcsreq', outcome: 'success' });
  });

  it('RFC 8894 3.3.1.2: scepclient renews with a RenewalReq signed by the certificate it holds', async () => {
    const first = new X509Certificate(readFileSync(join(root, 'device-one', 'cert.pem')));
    // With cert.pem present scepclient sends RenewalReq, signed by that certificate, no challenge.
    const run = scepclient('device-one', []);
    expect([run.status, run.output]).toEqual([0, expect.stringContaining('SUCCESS')]);
    const renewed = new X509Certificate(readFileSync(join(run.dir, 'cert.pem')));
    expect(renewed.serialNumber).not.toBe(first.serialNumber);
    expect(renewed.subject).toBe(first.subject);
    // The inventory holds one certificate for the device, the renewal its current (second) version.
    const inventory = await db.query(
      `SELECT v.version, v.serial_number FROM issuance.certificates c
         JOIN issuance.certificate_versions v ON v.id = c.current_version_id
        WHERE c.common_name = 'device-one'`,
    );
    expect(inventory.rows).toEqual([
      { version: 2, serial_number: renewed.serialNumber.toLowerCase().replace(/^0+(?=.)/, '') },
    ]);
  });

  it('RFC 8894 3.3.2: a wrong challenge password is a CertRep FAILURE with failInfo badRequest', () => {
    const run = scepclient('device-two', ['-challenge', 'not-the-challenge-password']);
    expect(run.status).not.toBe(0);
    expect(run.output).toContain('failInfo: badRequest');
    expect(existsSync(join(run.dir, 'cert.pem'))).toBe(false);
  });

  it('RFC 8894 3.3.2: on a profile requiring approval scepclient gets PENDING, keeps polling, and gets its certificate once an admin approves (or FAILURE once rejected)', async () => {
    const created = await api('POST', '/api/v1/admin/scep/profiles', {
      path_id: 'held',
      challenge_password: CHALLENGE,
      legacy_algorithms: true,
      approval_required: true,
      owner: 'owner-mdm',
    });
    expect(created.status).toBe(201);
    const held = created.json() as ScepProfileDto;
    const fingerprint = held.ra_certificate.fingerprint_sha256;
    const approvedRun = scepclientAsync('device-held', ['-challenge', CHALLENGE], 'held', fingerprint);
    const rejectedRun = scepclientAsync('device-refused', ['-challenge', CHALLENGE], 'held', fingerprint);
    const pendingApprovals = async () =>
      (
        (
          await api('GET', '/api/v1/approvals?status=pending&approval_kind=cert_issuance')
        ).json() as Page<ApprovalDto>
      ).data;
    const approvalOf = async (cn: string) =>
      (await pendingApprovals()).find((a) => a.enrollment?.subject.includes(`CN=${cn}`));
    await eventually(
      async () => Boolean((await approvalOf('device-held')) && (await approvalOf('device-refused'))),
      'both scepclient requests waiting for approval',
    );
    const [toApprove, toReject] = [(await approvalOf('device-held'))!, (await approvalOf('device-refused'))!];
    expect(toApprove.enrollment).toMatchObject({ source: 'SCEP', key_algorithm: 'RSA-2048' });
    expect((await api('POST', `/api/v1/approvals/${toApprove.id}/approve`)).status).toBe(200);
    expect((await api('POST', `/api/v1/approvals/${toReject.id}/reject`, { reason: 'unknown' })).status).toBe(
      200,
    );
    const [approved, rejected] = await Promise.all([approvedRun, rejectedRun]);
    expect([approved.status, approved.output]).toEqual([0, expect.stringContaining('PENDING')]);
    const issued = new X509Certificate(readFileSync(join(approved.dir, 'cert.pem')));
    expect(issued.subject).toContain('CN=device-held');
    expect(rejected.status).not.toBe(0);
    expect(rejected.output).toContain('failInfo: badRequest');
    expect(existsSync(join(rejected.dir, 'cert.pem'))).toBe(false);
  }, 100_000);

  it("spec 6.4: the profile counters tick per outcome, and protocol-frontends' /metrics counts them alike", async () => {
    const list = (await api('GET', '/api/v1/admin/scep/profiles')).json() as ScepProfileList;
    const profile = list.profiles.find((p) => p.path_id === 'default')!;
    expect(profile.counters).toMatchObject({
      scep_pkcsreq: 1,
      scep_renewalreq: 1,
      scep_auth_failed: 1,
    });
    const text = await scrapeMetrics(system.services['protocol-frontends'].url, system.ca);
    for (const outcome of ['scep_pkcsreq', 'scep_renewalreq', 'scep_auth_failed'])
      expect([
        outcome,
        metricValue(text, 'certlane_scep_outcomes_total', `profile="${profile.id}"`, `outcome="${outcome}"`),
      ]).toEqual([outcome, 1]);
  });
});
