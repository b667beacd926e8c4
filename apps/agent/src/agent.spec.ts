import { execFileSync } from 'node:child_process';
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  AgentCertificateDto,
  AgentDiscoveryAccepted,
  AgentDiscoveryFinding,
  AgentCsrAccepted,
  AgentKeyDto,
  AgentReportStatus,
  AgentVerificationReport,
  AgentWorkItem,
  AgentWorkResponse,
  RecipientPublicJwk,
} from '@certlane/contracts';
import type {
  DeploymentHost,
  DeploymentMaterial,
  DeploymentResult,
  TargetConnector,
} from '@certlane/connectors';
import { parseCsr, wrapPrivateKey } from '@certlane/pki';
import { CertlaneAgent, MAX_DEPLOYMENT_RUNS, subjectAltNamesFor } from './agent';
import { DeploymentJournal } from './deployment-journal';
import { UnsentReports } from './final-reports';
import { KeyStore } from './key-store';
import type { Logger } from './logger';
import { ApiError, ApiNetworkError, DiscoveryWalk } from '@certlane/api-client';
import { AgentGoneError, AgentServerClient, HostFacts } from './server-client';
import type { TargetConfigSource, TargetSpec } from './targets';
import { connectorRegistry } from './targets';

const quiet: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** A server that issues each CSR with an openssl CA and records everything the agent sent. */
class FakeServer implements AgentServerClient {
  sent: string[] = [];
  reports: {
    job: string;
    status: AgentReportStatus;
    error?: string;
    verification?: AgentVerificationReport;
  }[] = [];
  heartbeats: HostFacts[] = [];
  queue: AgentWorkItem[] = [];
  versions = new Map<string, AgentCertificateDto>();
  fail: Partial<Record<'work' | 'heartbeat' | 'csr', Error>> = {};
  /** The answer to a CSR of the certificate, instead of issuing it. */
  refuseCsrOf = new Map<string, Error>();
  /** Issue the CSR, then lose the 202 on the way back. */
  loseCsrAnswer = false;
  /** Errors thrown, one per attempt, at reports of `<job>:<status>` before one goes through. */
  failReports = new Map<string, Error[]>();

  discoveries: AgentDiscoveryFinding[][] = [];

  constructor(private readonly dir: string) {}

  walks: DiscoveryWalk[] = [];

  async pushDiscovery(
    findings: AgentDiscoveryFinding[],
    walk?: DiscoveryWalk,
  ): Promise<AgentDiscoveryAccepted> {
    this.sent.push(JSON.stringify({ findings }));
    this.discoveries.push(findings);
    if (walk) this.walks.push(walk);
    return {
      received: findings.length,
      certificates: findings.length,
      new_certificates: findings.length,
      gone_certificates: 0,
    };
  }

  async heartbeat(facts: HostFacts) {
    this.sent.push(JSON.stringify(facts));
    if (this.fail.heartbeat) throw this.fail.heartbeat;
    this.heartbeats.push(facts);
  }
  async work(): Promise<AgentWorkResponse> {
    if (this.fail.work) throw this.fail.work;
    const jobs = this.queue;
    this.queue = [];
    return { jobs, count: jobs.length };
  }
  async submitCsr(certificateId: string, csrPem: string): Promise<AgentCsrAccepted> {
    this.sent.push(JSON.stringify({ csr_pem: csrPem, certificate_id: certificateId }));
    if (this.fail.csr) throw this.fail.csr;
    const refusal = this.refuseCsrOf.get(certificateId);
    if (refusal) throw refusal;
    const versionId = this.sign(certificateId, csrPem, `ver-${this.versions.size + 1}`);
    if (this.loseCsrAnswer) throw new ApiNetworkError('POST /csr: socket hang up');
    const dto = this.versions.get(versionId)!;
    return {
      status: 'accepted',
      job_id: 'j',
      job_status: 'Completed',
      certificate_id: certificateId,
      version_id: versionId,
      serial_number: dto.serial_number,
      fingerprint_sha256: dto.fingerprint_sha256,
      not_after: dto.not_after,
    };
  }
  /** Issues the CSR with the openssl CA as version `versionId`. */
  private sign(certificateId: string, csrPem: string, versionId: string): string {
    writeFileSync(join(this.dir, 'req.csr'), csrPem);
    execFileSync(
      'openssl',
      [
        'x509',
        '-req',
        '-in',
        'req.csr',
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-days',
        '30',
        '-copy_extensions',
        'copy',
        '-out',
        'leaf.crt',
      ],
      { cwd: this.dir, stdio: 'ignore' },
    );
    const leaf = readFileSync(join(this.dir, 'leaf.crt'), 'utf8');
    const x509 = new X509Certificate(leaf);
    const dto: AgentCertificateDto = {
      certificate_id: certificateId,
      version_id: versionId,
      leaf_pem: leaf,
      chain_pem: readFileSync(join(this.dir, 'ca.crt'), 'utf8'),
      certificate_pem: leaf + readFileSync(join(this.dir, 'ca.crt'), 'utf8'),
      serial_number: x509.serialNumber,
      fingerprint_sha256: x509.fingerprint256,
      not_before: x509.validFrom,
      not_after: x509.validTo,
    };
    this.versions.set(versionId, dto);
    return versionId;
  }
  async certificate(_id: string, versionId?: string | null) {
    const dto = versionId ? this.versions.get(versionId) : [...this.versions.values()].pop();
    if (!dto)
      throw new ApiError({ status: 404, code: 'certificate_version_not_found', reason: 'no version' });
    return dto;
  }
  /** Server key generation: the keys the server holds per version (ADR 0033). */
  serverKeys = new Map<string, string>();
  /** A version issued with a key made here, as SERVICE_KEYGEN_MODE=server does; `heldKey` is what the server keeps. */
  issueServerSide(certificateId: string, versionId: string, heldKey?: 'own' | 'other' | 'none'): string {
    execFileSync(
      'openssl',
      [
        'req',
        '-new',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        'srv.key',
        '-out',
        'req.csr',
        '-subj',
        `/CN=${certificateId}.example.com`,
      ],
      { cwd: this.dir, stdio: 'ignore' },
    );
    const key = readFileSync(join(this.dir, 'srv.key'), 'utf8');
    const csr = readFileSync(join(this.dir, 'req.csr'), 'utf8');
    const accepted = this.sign(certificateId, csr, versionId);
    if (heldKey === 'own' || heldKey === undefined) this.serverKeys.set(accepted, key);
    if (heldKey === 'other') {
      execFileSync(
        'openssl',
        ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'other.key'],
        {
          cwd: this.dir,
          stdio: 'ignore',
        },
      );
      this.serverKeys.set(accepted, readFileSync(join(this.dir, 'other.key'), 'utf8'));
    }
    return key;
  }
  async certificateKey(
    certificateId: string,
    versionId: string,
    recipientPublicJwk: RecipientPublicJwk,
  ): Promise<AgentKeyDto> {
    this.sent.push(JSON.stringify({ recipient_public_jwk: recipientPublicJwk, version_id: versionId }));
    const key = this.serverKeys.get(versionId);
    if (!key)
      throw new ApiError({
        status: 404,
        code: 'certificate_key_not_found',
        reason: 'the service holds no private key',
      });
    const jwe = await wrapPrivateKey(key, recipientPublicJwk, { certificateId, versionId });
    this.received.push(jwe);
    return { certificate_id: certificateId, version_id: versionId, private_key_jwe: jwe };
  }
  received: string[] = [];
  async reportStatus(
    job: string,
    status: AgentReportStatus,
    error?: string,
    verification?: AgentVerificationReport,
  ) {
    this.sent.push(JSON.stringify({ status, error, verification }));
    const failure = this.failReports.get(`${job}:${status}`)?.shift();
    if (failure) throw failure;
    this.reports.push({
      job,
      status,
      ...(error !== undefined ? { error } : {}),
      ...(verification ? { verification } : {}),
    });
  }
}

