import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertificateDto, CertificateVersionDto, IssuerDto } from '@certlane/contracts';
import { parseCertificate, parseCertificates } from '@certlane/pki';
import {
  adminApiRequest,
  BindServer,
  createTlsFixture,
  endedJobOf,
  freePort,
  httpsRequest,
  startBind,
  startTestSystem,
  TestSystem,
  TlsFixture,
} from '@certlane/testing';

const ZONE = 'acme-issuer.test';
const EAB_KID = 'kid-certlane';
const EAB_KEY = randomBytes(32).toString('base64url');
const TSIG = { name: 'certlane-acme', algorithm: 'hmac-sha256', secret: randomBytes(32).toString('base64') };

interface Pebble {
  directoryUrl: string;
  /** Its management API (`/cert-status-by-serial/<serial>`). */
  managementUrl: string;
  stop(): void;
}

/** Debian's pebble (the ACME test CA) requiring EAB, validating dns-01 against `dnsServer`. */
async function startPebble(tls: TlsFixture, dnsServer: string): Promise<Pebble> {
  const dir = mkdtempSync(join(tmpdir(), 'certlane-acme-issuer-pebble-'));
  const port = await freePort();
  const managementPort = await freePort();
  writeFileSync(
    join(dir, 'pebble.json'),
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${port}`,
        managementListenAddress: `127.0.0.1:${managementPort}`,
        certificate: tls.certPath,
        privateKey: tls.keyPath,
        httpPort: await freePort(),
        tlsPort: await freePort(),
        ocspResponderURL: '',
        externalAccountBindingRequired: true,
        externalAccountMACKeys: { [EAB_KID]: EAB_KEY },
      },
    }),
  );
  const child: ChildProcess = spawn(
    'pebble',
    ['-config', join(dir, 'pebble.json'), '-dnsserver', dnsServer],
    {
      env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`pebble did not start:\n${output}`)), 20_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Listening on')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`pebble exited with ${code}:\n${output}`)));
  });
  return {
    directoryUrl: `https://127.0.0.1:${port}/dir`,
    managementUrl: `https://127.0.0.1:${managementPort}`,
    stop: () => {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The `acme` issuer end to end (ADR 0084): the real auth, issuance and gateway processes, Debian's
 * pebble as the CA (external account binding required), and BIND 9 taking the `_acme-challenge`
 * records as TSIG-signed RFC 2136 updates, which pebble's dns-01 validation reads back.
 */
describe('acme issuer through the API', () => {
  let bind: BindServer;
  let pebbleTls: TlsFixture;
  let pebble: Pebble;
  let system: TestSystem;

  const api = (method: string, path: string, body?: unknown) => adminApiRequest(system, method, path, body);
  const config = (extra: Record<string, unknown> = {}) => ({
    directory_url: pebble.directoryUrl,
    email: 'pki@example.com',
    eab_kid: EAB_KID,
    eab_hmac_key: EAB_KEY,
    challenge_type: 'dns-01',
    dns_update_server: bind.address,
    dns_zone: ZONE,
    tsig_name: TSIG.name,
    tsig_algorithm: TSIG.algorithm,
    tsig_secret: TSIG.secret,
    ...extra,
  });
  const createIssuer = async (name: string, extra: Record<string, unknown> = {}) => {
    const created = await api('POST', '/api/v1/issuers', { name, type: 'acme', config: config(extra) });
    expect(`${created.status} ${created.text}`).toMatch(/^201 /);
    return created.json() as IssuerDto;
  };
  const endedJob = (id: string) => endedJobOf(system, id);
  const lastError = async (id: string) => (await endedJob(id)).last_error;
  const txt = (name: string) =>
    execFileSync('dig', ['+short', '+norecurse', '-p', String(bind.port), '@127.0.0.1', name, 'TXT'], {
      encoding: 'utf8',
    }).trim();

  beforeAll(async () => {
    bind = await startBind(ZONE, await freePort(), [], { tsigKey: TSIG });
    pebbleTls = await createTlsFixture('pebble');
    pebble = await startPebble(pebbleTls, bind.address);
    system = await startTestSystem('acme-issuer', ['auth', 'issuance', 'api-gateway'], {
      SERVICE_KEYGEN_MODE: 'server',
      SERVICE_SERVER_CA_BUNDLE_PATH: pebbleTls.certPath,
    });
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    pebble?.stop();
    await bind?.stop();
  });

  it('registers its account with the external account binding, and shows the secrets redacted', async () => {
    const issuer = await createIssuer('Pebble');
    expect(issuer).toMatchObject({
      type: 'acme',
      config: { eab_hmac_key: '********', tsig_secret: '********', tsig_name: TSIG.name },
      capabilities: { crl: false, ocsp: false, revoke: true, issue: true },
    });
    const tested = await api('POST', `/api/v1/issuers/${issuer.id}/test`);
    expect(tested.json()).toMatchObject({
      status: 'ok',
      message: expect.stringMatching(/^account https:\/\/127\.0\.0\.1:\d+\/my-account\/\S+ at https:/),
    });
    expect(tested.text).not.toContain(EAB_KEY);
  });

  it('RFC 8555 7.3.4: without the external account binding the CA requires, the test fails naming it', async () => {
    const issuer = await createIssuer('Pebble without EAB', { eab_kid: '', eab_hmac_key: '' });
    const tested = (await api('POST', `/api/v1/issuers/${issuer.id}/test`)).json() as {
      status: string;
      message: string;
    };
    expect(tested.status).toBe('failed');
    expect(tested.message).toMatch(new RegExp(`^issuer ${issuer.id}: account: .*externalAccountBinding`));
  });

  it('issues a managed certificate through dns-01: the records written signed, validated, then removed', async () => {
    const issuer = await createIssuer('Pebble dns-01');
    const created = await api('POST', '/api/v1/certificates', {
      id: 'acme-issued',
      common_name: `www.${ZONE}`,
      sans: [`api.${ZONE}`],
      issuer_id: issuer.id,
    });
    expect(`${created.status} ${created.text}`).toMatch(/^201 /);
    expect((await endedJob('acme-issued')).status).toBe('Completed');
    expect(((await api('GET', '/api/v1/certificates/acme-issued')).json() as CertificateDto).status).toBe(
      'Active',
    );
    const [version] = (
      (await api('GET', '/api/v1/certificates/acme-issued/versions')).json() as {
        data: CertificateVersionDto[];
      }
    ).data;
    const leaf = parseCertificate(version.cert_pem as string);
    expect(leaf.issuer.text).toMatch(/Pebble Intermediate CA/);
    expect(leaf.decoded.subjectAltNames?.map((san) => san.value).sort()).toEqual([
      `api.${ZONE}`,
      `www.${ZONE}`,
    ]);
    expect(parseCertificates(version.chain_pem as string).length).toBeGreaterThan(0);
    // The challenge records are gone once the order is done.
    expect(txt(`_acme-challenge.www.${ZONE}`)).toBe('');
    expect(txt(`_acme-challenge.api.${ZONE}`)).toBe('');

    // RFC 8555 7.6: revoked at the CA by the account that ordered it, with the reason.
    const revoked = await api('POST', '/api/v1/certificates/acme-issued/revoke', { reason: 'keyCompromise' });
    expect(revoked.json()).toEqual({ status: 'revoked' });
    const status = await httpsRequest(`${pebble.managementUrl}/cert-status-by-serial/${leaf.serialNumber}`, {
      method: 'GET',
      ca: pebbleTls.certPem,
    });
    expect(status.json()).toMatchObject({ Status: 'Revoked', Reason: 1 });
  });

  it('fails the job naming why for a name outside the zone it updates, and for a TSIG key the server refuses', async () => {
    const issuer = await createIssuer('Pebble outside');
    await api('POST', '/api/v1/certificates', {
      id: 'acme-outside',
      common_name: 'www.example.org',
      issuer_id: issuer.id,
    });
    expect(await lastError('acme-outside')).toBe(
      `issuer ${issuer.id}: _acme-challenge.www.example.org is not in the zone ${ZONE} it updates`,
    );

    const forged = await createIssuer('Pebble forged TSIG', {
      tsig_secret: randomBytes(32).toString('base64'),
    });
    await api('POST', '/api/v1/certificates', {
      id: 'acme-forged',
      common_name: `f.${ZONE}`,
      issuer_id: forged.id,
    });
    expect(await lastError('acme-forged')).toBe(
      `issuer ${forged.id}: dns: the DNS server refused the update of ${ZONE}: NOTAUTH`,
    );
  });
});
