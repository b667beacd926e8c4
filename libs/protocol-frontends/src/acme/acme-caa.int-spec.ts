import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BindServer, freePort, startBind, startTestSystem, TestSystem } from '@certlane/testing';
import { exchange } from './testing/acme-test-client';

const run = promisify(execFile);

/**
 * CAA (RFC 8659, RFC 8657) against a real BIND 9 serving the zone `test` with CAA records, and
 * lego (Debian, unmodified) solving dns-01 through RFC 2136 updates to the same server.
 */
describe('ACME CAA checking against a real DNS server', () => {
  let system: TestSystem;
  let bind: BindServer;
  let directory: string;
  let work: string;
  let caFile: string;

  beforeAll(async () => {
    bind = await startBind('test', await freePort(), [
      'ok IN CAA 0 issue "certlane.test"',
      'other IN CAA 0 issue "other-ca.example"',
      'http-only IN CAA 0 issue "certlane.test; validationmethods=http-01"',
      'someone-else IN CAA 0 issue "certlane.test; accounturi=https://ca.example/acme/account/someoneelse00"',
      'critical IN CAA 128 tbs "unknown"',
      'critical IN CAA 0 issue "certlane.test"',
    ]);
    system = await startTestSystem('acmecaa', ['issuance', 'protocol-frontends'], {
      SERVICE_ACME_DNS_RESOLVERS: bind.address,
      SERVICE_ACME_CAA_IDENTITIES: 'certlane.test',
    });
    directory = `${system.services['protocol-frontends'].url}/acme/directory`;
    work = mkdtempSync(join(tmpdir(), 'certlane-acme-caa-'));
    caFile = join(work, 'ca.pem');
    writeFileSync(caFile, system.ca);
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    await bind?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** lego run for one name with dns-01 through BIND; the error output when it fails. */
  async function lego(domain: string): Promise<{ pem?: string; failure?: string }> {
    const path = join(work, `lego-${domain.replace('*', 'star')}`);
    try {
      await run(
        'lego',
        [
          '--server',
          directory,
          '--path',
          path,
          '--email',
          'ops@example.com',
          '--accept-tos',
          '--domains',
          domain,
          '--dns',
          'rfc2136',
          '--dns.resolvers',
          bind.address,
          '--dns.disable-cp',
          'run',
        ],
        {
          env: { ...process.env, LEGO_CA_CERTIFICATES: caFile, RFC2136_NAMESERVER: bind.address },
          timeout: 90_000,
        },
      );
    } catch (error) {
      return { failure: `${(error as { stdout?: string }).stdout}${(error as { stderr?: string }).stderr}` };
    }
    return { pem: readFileSync(join(path, 'certificates', `${domain.replace('*', '_')}.crt`), 'utf8') };
  }

  it('RFC 8659: the directory names the CA identities in meta.caaIdentities', async () => {
    expect((await exchange('GET', directory, system.ca)).json.meta.caaIdentities).toEqual(['certlane.test']);
  });

  it('RFC 8659 3: issues where the relevant CAA set (here of the parent) names this CA', async () => {
    const { pem, failure } = await lego('*.ok.test');
    expect(failure).toBeUndefined();
    expect(new X509Certificate(pem!).subjectAltName).toBe('DNS:*.ok.test');
  }, 120_000);

  it('RFC 8659 4.2: CAA naming another CA forbids issuance (caa)', async () => {
    expect((await lego('www.other.test')).failure).toContain('urn:ietf:params:acme:error:caa');
  }, 120_000);

  it('RFC 8657 4: validationmethods without dns-01 forbids a dns-01 validated issuance', async () => {
    expect((await lego('http-only.test')).failure).toContain('urn:ietf:params:acme:error:caa');
  }, 120_000);

  it('RFC 8657 3: accounturi naming another account forbids issuance', async () => {
    expect((await lego('someone-else.test')).failure).toContain('urn:ietf:params:acme:error:caa');
  }, 120_000);

  it('RFC 8659 4.1: an unknown critical property forbids issuance', async () => {
    expect((await lego('critical.test')).failure).toContain('urn:ietf:params:acme:error:caa');
  }, 120_000);
});