/** The test double of a target kind: writes the files, or fails as told. */
class FileConnector implements TargetConnector {
  readonly type = 'nginx' as const;
  deployed: DeploymentMaterial[] = [];
  result: Partial<DeploymentResult> = {};
  async deploy(
    config: Readonly<Record<string, unknown>>,
    material: DeploymentMaterial,
    _host: DeploymentHost,
  ): Promise<DeploymentResult> {
    this.deployed.push(material);
    if (this.result.ok === false)
      return {
        ok: false,
        rolledBack: true,
        steps: [{ step: 'validate', ok: false, detail: 'nginx -t said no' }],
        ...this.result,
      };
    writeFileSync(String(config.cert_path), material.certificatePem + material.chainPem);
    writeFileSync(String(config.key_path), material.privateKeyPem, { mode: 0o600 });
    return { ok: true, rolledBack: false, steps: [{ step: 'write', ok: true }], ...this.result };
  }
}

const item = (over: Partial<AgentWorkItem>): AgentWorkItem => ({
  job_id: 'job-1',
  type: 'Issuance',
  status: 'AwaitingCSR',
  certificate_id: 'web',
  common_name: 'web.example.com',
  sans: ['www.example.com', '10.0.0.1'],
  key_algorithm: 'ECDSA-P256',
  target_id: '',
  version_id: null,
  attempts: 0,
  max_attempts: 3,
  created_at: new Date().toISOString(),
  ...over,
});

