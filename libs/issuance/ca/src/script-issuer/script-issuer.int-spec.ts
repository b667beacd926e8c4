import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertificateDto, CertificateVersionDto, IssuerDto, JobDto } from '@certlane/contracts';
import { parseCertificate } from '@certlane/pki';
import {
  adminApiRequest,
  eventually,
  OpensslCaScripts,
  startTestSystem,
  TestSystem,
  writeOpensslCaScripts,
} from '@certlane/testing';

/**
 * The `script` issuer end to end (ADR 0082): the real auth, issuance, revocation and gateway
 * processes, an issuer whose commands drive a real openssl CA, certificates issued (server key
 * generation), renewed and revoked through the API.
 */
describe('script issuer through the API', () => {
  let dir: string;
  let ca: OpensslCaScripts;
  let system: TestSystem;

  const api = (method: string, path: string, body?: unknown) => adminApiRequest(system, method, path, body);
  const createIssuer = async (name: string, config: Record<string, unknown>): Promise<IssuerDto> => {
    const created = await api('POST', '/api/v1/issuers', { name, type: 'script', config });
    expect(`${created.status} ${created.text}`).toMatch(/^201 /);
    return created.json() as IssuerDto;
  };
  const versionsOf = async (id: string) =>
    ((await api('GET', `/api/v1/certificates/${id}/versions`)).json() as { data: CertificateVersionDto[] })
      .data;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-script-issuer-it-'));
    ca = writeOpensslCaScripts(dir);
    system = await startTestSystem('script-issuer', ['auth', 'issuance', 'revocation', 'api-gateway'], {
      SERVICE_KEYGEN_MODE: 'server',
      SERVICE_ISSUER_SCRIPTS_DIR: ca.scriptsDir,
    });
  });

  afterAll(async () => {
    await system?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses (400 issuer_config_invalid) a command whose program is not a file in SERVICE_ISSUER_SCRIPTS_DIR', async () => {
    for (const command of ['/bin/sh', `${ca.scriptsDir}/../outside`, 'issue']) {
      const refused = await api('POST', '/api/v1/issuers', {
        name: 'Outside',
        type: 'script',
        config: { issue_command: command },
      });
      expect(refused.status).toBe(400);
      expect(refused.json()).toMatchObject({
        code: 'issuer_config_invalid',
        details: {
          fields: [{ field: 'issue_command', message: expect.stringContaining(`${ca.scriptsDir}/`) }],
        },
      });
    }
  });

  it('issues, renews and revokes through the commands; the issuer tests its commands and shows what it can do', async () => {
    const issuer = await createIssuer('Script CA', {
      issue_command: ca.command('issue'),
      revoke_command: ca.command('revoke'),
      timeout_seconds: 30,
    });
    expect(issuer.capabilities).toEqual({ crl: false, ocsp: false, revoke: true, issue: true });
    expect((await api('POST', `/api/v1/issuers/${issuer.id}/test`)).json()).toMatchObject({
      status: 'ok',
      message: 'issue_command and revoke_command are executable files',
    });

    const created = await api('POST', '/api/v1/certificates', {
      id: 'script-web',
      common_name: 'web.script.test',
      issuer_id: issuer.id,
    });
    expect(`${created.status} ${created.text}`).toMatch(/^201 /);
    const [first] = await versionsOf('script-web');
    const leaf = parseCertificate(first.cert_pem as string);
    expect(leaf.issuer.text).toBe('CN=Script CA,O=Script CA Test');
    expect(leaf.decoded.subjectAltNames).toEqual([{ type: 'dns', value: 'web.script.test' }]);
    expect(parseCertificate(first.chain_pem as string).fingerprintSha256).toBe(
      parseCertificate(ca.caPem).fingerprintSha256,
    );
    expect(readFileSync(join(ca.caDir, 'last-issue.env'), 'utf8')).toContain(
      `CERTLANE_ISSUER_ID=${issuer.id}\n`,
    );

    const renewed = await api('POST', '/api/v1/certificates/script-web/renew');
    expect(renewed.status).toBe(202);
    const { job_id } = renewed.json() as { job_id: string };
    await eventually(
      async () => ((await api('GET', `/api/v1/jobs/${job_id}`)).json() as JobDto).status === 'Completed',
      'the renewal job completed through the issue command',
    );
    const versions = await versionsOf('script-web');
    expect(versions).toHaveLength(2);
    const second = parseCertificate(versions.find((v) => v.id !== first.id)?.cert_pem as string);
    expect(second.serialNumber).not.toBe(leaf.serialNumber);
    expect(second.issuer.text).toBe('CN=Script CA,O=Script CA Test');

    const revoked = await api('POST', '/api/v1/certificates/script-web/revoke', { reason: 'keyCompromise' });
    expect(revoked.status).toBe(200);
    expect(revoked.json()).toEqual({ status: 'revoked' });
    // Each version's serial is revoked at the CA (a revoked certificate's older keys go with it).
    expect(readFileSync(join(ca.caDir, 'revoked.log'), 'utf8').split('\n').filter(Boolean).sort()).toEqual(
      [`${leaf.serialNumber} keyCompromise`, `${second.serialNumber} keyCompromise`].sort(),
    );
    expect(((await api('GET', '/api/v1/certificates/script-web')).json() as CertificateDto).status).toBe(
      'Revoked',
    );
    // The CA publishes its own revocation status: Certlane has none to serve for it (spec 7: 501).
    expect((await api('GET', `/api/v1/crl/${issuer.id}`)).status).toBe(501);
  });

  it("fails the issuance job with the CA's reason when the CA refuses or is down", async () => {
    const lastError = async (certificateId: string) => {
      const jobs = (await api('GET', `/api/v1/jobs?certificate_id=${certificateId}`)).json() as {
        data: JobDto[];
      };
      expect(jobs.data.map((job) => job.status)).toEqual(['Failed']);
      return jobs.data[0].last_error;
    };
    const refusing = await createIssuer('Refusing CA', { issue_command: ca.command('refuse') });
    const refused = await api('POST', '/api/v1/certificates', {
      id: 'script-refused',
      common_name: 'www.example.org',
      issuer_id: refusing.id,
    });
    expect(refused.status).toBe(201);
    expect((refused.json() as CertificateDto).status).toBe('Failed');
    expect(await lastError('script-refused')).toBe(
      `issuer ${refusing.id}: issue_command refused the request (exit 2): policy: names under example.org are not issued here`,
    );

    const down = await createIssuer('Down CA', { issue_command: ca.command('tempfail') });
    expect(
      (
        await api('POST', '/api/v1/certificates', {
          id: 'script-down',
          common_name: 'down.script.test',
          issuer_id: down.id,
        })
      ).status,
    ).toBe(201);
    expect(await lastError('script-down')).toBe(
      `issuer ${down.id}: issue_command reported the CA unavailable (exit 75): the upstream CA is in maintenance`,
    );
    expect(await versionsOf('script-down')).toEqual([]);
  });

  it('answers a certificate creation in time while a slow CA issues in the background', async () => {
    const slow = await createIssuer('Slow CA', { issue_command: ca.command('delayed'), timeout_seconds: 60 });
    const created = await api('POST', '/api/v1/certificates', {
      id: 'script-slow',
      common_name: 'slow.script.test',
      issuer_id: slow.id,
    });
    // Not a 504 after the bus timeout (5 s): the request answers with the job under way.
    expect(created.status).toBe(201);
    expect((created.json() as CertificateDto).status).toBe('Pending');
    await eventually(
      async () =>
        ((await api('GET', '/api/v1/jobs?certificate_id=script-slow')).json() as { data: JobDto[] }).data[0]
          ?.status === 'Completed',
      'the slow CA issued',
    );
    expect(await versionsOf('script-slow')).toHaveLength(1);
  });

  it('records a revocation the CA refused, or that no revoke command can tell it, here only, and says so', async () => {
    const failing = await createIssuer('Revoke Fails', {
      issue_command: ca.command('issue'),
      revoke_command: ca.command('revoke-fail'),
    });
    expect(
      (
        await api('POST', '/api/v1/certificates', {
          id: 'script-rf',
          common_name: 'rf.script.test',
          issuer_id: failing.id,
        })
      ).status,
    ).toBe(201);
    const [version] = await versionsOf('script-rf');
    const serial = parseCertificate(version.cert_pem as string).serialNumber;
    const revoked = await api('POST', '/api/v1/certificates/script-rf/revoke', { reason: 'superseded' });
    expect(revoked.json()).toEqual({
      status: 'revoked',
      message: `recorded here only, the CA was not told (issuer ${failing.id}: revoke_command refused the request (exit 3): serial ${serial} is unknown at the CA); revoke the certificate there too`,
    });
    expect(((await api('GET', '/api/v1/certificates/script-rf')).json() as CertificateDto).status).toBe(
      'Revoked',
    );

    const untold = await createIssuer('No Revoke', { issue_command: ca.command('issue') });
    expect(untold.capabilities.revoke).toBe(false);
    expect(
      (
        await api('POST', '/api/v1/certificates', {
          id: 'script-nr',
          common_name: 'nr.script.test',
          issuer_id: untold.id,
        })
      ).status,
    ).toBe(201);
    const bulk = await api('POST', '/api/v1/certificates/bulk-revoke', { certificate_ids: ['script-nr'] });
    expect(bulk.json()).toMatchObject({
      total_revoked: 1,
      total_recorded_only: 1,
      recorded_only: [
        {
          certificate_id: 'script-nr',
          message: `issuer ${untold.id} cannot revoke at its CA: recorded in Certlane only; revoke the certificate at that CA too`,
        },
      ],
    });
  });
});
