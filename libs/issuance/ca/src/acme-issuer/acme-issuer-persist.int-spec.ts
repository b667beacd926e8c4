import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sendDnsUpdate } from '@certlane/connectors';
import { CertificateDto, CertificateVersionDto, IssuerDto } from '@certlane/contracts';
import { parseCertificate } from '@certlane/pki';
import {
  adminApiRequest,
  BindServer,
  endedJobOf,
  freePort,
  startBind,
  startServiceProcess,
  startTestSystem,
  TestSystem,
} from '@certlane/testing';

const ZONE = 'persist-issuer.test';
/** BIND serves all of `test`: the CA's CAA lookup climbs to it (RFC 8659 3). */
const BIND_ZONE = 'test';
const CA_NAME = 'ca.persist-issuer.test';

/**
 * The `acme` issuer with dns-persist-01 (draft-ietf-acme-dns-persist; ADR 0084) against Certlane's
 * own ACME server: one system is both the CA (its protocol-frontends profile `persist`, issuing
 * from its local CA) and the client (an `acme` issuer naming that directory), its issuance service
 * trusting the system's TLS certificate. The standing `_validation-persist` record is the
 * operator's, written once with the account URL the issuer test shows.
 */
describe('acme issuer with dns-persist-01 against the Certlane ACME server', () => {
  let bind: BindServer;
  let system: TestSystem;
  let work: string;
  let directoryUrl: string;
  const api = (method: string, path: string, body?: unknown) => adminApiRequest(system, method, path, body);
  const endedJob = (id: string) => endedJobOf(system, id);

  beforeAll(async () => {
    bind = await startBind(BIND_ZONE, await freePort());
    system = await startTestSystem(
      'acme-issuer-persist',
      ['auth', 'api-gateway', 'issuance', 'protocol-frontends'],
      {
        SERVICE_KEYGEN_MODE: 'server',
        SERVICE_ACME_DNS_RESOLVERS: bind.address,
      },
    );
    // The issuance service as the ACME client trusts the system's own TLS certificate.
    work = mkdtempSync(join(tmpdir(), 'certlane-acme-issuer-persist-'));
    const bundle = join(work, 'ca.pem');
    writeFileSync(bundle, system.ca);
    await system.services.issuance.stop();
    system.services.issuance = await startServiceProcess(
      'issuance',
      { ...system.env, SERVICE_SERVER_CA_BUNDLE_PATH: bundle },
      { ca: system.ca, readyTimeoutMs: 30_000 },
    );
    const profile = await api('POST', '/api/v1/admin/acme/profiles', {
      id: 'persist',
      dns_persist_01: true,
      caa_identities: [CA_NAME],
    });
    expect(`${profile.status} ${profile.text}`).toMatch(/^201 /);
    directoryUrl = `${system.services['protocol-frontends'].url}/acme/profile/persist/directory`;
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    await bind?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('issues once the standing record names the account the issuer test showed; without it the job fails naming the CA refusal', async () => {
    const created = await api('POST', '/api/v1/issuers', {
      name: 'Certlane ACME',
      type: 'acme',
      config: { directory_url: directoryUrl, email: 'pki@example.com', challenge_type: 'dns-persist-01' },
    });
    expect(`${created.status} ${created.text}`).toMatch(/^201 /);
    const issuer = created.json() as IssuerDto;
    const tested = (await api('POST', `/api/v1/issuers/${issuer.id}/test`)).json() as {
      status: string;
      message: string;
    };
    expect(tested.status).toBe('ok');
    const accountUrl = /^account (\S+) at /.exec(tested.message)?.[1] as string;
    expect(accountUrl).toMatch(/^https:\/\/.*\/acme\/profile\/persist\/account\//);

    // A standing record naming another account: the CA refuses the authorization.
    const record = (account: string) => `${CA_NAME}; accounturi=${account}`;
    const name = `_validation-persist.www.${ZONE}`;
    const dns = { host: '127.0.0.1', port: bind.port };
    await sendDnsUpdate(dns, BIND_ZONE, [
      { op: 'add', name, value: record(`${accountUrl}-someone-else`), ttl: 1 },
    ]);
    await api('POST', '/api/v1/certificates', {
      id: 'persist-elsewhere',
      common_name: `www.${ZONE}`,
      issuer_id: issuer.id,
    });
    const failed = await endedJob('persist-elsewhere');
    expect(failed.status).toBe('Failed');
    expect(failed.last_error).toMatch(new RegExp(`^issuer ${issuer.id}: validation: `));

    await sendDnsUpdate(dns, BIND_ZONE, [
      { op: 'delete-all', name },
      { op: 'add', name, value: record(accountUrl), ttl: 1 },
    ]);
    const issued = await api('POST', '/api/v1/certificates', {
      id: 'persist-www',
      common_name: `www.${ZONE}`,
      issuer_id: issuer.id,
    });
    expect(`${issued.status} ${issued.text}`).toMatch(/^201 /);
    const done = await endedJob('persist-www');
    expect(done.status).toBe('Completed');
    expect(((await api('GET', '/api/v1/certificates/persist-www')).json() as CertificateDto).status).toBe(
      'Active',
    );
    const [version] = (
      (await api('GET', '/api/v1/certificates/persist-www/versions')).json() as {
        data: CertificateVersionDto[];
      }
    ).data;
    const leaf = parseCertificate(version.cert_pem as string);
    expect(leaf.decoded.subjectAltNames).toEqual([{ type: 'dns', value: `www.${ZONE}` }]);
    // Signed by the system's local CA, through its ACME server.
    expect(leaf.issuer.text).toContain('Issuing CA');
  });
});