describe('CertlaneAgent job handling', () => {
  let dir: string;
  let server: FakeServer;
  let connector: FileConnector;
  let targets: Record<string, TargetSpec>;
  let agent: CertlaneAgent;
  let reportsState: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-agent-spec-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        'ca.key',
        '-out',
        'ca.crt',
        '-subj',
        '/CN=Fake CA',
        '-days',
        '30',
      ],
      { cwd: dir, stdio: 'ignore' },
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  beforeEach(() => {
    server = new FakeServer(dir);
    connector = new FileConnector();
    targets = {};
    const source: TargetConfigSource = { get: async (id) => targets[id] ?? null };
    reportsState = mkdtempSync(join(dir, 'reports-state-'));
    agent = new CertlaneAgent({
      server,
      keys: new KeyStore(join(dir, 'state')),
      unsentReports: new UnsentReports(reportsState),
      journal: new DeploymentJournal(reportsState),
      targets: source,
      connectors: connectorRegistry([connector]),
      host: {
        run: async () => ({ exitCode: 0, stdout: '', stderr: '', timedOut: false }),
        servedFingerprint: async () => '',
        log: () => undefined,
      },
      logger: quiet,
      facts: () => ({ version: 't', hostname: 'h', os: 'linux', architecture: 'x64' }),
      pollIntervalMs: 1000,
      heartbeatIntervalMs: 1000,
      backoffMaxMs: 8000,
    });
  });

  it('answers an AwaitingCSR job with a CSR for a key it wrote 0600 and never sent', async () => {
    server.queue = [item({ key_algorithm: 'ECDSA-P384' })];
    expect(await agent.pollOnce()).toEqual(['csr-submitted']);
    const keyPath = join(dir, 'state', 'keys', 'web', 'ver-1.key.pem');
    expect(statSync(keyPath).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'state', 'keys')).mode & 0o777).toBe(0o700);
    const key = readFileSync(keyPath, 'utf8');
    expect(key).toContain('-----BEGIN PRIVATE KEY-----');
    expect(readdirSync(join(dir, 'state', 'keys', 'web'))).toEqual(['ver-1.key.pem']);
    const csrBody = JSON.parse(server.sent.find((s) => s.includes('csr_pem'))!) as { csr_pem: string };
    const csr = parseCsr(csrBody.csr_pem);
    expect(csr.publicKey.algorithm).toBe('ECDSA');
    expect(csr.subject.attributes.map((a) => [a.shortName, a.value])).toEqual([['CN', 'web.example.com']]);
    expect(
      new X509Certificate(server.versions.get('ver-1')!.leaf_pem).checkPrivateKey(createPrivateKey(key)),
    ).toBe(true);
    const body = key.split('\n').slice(1, -2).join('');
    for (const sent of server.sent) {
      expect(sent).not.toContain('PRIVATE KEY');
      expect(sent).not.toContain(body.slice(0, 40));
    }
    expect(server.reports).toEqual([]);
  });

  it('builds the SANs by form: the CN as DNS, IPs, e-mail, URIs', () => {
    expect(
      subjectAltNamesFor('web.example.com', [
        'www.example.com',
        '10.0.0.1',
        'a@b.example',
        'spiffe://x/y',
        'WEB.example.com',
      ]),
    ).toEqual([
      { type: 'dns', value: 'web.example.com' },
      { type: 'dns', value: 'www.example.com' },
      { type: 'ip', value: '10.0.0.1' },
      { type: 'email', value: 'a@b.example' },
      { type: 'uri', value: 'spiffe://x/y' },
    ]);
  });

  it('reports Failed with the reason when the server refuses the CSR, and drops the key', async () => {
    server.fail.csr = new ApiError({
      status: 400,
      code: 'csr_invalid',
      reason: 'CN mismatch',
      request: 'POST /csr',
    });
    server.queue = [item({ job_id: 'job-bad', certificate_id: 'bad' })];
    expect(await agent.pollOnce()).toEqual(['failed']);
    expect(server.reports).toEqual([
      { job: 'job-bad', status: 'Failed', error: 'POST /csr: 400 csr_invalid: CN mismatch' },
    ]);
    expect(readdirSync(join(dir, 'state', 'keys', 'bad'))).toEqual([]);
  });

  it('fails a job whose CSR any final 4xx refuses (a profile rule) and handles the next item of the poll', async () => {
    server.refuseCsrOf.set(
      'staple',
      new ApiError({
        status: 400,
        code: 'profile_violation',
        reason: 'the profile requires must-staple (TLS feature status_request)',
        request: 'POST /csr',
      }),
    );
    server.queue = [
      item({ job_id: 'job-staple', certificate_id: 'staple' }),
      item({ job_id: 'job-fine', certificate_id: 'fine' }),
    ];
    expect(await agent.pollOnce()).toEqual(['failed', 'csr-submitted']);
    expect(server.reports).toEqual([
      {
        job: 'job-staple',
        status: 'Failed',
        error:
          'POST /csr: 400 profile_violation: the profile requires must-staple (TLS feature status_request)',
      },
    ]);
    expect(readdirSync(join(dir, 'state', 'keys', 'staple'))).toEqual([]);
    expect(readdirSync(join(dir, 'state', 'keys', 'fine'))).toEqual(['ver-1.key.pem']);
  });

  it.each([
    ['a 503', new ApiError({ status: 503, code: 'service_unavailable', reason: 'down' })],
    ['a 429', new ApiError({ status: 429, code: 'rate_limited', reason: 'slow down' })],
    ['a 408', new ApiError({ status: 408, code: null, reason: 'too slow' })],
    ['no answer', new ApiNetworkError('POST /csr: ECONNRESET')],
  ])('leaves a job for the next poll on %s, and still handles the next item', async (_, error) => {
    server.refuseCsrOf.set('later', error);
    server.queue = [
      item({ job_id: 'job-later', certificate_id: 'later' }),
      item({ job_id: 'job-now', certificate_id: 'now' }),
    ];
    expect(await agent.pollOnce()).toEqual(['deferred', 'csr-submitted']);
    expect(server.reports).toEqual([]);
  });

  it('moves on when the server refuses a report for an item it settled meanwhile', async () => {
    server.failReports.set('job-gone:Running', [
      new ApiError({ status: 400, code: 'job_invalid_transition', reason: 'cancelled', details: {} }),
    ]);
    server.queue = [
      item({ job_id: 'job-gone', type: 'Deployment', status: 'Pending', target_id: 'tgt-x' }),
      item({ job_id: 'job-next', certificate_id: 'next' }),
    ];
    expect(await agent.pollOnce()).toEqual(['refused', 'csr-submitted']);
    expect(connector.deployed).toEqual([]);
  });

  it('deploys a version through the target connector: Running then Completed', async () => {
    server.queue = [item({})];
    await agent.pollOnce();
    targets['tgt-1'] = {
      type: 'nginx',
      config: { cert_path: join(dir, 'served.crt'), key_path: join(dir, 'served.key') },
      endpoint: '127.0.0.1:1',
    };
    server.queue = [
      item({
        job_id: 'job-d',
        type: 'Deployment',
        status: 'Pending',
        target_id: 'tgt-1',
        version_id: 'ver-1',
      }),
    ];
    expect(await agent.pollOnce()).toEqual(['completed']);
    expect(server.reports.map((r) => [r.job, r.status])).toEqual([
      ['job-d', 'Running'],
      ['job-d', 'Completed'],
    ]);
    const material = connector.deployed[0];
    expect(material.fingerprintSha256).toBe(
      createHash('sha256').update(new X509Certificate(material.certificatePem).raw).digest('hex'),
    );
    expect(readFileSync(join(dir, 'served.key'), 'utf8')).toBe(
      readFileSync(join(dir, 'state', 'keys', 'web', 'ver-1.key.pem'), 'utf8'),
    );
    for (const sent of server.sent) expect(sent).not.toContain('PRIVATE KEY');
  });

  it('carries what the connector verified at the endpoint in the Completed or Failed report', async () => {
    server.queue = [item({})];
    await agent.pollOnce();
    targets['tgt-1'] = {
      type: 'nginx',
      config: { cert_path: join(dir, 'served.crt'), key_path: join(dir, 'served.key') },
      endpoint: '127.0.0.1:8443',
    };
    const deployment = (job_id: string) =>
      item({ job_id, type: 'Deployment', status: 'Pending', target_id: 'tgt-1', version_id: 'ver-1' });
    const fingerprint = server.versions.get('ver-1')!.fingerprint_sha256.replace(/:/g, '').toLowerCase();
    connector.result = {
      steps: [
        { step: 'write', ok: true },
        { step: 'verify', ok: true },
      ],
      servedFingerprintSha256: fingerprint,
    };
    server.queue = [deployment('d-ok')];
    expect(await agent.pollOnce()).toEqual(['completed']);
    const old = 'ab'.repeat(32);
    connector.result = {
      ok: false,
      error: 'verify failed',
      steps: [
        { step: 'verify', ok: false },
        { step: 'rollback', ok: true },
      ],
      servedFingerprintSha256: old,
    };
    server.queue = [deployment('d-bad')];
    expect(await agent.pollOnce()).toEqual(['failed']);
    expect(server.reports.filter((r) => r.status !== 'Running')).toEqual([
      {
        job: 'd-ok',
        status: 'Completed',
        verification: {
          endpoint: '127.0.0.1:8443',
          served_fingerprint_sha256: fingerprint,
          result: 'verified',
        },
      },
      {
        job: 'd-bad',
        status: 'Failed',
        error: expect.stringContaining('verify failed [rolled back'),
        verification: { endpoint: '127.0.0.1:8443', served_fingerprint_sha256: old, result: 'mismatch' },
      },
    ]);
  });

  it("reports Failed with the connector's error, or a missing target, kind or key", async () => {
    server.queue = [item({})];
    await agent.pollOnce();
    targets['tgt-broken'] = { type: 'nginx', config: {} };
    targets['tgt-iis'] = { type: 'iis', config: {} };
    connector.result = { ok: false, error: 'validate failed' };
    server.queue = [
      item({
        job_id: 'd1',
        type: 'Deployment',
        status: 'Pending',
        target_id: 'tgt-broken',
        version_id: 'ver-1',
      }),
      item({
        job_id: 'd2',
        type: 'Deployment',
        status: 'Pending',
        target_id: 'tgt-unknown',
        version_id: 'ver-1',
      }),
      item({
        job_id: 'd3',
        type: 'Deployment',
        status: 'Pending',
        target_id: 'tgt-iis',
        version_id: 'ver-1',
      }),
      item({
        job_id: 'd4',
        type: 'Deployment',
        status: 'Pending',
        target_id: 'tgt-broken',
        certificate_id: 'web',
        version_id: 'ver-9',
      }),
    ];
    expect(await agent.pollOnce()).toEqual(['failed', 'failed', 'failed', 'failed']);
    const failures = Object.fromEntries(
      server.reports.filter((r) => r.status === 'Failed').map((r) => [r.job, r.error]),
    );
    expect(failures.d1).toBe(
      'validate failed [rolled back to the previous certificate] steps: validate:failed (nginx -t said no)',
    );
    expect(failures.d2).toBe(
      'target tgt-unknown is not configured on this agent (SERVICE_AGENT_TARGETS_FILE)',
    );
    expect(failures.d3).toBe('this agent has no connector for target kind iis');
    expect(failures.d4).toMatch(/no version/);
  });

  const deployment = (jobId: string, certificateId: string, versionId: string) =>
    item({
      job_id: jobId,
      type: 'Deployment',
      status: 'Pending',
      certificate_id: certificateId,
      target_id: 'tgt-s',
      version_id: versionId,
    });

  it('fetches a server-generated key wrapped to a one-time key, stores it 0600 and deploys it', async () => {
    const key = server.issueServerSide('srv', 'ver-s1');
    targets['tgt-s'] = {
      type: 'nginx',
      config: { cert_path: join(dir, 's.crt'), key_path: join(dir, 's.key') },
    };
    server.queue = [deployment('job-s', 'srv', 'ver-s1')];
    expect(await agent.pollOnce()).toEqual(['completed']);
    const stored = join(dir, 'state', 'keys', 'srv', 'ver-s1.key.pem');
    expect(statSync(stored).mode & 0o777).toBe(0o600);
    expect(createPrivateKey(readFileSync(stored, 'utf8')).export({ format: 'jwk' })).toEqual(
      createPrivateKey(key).export({ format: 'jwk' }),
    );
    expect(readFileSync(join(dir, 's.key'), 'utf8')).toBe(readFileSync(stored, 'utf8'));
    const fetch = JSON.parse(server.sent.find((s) => s.includes('recipient_public_jwk'))!) as {
      recipient_public_jwk: Record<string, unknown>;
      version_id: string;
    };
    expect(fetch.version_id).toBe('ver-s1');
    expect(Object.keys(fetch.recipient_public_jwk).sort()).toEqual(['crv', 'kty', 'x', 'y']);
    const body = key.split('\n').slice(1, -2).join('');
    for (const text of [...server.sent, ...server.received]) {
      expect(text).not.toContain('PRIVATE KEY');
      expect(text).not.toContain(body.slice(0, 40));
    }
    // A second deployment of the version uses the stored key: no second fetch.
    server.queue = [deployment('job-s2', 'srv', 'ver-s1')];
    expect(await agent.pollOnce()).toEqual(['completed']);
    expect(server.sent.filter((s) => s.includes('recipient_public_jwk'))).toHaveLength(1);
  });

  it('uses a new recipient key for every fetch', async () => {
    server.issueServerSide('srv2', 'ver-a');
    server.issueServerSide('srv2', 'ver-b');
    targets['tgt-s'] = {
      type: 'nginx',
      config: { cert_path: join(dir, 's.crt'), key_path: join(dir, 's.key') },
    };
    server.queue = [deployment('j-a', 'srv2', 'ver-a'), deployment('j-b', 'srv2', 'ver-b')];
    expect(await agent.pollOnce()).toEqual(['completed', 'completed']);
    const jwks = server.sent
      .filter((s) => s.includes('recipient_public_jwk'))
      .map((s) => (JSON.parse(s) as { recipient_public_jwk: { x: string } }).recipient_public_jwk.x);
    expect(new Set(jwks).size).toBe(2);
  });

  it('fails the deployment when neither the agent nor the server holds the key, or the released key does not match', async () => {
    server.issueServerSide('srv3', 'ver-none', 'none');
    server.issueServerSide('srv3', 'ver-other', 'other');
    targets['tgt-s'] = {
      type: 'nginx',
      config: { cert_path: join(dir, 's.crt'), key_path: join(dir, 's.key') },
    };
    server.queue = [deployment('j-none', 'srv3', 'ver-none'), deployment('j-other', 'srv3', 'ver-other')];
    expect(await agent.pollOnce()).toEqual(['failed', 'failed']);
    const failures = Object.fromEntries(
      server.reports.filter((r) => r.status === 'Failed').map((r) => [r.job, r.error]),
    );
    expect(failures['j-none']).toBe(
      'neither this agent nor the server holds a private key for srv3 version ver-none',
    );
    expect(failures['j-other']).toBe(
      'the wrapped key does not match the certificate of srv3 version ver-other',
    );
    expect(readdirSync(join(dir, 'state', 'keys')).includes('srv3')).toBe(false);
    expect(connector.deployed).toEqual([]);
  });

  describe('the final report of a deployment', () => {
    const lost = () => new ApiNetworkError('POST /jobs/job-d/status: socket hang up');
    let sleeps: number[];
    let reporting: CertlaneAgent;
    const withDeps = (over: Partial<ConstructorParameters<typeof CertlaneAgent>[0]>) =>
      new CertlaneAgent({
        ...(agent as unknown as { deps: ConstructorParameters<typeof CertlaneAgent>[0] }).deps,
        random: () => 0.5,
        sleep: async (ms) => {
          sleeps.push(ms);
        },
        ...over,
      });
    const deploymentOfVer1 = () =>
      item({
        job_id: 'job-d',
        type: 'Deployment',
        status: 'Pending',
        target_id: 'tgt-1',
        version_id: 'ver-1',
      });

    beforeEach(async () => {
      sleeps = [];
      reporting = withDeps({});
      server.queue = [item({})];
      await reporting.pollOnce();
      targets['tgt-1'] = {
        type: 'nginx',
        config: { cert_path: join(dir, 'served.crt'), key_path: join(dir, 'served.key') },
      };
    });

    it('is retried after bounded, growing waits while the network loses it, then sent', async () => {
      server.failReports.set('job-d:Completed', [lost(), lost()]);
      server.queue = [deploymentOfVer1()];
      expect(await reporting.pollOnce()).toEqual(['completed']);
      // base 1 s doubled, upper half (random 0.5): 0.75 s, then 1.5 s
      expect(sleeps).toEqual([750, 1500]);
      expect(server.reports.map((r) => [r.job, r.status])).toEqual([
        ['job-d', 'Running'],
        ['job-d', 'Completed'],
      ]);
      expect(new UnsentReports(reportsState).all()).toEqual([]);
    });

    it('is kept in the state directory when it still fails, and sent before the next poll, even after a restart', async () => {
      server.failReports.set('job-d:Failed', [lost(), lost(), lost(), lost()]);
      connector.result = { ok: false, error: 'validate failed' };
      server.queue = [deploymentOfVer1()];
      expect(await reporting.pollOnce()).toEqual(['failed']);
      expect(sleeps).toEqual([750, 1500, 3000]);
      expect(server.reports.map((r) => r.status)).toEqual(['Running']);
      const kept = new UnsentReports(reportsState).all();
      expect(kept).toEqual([
        { job_id: 'job-d', status: 'Failed', error: expect.stringContaining('validate failed') },
      ]);
      const file = readdirSync(join(reportsState, 'reports'));
      expect(file).toHaveLength(1);
      expect(statSync(join(reportsState, 'reports', file[0])).mode & 0o777).toBe(0o600);

      // A new process over the same state directory.
      const restarted = withDeps({ unsentReports: new UnsentReports(reportsState) });
      expect(await restarted.pollOnce()).toEqual([]);
      expect(server.reports.map((r) => [r.job, r.status])).toEqual([
        ['job-d', 'Running'],
        ['job-d', 'Failed'],
      ]);
      expect(server.reports[1].error).toContain('validate failed');
      expect(readdirSync(join(reportsState, 'reports'))).toEqual([]);
    });

    it('stays kept while the server cannot take it, without holding up the poll', async () => {
      server.failReports.set('job-d:Completed', [lost(), lost(), lost(), lost(), lost()]);
      server.queue = [deploymentOfVer1()];
      expect(await reporting.pollOnce()).toEqual(['completed']);
      server.queue = [item({ job_id: 'job-after', certificate_id: 'after' })];
      expect(await reporting.pollOnce()).toEqual(['csr-submitted']);
      expect(new UnsentReports(reportsState).all()).toHaveLength(1);
      await reporting.pollOnce();
      expect(new UnsentReports(reportsState).all()).toEqual([]);
      expect(server.reports.filter((r) => r.status === 'Completed')).toHaveLength(1);
    });

    it('is dropped when the server says it already took it (a repeat of a report whose answer was lost)', async () => {
      const alreadyCompleted = new ApiError({
        status: 400,
        code: 'job_invalid_transition',
        reason: 'job job-d cannot take report Completed: it is not in progress',
        details: { status: 'Completed' },
      });
      server.failReports.set('job-d:Completed', [lost(), lost(), lost(), lost(), alreadyCompleted]);
      server.queue = [deploymentOfVer1()];
      expect(await reporting.pollOnce()).toEqual(['completed']);
      expect(new UnsentReports(reportsState).all()).toHaveLength(1);
      expect(await reporting.pollOnce()).toEqual([]);
      expect(new UnsentReports(reportsState).all()).toEqual([]);
      expect(server.reports.filter((r) => r.status === 'Completed')).toEqual([]);
    });

    it('is kept at once when the agent is stopped, with no waiting', async () => {
      server.failReports.set('job-d:Completed', [lost()]);
      server.queue = [deploymentOfVer1()];
      const deploy = connector.deploy.bind(connector);
      connector.deploy = (...args) => {
        reporting.stop(); // SIGTERM while the connector runs
        return deploy(...args);
      };
      expect(await reporting.pollOnce()).toEqual(['completed']);
      expect(sleeps).toEqual([]);
      expect(new UnsentReports(reportsState).all()).toHaveLength(1);
    });
  });

  it('deploys with the key of a CSR whose 202 was lost, filed under the version it was issued as', async () => {
    server.loseCsrAnswer = true;
    server.queue = [item({ job_id: 'job-lost', certificate_id: 'lost' })];
    expect(await agent.pollOnce()).toEqual(['deferred']);
    server.loseCsrAnswer = false;
    expect(readdirSync(join(dir, 'state', 'keys', 'lost'))).toEqual(['job-job-lost.key.pem']);
    const jobKey = readFileSync(join(dir, 'state', 'keys', 'lost', 'job-job-lost.key.pem'), 'utf8');
    // The server completed the job and issued ver-1; the job never comes back. Its deployment does.
    targets['tgt-1'] = {
      type: 'nginx',
      config: { cert_path: join(dir, 'lost.crt'), key_path: join(dir, 'lost.key') },
    };
    server.queue = [
      item({
        job_id: 'job-lost-d',
        type: 'Deployment',
        status: 'Pending',
        certificate_id: 'lost',
        target_id: 'tgt-1',
        version_id: 'ver-1',
      }),
    ];
    expect(await agent.pollOnce()).toEqual(['completed']);
    expect(readdirSync(join(dir, 'state', 'keys', 'lost'))).toEqual(['ver-1.key.pem']);
    expect(readFileSync(join(dir, 'lost.key'), 'utf8')).toBe(jobKey);
    expect(server.sent.filter((s) => s.includes('recipient_public_jwk'))).toEqual([]);
  });

  describe('a deployment the agent was killed in', () => {
    const depsOf = (a: CertlaneAgent) =>
      (a as unknown as { deps: ConstructorParameters<typeof CertlaneAgent>[0] }).deps;
    const deployment = () =>
      item({
        job_id: 'job-k',
        type: 'Deployment',
        status: 'Pending',
        target_id: 'tgt-1',
        version_id: 'ver-1',
      });

    beforeEach(async () => {
      server.queue = [item({})];
      await agent.pollOnce();
      targets['tgt-1'] = {
        type: 'nginx',
        config: { cert_path: join(dir, 'killed.crt'), key_path: join(dir, 'killed.key') },
      };
    });

    /** Starts the deployment and "kills" the agent inside the connector (it never returns). */
    const killedInDeploy = async () => {
      const deploy = connector.deploy.bind(connector);
      let entered!: () => void;
      const inConnector = new Promise<void>((resolve) => (entered = resolve));
      connector.deploy = () => {
        entered();
        return new Promise<DeploymentResult>(() => undefined);
      };
      server.queue = [deployment()];
      void agent.pollOnce();
      await inConnector;
      connector.deploy = deploy;
    };

    it('is run again whole at the next start, and its final report sent', async () => {
      await killedInDeploy();
      // The restarted agent: same state directory; the job is Running, so no poll returns it.
      const restarted = new CertlaneAgent({ ...depsOf(agent) });
      expect(await restarted.pollOnce()).toEqual([]);
      expect(connector.deployed).toHaveLength(1);
      expect(readFileSync(join(dir, 'killed.key'), 'utf8')).toBe(
        readFileSync(join(dir, 'state', 'keys', 'web', 'ver-1.key.pem'), 'utf8'),
      );
      expect(server.reports.map((r) => [r.job, r.status])).toEqual([
        ['job-k', 'Running'],
        ['job-k', 'Running'],
        ['job-k', 'Completed'],
      ]);
      expect(new DeploymentJournal(reportsState).all()).toEqual([]);
      // Run once: the next poll does nothing more.
      expect(await restarted.pollOnce()).toEqual([]);
      expect(connector.deployed).toHaveLength(1);
    });

    it('is still run when the server refuses its Running report (already Running, or reaped)', async () => {
      await killedInDeploy();
      server.failReports.set('job-k:Running', [
        new ApiError({
          status: 400,
          code: 'job_invalid_transition',
          reason: 'Running -> Running',
          details: { status: 'Running' },
        }),
      ]);
      const restarted = new CertlaneAgent({ ...depsOf(agent) });
      await restarted.pollOnce();
      expect(connector.deployed).toHaveLength(1);
      expect(server.reports.map((r) => r.status)).toEqual(['Running', 'Completed']);
    });

    it(`is reported Failed, not run, after ${MAX_DEPLOYMENT_RUNS} runs that never ended`, async () => {
      await killedInDeploy();
      for (let run = 2; run <= MAX_DEPLOYMENT_RUNS; run++) {
        connector.deploy = () => new Promise<DeploymentResult>(() => undefined);
        void new CertlaneAgent({ ...depsOf(agent) }).pollOnce();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      connector.deploy = async () => {
        throw new Error('must not run');
      };
      await new CertlaneAgent({ ...depsOf(agent) }).pollOnce();
      expect(server.reports.at(-1)).toMatchObject({ job: 'job-k', status: 'Failed' });
      expect(server.reports.at(-1)!.error).toContain(
        `stopped in this deployment ${MAX_DEPLOYMENT_RUNS} times`,
      );
      expect(new DeploymentJournal(reportsState).all()).toEqual([]);
    });

    it("is forgotten when the server refuses the first Running report (the job is no longer this agent's)", async () => {
      server.failReports.set('job-k:Running', [
        new ApiError({ status: 400, code: 'job_invalid_transition', reason: 'cancelled' }),
      ]);
      server.queue = [deployment()];
      expect(await agent.pollOnce()).toEqual(['refused']);
      expect(new DeploymentJournal(reportsState).all()).toEqual([]);
      expect(await agent.pollOnce()).toEqual([]);
      expect(connector.deployed).toEqual([]);
    });

    it('is run at the next poll when the answer to its Running report was lost', async () => {
      server.failReports.set('job-k:Running', [new ApiNetworkError('POST /status: socket hang up')]);
      server.queue = [deployment()];
      expect(await agent.pollOnce()).toEqual(['deferred']);
      // The server committed Running: the job is not in the next poll's work, the journal has it.
      expect(await agent.pollOnce()).toEqual([]);
      expect(connector.deployed).toHaveLength(1);
      expect(server.reports.map((r) => r.status)).toEqual(['Running', 'Completed']);
    });
  });

  it('keeps its schedule when the wall clock steps back (a monotonic clock)', async () => {
    const sleeps: number[] = [];
    const realNow = Date.now;
    let wall = realNow();
    const spy = jest.spyOn(Date, 'now').mockImplementation(() => wall);
    try {
      const looping = new CertlaneAgent({
        ...(agent as unknown as { deps: ConstructorParameters<typeof CertlaneAgent>[0] }).deps,
        random: () => 0.5,
        sleep: async (ms) => {
          sleeps.push(ms);
          wall -= 3_600_000; // NTP steps the clock back an hour
          if (sleeps.length === 2) looping.stop();
        },
      });
      await looping.run();
    } finally {
      spy.mockRestore();
    }
    // 1 s polls and heartbeats: never a wait of an hour and more.
    expect(sleeps).toHaveLength(2);
    for (const ms of sleeps) expect(ms).toBeLessThanOrEqual(1000);
  });

  it("waits at least the server's Retry-After (429, 503) before asking again, with jitter on top", async () => {
    const sleeps: number[] = [];
    let now = 0;
    server.fail = {
      work: new ApiError({
        status: 429,
        code: 'rate_limited',
        reason: 'slow down',
        details: { retry_after_seconds: 120 },
      }),
    };
    const looping = new CertlaneAgent({
      ...(agent as unknown as { deps: ConstructorParameters<typeof CertlaneAgent>[0] }).deps,
      heartbeatIntervalMs: 600_000,
      random: () => 0.5,
      now: () => now,
      sleep: async (ms) => {
        sleeps.push(ms);
        now += ms;
        if (sleeps.length === 1) {
          server.fail = {};
          server.refuseCsrOf.set(
            'later',
            new ApiError({
              status: 503,
              code: 'service_unavailable',
              reason: 'down',
              details: { retry_after_seconds: 30 },
            }),
          );
          server.queue = [item({ job_id: 'job-later', certificate_id: 'later' })];
        }
        if (sleeps.length === 2) looping.stop();
      },
    });
    await looping.run();
    // 120 s asked, +10% (random 0.5 of 20%); then a deferred item whose 503 asked 30 s.
    expect(sleeps).toEqual([132_000, 33_000]);
  });

  it('stops on 410 and on 401 from any call, and backs off on errors', async () => {
    const sleeps: number[] = [];
    let now = 0;
    const run = (fail: Error, where: 'work' | 'heartbeat') => {
      server.fail = { [where]: fail };
      const looping = new CertlaneAgent({
        ...(agent as unknown as { deps: ConstructorParameters<typeof CertlaneAgent>[0] }).deps,
        heartbeatIntervalMs: 60_000,
        random: () => 0.5,
        now: () => now,
        sleep: async (ms) => {
          sleeps.push(ms);
          now += ms;
          if (sleeps.length === 4) server.fail = { [where]: new AgentGoneError(410) };
        },
      });
      return looping.run();
    };
    expect(await run(new AgentGoneError(401), 'heartbeat')).toMatchObject({ reason: 'gone', status: 401 });
    expect(await run(new Error('ECONNREFUSED'), 'work')).toMatchObject({ reason: 'gone', status: 410 });
    // 1 s polls failing: 0.75, 1.5, 3, 6 s of backoff (base 1 s doubled, upper half, cap 8 s)
    expect(sleeps).toEqual([750, 1500, 3000, 6000]);
    expect(server.heartbeats).toHaveLength(1);
  });

  it('backs the poll off while items are left for the next poll, and not once they are not', async () => {
    const sleeps: number[] = [];
    let now = 0;
    server.refuseCsrOf.set(
      'later',
      new ApiError({ status: 503, code: 'service_unavailable', reason: 'down' }),
    );
    const looping = new CertlaneAgent({
      ...(agent as unknown as { deps: ConstructorParameters<typeof CertlaneAgent>[0] }).deps,
      heartbeatIntervalMs: 60_000,
      random: () => 0.5,
      now: () => now,
      sleep: async (ms) => {
        sleeps.push(ms);
        now += ms;
        if (sleeps.length === 2) server.refuseCsrOf.clear();
        if (sleeps.length === 4) looping.stop();
        server.queue = [item({ job_id: 'job-later', certificate_id: 'later' })];
      },
    });
    server.queue = [item({ job_id: 'job-later', certificate_id: 'later' })];
    expect(await looping.run()).toEqual({ reason: 'stopped' });
    // 1 s polls: deferred twice (0.75 s, 1.5 s of backoff), then handled (the jittered 1 s).
    expect(sleeps).toEqual([750, 1500, 1000, 1000]);
  });

  it('discovers certificate files and pushes them in batches of 200, never a key (ADR 0063)', async () => {
    const tree = join(dir, 'discovery-tree');
    mkdirSync(tree, { recursive: true });
    const certificate = readFileSync(join(dir, 'ca.crt'), 'utf8');
    const key = readFileSync(join(dir, 'ca.key'), 'utf8');
    for (let i = 0; i < 250; i++) writeFileSync(join(tree, `site-${i}.pem`), key + certificate);
    writeFileSync(join(tree, 'ca.key'), key);
    const discovering = new CertlaneAgent({
      ...(agent as unknown as { deps: ConstructorParameters<typeof CertlaneAgent>[0] }).deps,
      discovery: { roots: [tree], pkcs12Passwords: [], intervalMs: 3_600_000 },
    });
    expect(await discovering.discoverOnce()).toEqual({
      findings: 250,
      files_read: 250,
      locked_files: 0,
      pushes: 2,
    });
    expect(server.discoveries.map((batch) => batch.length)).toEqual([200, 50]);
    expect(server.discoveries[0][0]).toEqual({
      path: join(tree, 'site-0.pem'),
      format: 'pem',
      certificate_pem: expect.stringMatching(/^-----BEGIN CERTIFICATE-----\n/),
    });
    expect(server.sent.join('\n')).not.toContain('PRIVATE KEY');
    // One walk id for both pushes; only the last says the walk was complete (ADR 0063).
    expect(server.walks).toEqual([
      { id: expect.stringMatching(/^[0-9a-f]{24}$/), complete: false },
      { id: server.walks[0].id, complete: true },
    ]);
    // A walk that could not read a root is not complete: nothing may be marked gone after it.
    const partial = new CertlaneAgent({
      ...(agent as unknown as { deps: ConstructorParameters<typeof CertlaneAgent>[0] }).deps,
      discovery: { roots: [tree, join(dir, 'no-such-dir')], pkcs12Passwords: [], intervalMs: 3_600_000 },
    });
    await partial.discoverOnce();
    expect(server.walks.at(-1)).toEqual({
      id: expect.not.stringMatching(server.walks[0].id),
      complete: false,
    });
  });

  it('pushes full batches while it walks: 200 findings are one full push, then an empty last one saying complete', async () => {
    const tree = join(dir, 'discovery-200');
    mkdirSync(tree, { recursive: true });
    const certificate = readFileSync(join(dir, 'ca.crt'), 'utf8');
    for (let i = 0; i < 200; i++) writeFileSync(join(tree, `site-${i}.pem`), certificate);
    const discovering = new CertlaneAgent({
      ...(agent as unknown as { deps: ConstructorParameters<typeof CertlaneAgent>[0] }).deps,
      discovery: { roots: [tree], pkcs12Passwords: [], intervalMs: 3_600_000 },
    });
    const before = server.discoveries.length;
    expect(await discovering.discoverOnce()).toMatchObject({ findings: 200, pushes: 2 });
    expect(server.discoveries.slice(before).map((batch) => batch.length)).toEqual([200, 0]);
    expect(server.walks.slice(-2).map((walk) => walk.complete)).toEqual([false, true]);
  });

  it('pushes an empty complete walk when nothing is found, so what was there is marked gone', async () => {
    const empty = join(dir, 'empty-tree');
    mkdirSync(empty, { recursive: true });
    const discovering = new CertlaneAgent({
      ...(agent as unknown as { deps: ConstructorParameters<typeof CertlaneAgent>[0] }).deps,
      discovery: { roots: [empty], pkcs12Passwords: [], intervalMs: 3_600_000 },
    });
    expect(await discovering.discoverOnce()).toMatchObject({ findings: 0, pushes: 1 });
    expect(server.discoveries.at(-1)).toEqual([]);
    expect(server.walks.at(-1)).toMatchObject({ complete: true });
  });
});
