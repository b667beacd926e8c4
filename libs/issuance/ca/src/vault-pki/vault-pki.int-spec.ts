import { CertificateDto, CertificateVersionDto, IssuerDto, JobDto } from '@certlane/contracts';
import { parseCertificate, parseCertificates } from '@certlane/pki';
import { adminApiRequest, eventually, startTestSystem, TestSystem, VaultPkiServer } from '@certlane/testing';

const TOKEN = 's.vault-int-test-token-0123456789';

/**
 * The `vault_pki` issuer end to end (ADR 0083): the real auth, issuance, revocation and gateway
 * processes against a local server speaking Vault's PKI API over TLS (no Vault runs here); the
 * service trusts it through SERVICE_SERVER_CA_BUNDLE_PATH.
 */
describe('vault_pki issuer through the API', () => {
  let vault: VaultPkiServer;
  let system: TestSystem;
  let issuer: IssuerDto;

  const api = (method: string, path: string, body?: unknown) => adminApiRequest(system, method, path, body);
  const versionsOf = async (id: string) =>
    ((await api('GET', `/api/v1/certificates/${id}/versions`)).json() as { data: CertificateVersionDto[] })
      .data;
  const jobsOf = async (id: string) =>
    ((await api('GET', `/api/v1/jobs?certificate_id=${id}`)).json() as { data: JobDto[] }).data;

  beforeAll(async () => {
    vault = await VaultPkiServer.start({
      token: TOKEN,
      mount: 'pki_int',
      roles: { web: { allowedDomains: ['example.test'], maxTtlHours: 2160 } },
    });
    system = await startTestSystem('vault-pki', ['auth', 'issuance', 'revocation', 'api-gateway'], {
      SERVICE_KEYGEN_MODE: 'server',
      SERVICE_SERVER_CA_BUNDLE_PATH: vault.tlsCertPath,
    });
    const created = await api('POST', '/api/v1/issuers', {
      name: 'Vault',
      type: 'vault_pki',
      config: { address: vault.url, mount: 'pki_int', role: 'web', token: TOKEN },
    });
    expect(`${created.status} ${created.text}`).toMatch(/^201 /);
    expect(created.text).not.toContain(TOKEN);
    issuer = created.json() as IssuerDto;
  });

  afterAll(async () => {
    await system?.stop();
    await vault?.stop();
  });

  it('shows what it can do, and tests the token and the mount', async () => {
    expect(issuer).toMatchObject({
      type: 'vault_pki',
      config: { token: '********' },
      capabilities: { crl: false, ocsp: false, revoke: true, issue: true },
    });
    const tested = await api('POST', `/api/v1/issuers/${issuer.id}/test`);
    expect(tested.json()).toMatchObject({
      status: 'ok',
      message:
        'the token is valid (policies: default, pki-sign); mount pki_int has a chain of 2 certificate(s)',
    });
    // Vault publishes its own CRL and OCSP (spec 7: 501 here).
    expect((await api('GET', `/api/v1/crl/${issuer.id}`)).status).toBe(501);
  });

  it('issues, renews and revokes a managed certificate at Vault', async () => {
    const created = await api('POST', '/api/v1/certificates', {
      id: 'vault-web',
      common_name: 'www.example.test',
      issuer_id: issuer.id,
    });
    expect(`${created.status} ${created.text}`).toMatch(/^201 /);
    expect((created.json() as CertificateDto).status).toBe('Active');
    const [first] = await versionsOf('vault-web');
    const leaf = parseCertificate(first.cert_pem as string);
    expect(leaf.issuer.text).toBe('CN=Vault Test Intermediate');
    expect(parseCertificates(first.chain_pem as string).map((c) => c.subject.text)).toEqual([
      'CN=Vault Test Intermediate',
      'CN=Vault Test Root',
    ]);
    expect(vault.requests.find((r) => r.path === '/v1/pki_int/sign/web')?.headers['x-vault-token']).toBe(
      TOKEN,
    );

    const renewed = await api('POST', '/api/v1/certificates/vault-web/renew');
    expect(renewed.status).toBe(202);
    const { job_id } = renewed.json() as { job_id: string };
    await eventually(
      async () => ((await api('GET', `/api/v1/jobs/${job_id}`)).json() as JobDto).status === 'Completed',
      'the renewal job completed at Vault',
    );
    const versions = await versionsOf('vault-web');
    expect(versions).toHaveLength(2);

    const revoked = await api('POST', '/api/v1/certificates/vault-web/revoke', { reason: 'keyCompromise' });
    expect(revoked.json()).toEqual({ status: 'revoked' });
    const serials = versions.map((v) =>
      (parseCertificate(v.cert_pem as string).serialNumber.match(/../g) ?? []).join(':'),
    );
    expect([...vault.revoked.keys()].sort()).toEqual(serials.sort());
  });

  it("fails the job with Vault's reason for a name the role does not allow", async () => {
    const created = await api('POST', '/api/v1/certificates', {
      id: 'vault-refused',
      common_name: 'www.example.org',
      issuer_id: issuer.id,
    });
    expect((created.json() as CertificateDto).status).toBe('Failed');
    expect((await jobsOf('vault-refused'))[0].last_error).toBe(
      `issuer ${issuer.id} (Vault role web): Vault answered 400: subject alternate name www.example.org not allowed by this role`,
    );
  });
});
