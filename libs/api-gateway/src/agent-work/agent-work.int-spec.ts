import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AgentCertificateDto,
  AgentCsrAccepted,
  AgentWorkResponse,
  CertificateDto,
  CertificateVersionDto,
  JobDto,
} from '@certlane/contracts';
import { httpsRequest, HttpsResult, recordSecrets, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

const AGENT_A = 'aw-agent-a';
const AGENT_B = 'aw-agent-b';
const CN = 'aw.example.com';
const SANS = ['www.aw.example.com'];

const splitPem = (pem: string) =>
  pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];

/**
 * The agent work protocol end to end (spec 4.7, ADR 0027) in agent key generation, through the
 * gateway over HTTPS with the real auth, issuance, revocation and gateway processes. The test acts
 * as the agent: its keys are made locally with openssl, only CSRs leave, and every request body
 * sent and every response read is kept to prove the private keys never crossed the wire.
 */
describe('agent work protocol (agent key generation)', () => {
  let system: TestSystem;
  let db: Client;
  let dir: string;
  let admin: string;
  const keys: Record<string, string> = {};
  const sent: string[] = [];
  const received: string[] = [];
  const privateKeys: string[] = [];

  const api = async (key: string, method: string, path: string, body?: unknown): Promise<HttpsResult> => {
    const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    if (text !== undefined) sent.push(text);
    const response = await httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${key}`,
        ...(text !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: text,
    });
    received.push(response.text);
    return response;
  };
  const asAdmin = (method: string, path: string, body?: unknown) => api(admin, method, path, body);
  const asA = (method: string, path: string, body?: unknown) => api(keys[AGENT_A], method, path, body);
  const asB = (method: string, path: string, body?: unknown) => api(keys[AGENT_B], method, path, body);
  const json = <T>(response: HttpsResult) => response.json() as T;

  const openssl = (args: string[]) => {
    const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    return { status: result.status, output: `${result.stdout}\n${result.stderr}`, stdout: result.stdout };
  };

  /** A key made here (it stays in `dir`) and a CSR for it; returns the CSR PEM. */
  function agentCsr(
    name: string,
    options: { key?: string[]; subject?: string; sans?: string[] | null } = {},
  ): string {
    const sans = options.sans === undefined ? [CN, ...SANS] : options.sans;
    const result = openssl([
      'req',
      '-new',
      '-newkey',
      ...(options.key ?? ['ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1']),
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      options.subject ?? `/CN=${CN}`,
      ...(sans && sans.length ? ['-addext', `subjectAltName=${sans.map((s) => `DNS:${s}`).join(',')}`] : []),
    ]);
    expect(result.output).not.toMatch(/error/i);
    const key = readFileSync(join(dir, `${name}.key`), 'utf8');
    privateKeys.push(key);
    return readFileSync(join(dir, `${name}.csr`), 'utf8');
  }

  const workOf = async (agent: string, key: string) => {
    const response = await api(key, 'GET', `/api/v1/agents/${agent}/work`);
    expect(response.status).toBe(200);
    return json<AgentWorkResponse>(response);
  };
  const job = async (id: string) => json<JobDto>(await asAdmin('GET', `/api/v1/jobs/${id}`));
  const certificate = async () => json<CertificateDto>(await asAdmin('GET', '/api/v1/certificates/aw-web'));
  const versions = async () =>
    json<{ data: CertificateVersionDto[]; total: number }>(
      await asAdmin('GET', '/api/v1/certificates/aw-web/versions'),
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-agent-work-'));
    system = await startTestSystem('agentwork', [
      'auth',
      'issuance',
      'revocation',
      'deployment-dispatch',
      'api-gateway',
    ]);
    admin = system.env.SERVICE_AUTH_SECRET!;
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    // The convention of the agents work: an agent's key is an r-agent key of actor agent.<id>.
    for (const [name, actor] of [
      [AGENT_A, `agent.${AGENT_A}`],
      [AGENT_B, `agent.${AGENT_B}`],
      ['impostor', 'not-an-agent'],
    ]) {
      const minted = await asAdmin('POST', '/api/v1/auth/api-keys', {
        name: `key-${name}`,
        actor_id: actor,
        role_ids: ['r-agent'],
      });
      expect(minted.status).toBe(201);
      keys[name] = json<{ key: string }>(minted).key;
    }
    // Deploy checks its target (ADR 0042): agent A runs the targets the tests deploy to.
    expect(
      (await asAdmin('POST', '/api/v1/agents', { id: AGENT_A, name: AGENT_A, hostname: 'aw-a.example.com' }))
        .status,
    ).toBe(201);
    for (const id of ['tgt-aw-1', 'tgt-aw-2', 'tgt-aw-3']) {
      const target = await asAdmin('POST', '/api/v1/targets', {
        id,
        name: id,
        type: 'nginx',
        agent_id: AGENT_A,
        config: { cert_path: `/srv/${id}/cert.pem`, key_path: `/srv/${id}/key.pem` },
      });
      expect(target.status).toBe(201);
    }
  }, 90_000);

  afterAll(async () => {
    recordSecrets('agent-work private keys', privateKeys);
    await db?.end();
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  let issuanceJob: string;

  it("lists a new certificate's Issuance job, awaiting the agent's CSR, in that agent's work only", async () => {
    const created = await asAdmin('POST', '/api/v1/certificates', {
      id: 'aw-web',
      common_name: CN,
      sans: SANS,
      key_algorithm: 'ECDSA-P256',
      agent_id: AGENT_A,
    });
    expect(created.status).toBe(201);
    expect(json<CertificateDto>(created).status).toBe('Pending');

    const work = await workOf(AGENT_A, keys[AGENT_A]);
    expect(work.count).toBe(1);
    expect(work.jobs).toEqual([
      {
        job_id: expect.stringMatching(/^job-/),
        type: 'Issuance',
        status: 'AwaitingCSR',
        certificate_id: 'aw-web',
        common_name: CN,
        sans: SANS,
        key_algorithm: 'ECDSA-P256',
        target_id: '',
        version_id: null,
        attempts: 0,
        max_attempts: expect.any(Number),
        created_at: expect.any(String),
      },
    ]);
    issuanceJob = work.jobs[0].job_id;
    expect(await workOf(AGENT_B, keys[AGENT_B])).toEqual({ jobs: [], count: 0 });
  });

  it("answers 403 to another agent's key, and to an r-agent key of another actor, on every route", async () => {
    const csr = agentCsr('forbidden');
    for (const key of [keys[AGENT_B], keys.impostor]) {
      const calls = [
        api(key, 'GET', `/api/v1/agents/${AGENT_A}/work`),
        api(key, 'POST', `/api/v1/agents/${AGENT_A}/csr`, { csr_pem: csr, certificate_id: 'aw-web' }),
        api(key, 'GET', `/api/v1/agents/${AGENT_A}/certificates/aw-web`),
        api(key, 'POST', `/api/v1/agents/${AGENT_A}/jobs/${issuanceJob}/status`, { status: 'Failed' }),
        // ...also with a body that would not validate: ownership is checked first.
        api(key, 'POST', `/api/v1/agents/${AGENT_A}/jobs/${issuanceJob}/status`, { status: 'Bogus' }),
      ];
      for (const response of await Promise.all(calls)) {
        expect([response.status, json<{ code: string }>(response).code]).toEqual([403, 'forbidden']);
      }
    }
    expect((await job(issuanceJob)).status).toBe('AwaitingCSR');
  });

  it('refuses an invalid CSR with 400 csr_invalid naming the rule, and the job keeps awaiting', async () => {
    const submit = (csr_pem: string) =>
      asA('POST', `/api/v1/agents/${AGENT_A}/csr`, { csr_pem, certificate_id: 'aw-web' });
    const refused = async (csr: string, rule: string, words: RegExp) => {
      const response = await submit(csr);
      const body = json<{ code: string; message: string; details: { rule: string } }>(response);
      expect([response.status, body.code, body.details.rule]).toEqual([400, 'csr_invalid', rule]);
      expect(body.message).toMatch(words);
    };
    await refused(
      agentCsr('wrong-cn', { subject: '/CN=evil.example.com', sans: null }),
      'csr_subject_cn_mismatch',
      /CN "evil.example.com" does not match .*"aw.example.com"/,
    );
    await refused(
      agentCsr('rsa1024', { key: ['rsa:1024'] }),
      'key_too_weak',
      /RSA key of 1024 bits is too weak/,
    );
    await refused(
      agentCsr('rsa2048', { key: ['rsa:2048'] }),
      'csr_key_algorithm_mismatch',
      /RSA-2048.*ECDSA-P256/,
    );
    await refused(
      agentCsr('foreign-san', { sans: [CN, 'bank.example.org'] }),
      'csr_san_not_allowed',
      /dns:bank.example.org/,
    );
    await refused(
      agentCsr('with-org', { subject: `/O=Bank/CN=${CN}` }),
      'csr_subject_not_allowed',
      /O is not allowed/,
    );
    // A valid CSR whose signature is damaged (the last byte of the signature flipped).
    const good = agentCsr('tampered');
    const der = Buffer.from(good.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    der[der.length - 1] ^= 0x01;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der
      .toString('base64')
      .replace(/.{64}/g, '$&\n')}\n-----END CERTIFICATE REQUEST-----\n`;
    await refused(tampered, 'csr_signature_invalid', /signature does not verify/);

    const notPem = await submit('MIIB...');
    expect([notPem.status, json<{ code: string }>(notPem).code]).toEqual([400, 'validation_failed']);
    const unknown = await asA('POST', `/api/v1/agents/${AGENT_A}/csr`, {
      csr_pem: good,
      certificate_id: 'aw-absent',
    });
    expect([unknown.status, json<{ code: string }>(unknown).code]).toEqual([404, 'certificate_not_found']);
    expect((await job(issuanceJob)).status).toBe('AwaitingCSR');
    expect((await certificate()).status).toBe('Pending');
  });

  it('issues from the CSR: 202, job Completed, version with csr_pem, and a PEM openssl verifies against the chain', async () => {
    const csr = agentCsr('v1');
    const response = await asA('POST', `/api/v1/agents/${AGENT_A}/csr`, {
      csr_pem: csr,
      certificate_id: 'aw-web',
    });
    expect(response.status).toBe(202);
    const accepted = json<AgentCsrAccepted>(response);
    expect(accepted).toMatchObject({
      status: 'accepted',
      job_id: issuanceJob,
      job_status: 'Completed',
      certificate_id: 'aw-web',
      version_id: expect.stringMatching(/^ver-/),
    });
    expect(await job(issuanceJob)).toMatchObject({ status: 'Completed', attempts: 1, last_error: '' });
    const cert = await certificate();
    expect(cert).toMatchObject({ status: 'Active', current_version_id: accepted.version_id });
    const { data, total } = await versions();
    expect(total).toBe(1);
    expect(data[0]).toMatchObject({
      id: accepted.version_id,
      version: 1,
      key_algorithm: 'ECDSA-P256',
      key_size: 256,
      job_id: issuanceJob,
      serial_number: accepted.serial_number,
      csr_pem: expect.stringContaining('-----BEGIN CERTIFICATE REQUEST-----'),
    });

    const fetched = await asA('GET', `/api/v1/agents/${AGENT_A}/certificates/aw-web`);
    expect(fetched.status).toBe(200);
    const material = json<AgentCertificateDto>(fetched);
    expect(material).toMatchObject({
      version_id: accepted.version_id,
      fingerprint_sha256: data[0].fingerprint_sha256,
    });
    const [leaf, ...chain] = splitPem(material.certificate_pem);
    expect(leaf).toBe(material.leaf_pem);
    expect(chain.join('')).toBe(material.chain_pem);
    expect(chain.length).toBeGreaterThanOrEqual(2);
    writeFileSync(join(dir, 'leaf.pem'), leaf ?? '');
    writeFileSync(join(dir, 'root.pem'), chain[chain.length - 1] ?? '');
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
    // The certificate is for the agent's own key, and carries the certificate's names.
    expect(openssl(['x509', '-in', 'leaf.pem', '-noout', '-pubkey']).stdout).toBe(
      openssl(['pkey', '-in', 'v1.key', '-pubout']).stdout,
    );
    const text = openssl(['x509', '-in', 'leaf.pem', '-noout', '-text']).stdout;
    expect(text).toContain(`DNS:${CN}`);
    expect(text).toContain(`DNS:${SANS[0]}`);

    expect(await workOf(AGENT_A, keys[AGENT_A])).toEqual({ jobs: [], count: 0 });
    // Agent key generation: the service holds no key for this certificate.
    const stored = await db.query(
      'SELECT count(*)::int AS n FROM issuance.certificate_keys WHERE certificate_id = $1',
      ['aw-web'],
    );
    expect(stored.rows).toEqual([{ n: 0 }]);
    // The job went AwaitingCSR -> Running -> Completed, the certificate Pending -> Active, all published.
    const events = await db.query<{ subject: string; data: Record<string, string> }>(
      `SELECT subject, envelope->'data' AS data FROM issuance.outbox
        WHERE subject LIKE '%status-changed' AND (envelope->'data'->>'job_id' = $1 OR envelope->'data'->>'certificate_id' = 'aw-web')
        ORDER BY seq`,
      [issuanceJob],
    );
    expect(
      events.rows.map((r) => `${r.subject.replace(/^.*issuance\.v1\./, '')} ${r.data.from}->${r.data.to}`),
    ).toEqual([
      'job.status-changed AwaitingCSR->Running',
      'certificate.status-changed Pending->Active',
      'job.status-changed Running->Completed',
    ]);
  });

  it('renews: the Renewal job awaits a new CSR, which is found by its common name; version 2', async () => {
    const renewed = await asAdmin('POST', '/api/v1/certificates/aw-web/renew');
    expect(renewed.status).toBe(202);
    const renewalJob = json<{ job_id: string }>(renewed).job_id;
    expect((await certificate()).status).toBe('RenewalInProgress');
    const work = await workOf(AGENT_A, keys[AGENT_A]);
    expect(work.jobs).toEqual([
      expect.objectContaining({ job_id: renewalJob, type: 'Renewal', status: 'AwaitingCSR' }),
    ]);
    // A completed-looking report cannot stand in for the CSR.
    const early = await asA('POST', `/api/v1/agents/${AGENT_A}/jobs/${renewalJob}/status`, {
      status: 'Completed',
    });
    expect([early.status, json<{ code: string }>(early).code]).toEqual([400, 'job_invalid_transition']);

    // No SANs requested and no certificate_id: the job is found by the CN, the names come from the inventory.
    const response = await asA('POST', `/api/v1/agents/${AGENT_A}/csr`, {
      csr_pem: agentCsr('v2', { sans: null }),
    });
    expect(response.status).toBe(202);
    const accepted = json<AgentCsrAccepted>(response);
    expect(accepted).toMatchObject({ job_id: renewalJob, job_status: 'Completed' });
    expect(await certificate()).toMatchObject({ status: 'Active', current_version_id: accepted.version_id });
    expect((await versions()).total).toBe(2);
    const material = json<AgentCertificateDto>(
      await asA('GET', `/api/v1/agents/${AGENT_A}/certificates/aw-web`),
    );
    expect(material.version_id).toBe(accepted.version_id);
    writeFileSync(join(dir, 'leaf2.pem'), material.leaf_pem);
    expect(openssl(['x509', '-in', 'leaf2.pem', '-noout', '-text']).stdout).toContain(`DNS:${SANS[0]}`);
    expect(openssl(['x509', '-in', 'leaf2.pem', '-noout', '-pubkey']).stdout).toBe(
      openssl(['pkey', '-in', 'v2.key', '-pubout']).stdout,
    );
  });

  it('deploys: the Deployment job is in the work; Running then Completed; invalid transitions are 400', async () => {
    const deployed = await asAdmin('POST', '/api/v1/certificates/aw-web/deploy', { target_id: 'tgt-aw-1' });
    expect(deployed.status).toBe(202);
    const deployment = json<{ job_id: string }>(deployed).job_id;
    const current = (await certificate()).current_version_id;
    const work = await workOf(AGENT_A, keys[AGENT_A]);
    expect(work.jobs).toEqual([
      expect.objectContaining({
        job_id: deployment,
        type: 'Deployment',
        status: 'Pending',
        target_id: 'tgt-aw-1',
        version_id: current,
      }),
    ]);
    const pinned = await asA('GET', `/api/v1/agents/${AGENT_A}/certificates/aw-web?version_id=${current}`);
    expect(json<AgentCertificateDto>(pinned).version_id).toBe(current);

    const report = (jobId: string, body: unknown) =>
      asA('POST', `/api/v1/agents/${AGENT_A}/jobs/${jobId}/status`, body);
    const running = await report(deployment, { status: 'Running' });
    expect(running.status).toBe(200);
    expect(json<JobDto>(running)).toMatchObject({ status: 'Running', started_at: expect.any(String) });
    expect((await workOf(AGENT_A, keys[AGENT_A])).count).toBe(0);
    const completed = await report(deployment, { status: 'Completed' });
    expect(completed.status).toBe(200);
    expect(json<JobDto>(completed)).toMatchObject({ status: 'Completed', completed_at: expect.any(String) });
    const { rows } = await db.query('SELECT version_id FROM issuance.jobs WHERE id = $1', [deployment]);
    expect(rows).toEqual([{ version_id: current }]);

    const again = await report(deployment, { status: 'Running' });
    expect([again.status, json<{ code: string }>(again).code]).toEqual([400, 'job_invalid_transition']);
    const bogus = await report(deployment, { status: 'Done' });
    expect([bogus.status, json<{ code: string }>(bogus).code]).toEqual([400, 'validation_failed']);
    const missing = await report('job-absent', { status: 'Running' });
    expect([missing.status, json<{ code: string }>(missing).code]).toEqual([404, 'job_not_found']);

    // A failed deployment keeps the agent's error.
    const second = json<{ job_id: string }>(
      await asAdmin('POST', '/api/v1/certificates/aw-web/deploy', { target_id: 'tgt-aw-2' }),
    ).job_id;
    const failed = await report(second, { status: 'Failed', error: 'nginx -t failed: bad directive' });
    expect(json<JobDto>(failed)).toMatchObject({
      status: 'Failed',
      last_error: 'nginx -t failed: bad directive',
    });
    expect((await certificate()).status).toBe('Active');
  });

  it('lets only the agent that started a deployment two agents can see report on it while it runs', async () => {
    // A deployment of A's certificate to a target of B (ADR 0042): both polls return it.
    await db.query(
      `INSERT INTO issuance.jobs (id, type, status, certificate_id, agent_id) VALUES ('aw-shared', 'Deployment', 'Pending', 'aw-web', $1)`,
      [AGENT_B],
    );
    const reportAs = (agent: string, status: string) =>
      api(keys[agent], 'POST', `/api/v1/agents/${agent}/jobs/aw-shared/status`, { status });
    expect((await reportAs(AGENT_A, 'Running')).status).toBe(200);
    for (const status of ['Running', 'Completed', 'Failed']) {
      const refused = await reportAs(AGENT_B, status);
      expect([status, refused.status, json<{ code: string; message: string }>(refused)]).toEqual([
        status,
        400,
        expect.objectContaining({
          code: 'job_invalid_transition',
          message: expect.stringContaining(`being run by ${AGENT_A}`),
        }),
      ]);
    }
    expect(json<JobDto>(await reportAs(AGENT_A, 'Completed')).status).toBe('Completed');
    // B has no other business with A's certificate (the tests below rely on it).
    await db.query(`DELETE FROM issuance.jobs WHERE id = 'aw-shared'`);
  });

  it("keeps the agent's verification with its report, checked against the job's version (ADR 0032)", async () => {
    const deployment = json<{ job_id: string }>(
      await asAdmin('POST', '/api/v1/certificates/aw-web/deploy', { target_id: 'tgt-aw-3' }),
    ).job_id;
    const deployed = (await certificate()).current_version_id;
    const expected = json<AgentCertificateDto>(
      await asA('GET', `/api/v1/agents/${AGENT_A}/certificates/aw-web?version_id=${deployed}`),
    ).fingerprint_sha256;
    const report = (body: unknown) =>
      asA('POST', `/api/v1/agents/${AGENT_A}/jobs/${deployment}/status`, body);
    const endpoint = '127.0.0.1:8443';
    const refused = async (body: unknown, field: string) => {
      const response = await report(body);
      const error = json<{ code: string; details: { field?: string; fields?: { field: string }[] } }>(
        response,
      );
      const fields = error.details.field ?? error.details.fields?.map((e) => e.field).join(',');
      expect([response.status, error.code, fields]).toEqual([400, 'validation_failed', field]);
    };
    // Not with Running; not a shape the contract does not allow.
    await refused(
      {
        status: 'Running',
        verification: { endpoint, served_fingerprint_sha256: expected, result: 'verified' },
      },
      'verification',
    );
    expect((await job(deployment)).status).toBe('Pending');
    expect((await report({ status: 'Running' })).status).toBe(200);
    await refused({ status: 'Completed', verification: 'verified' }, 'verification');
    await refused({ status: 'Completed', verification: { endpoint, result: 'fine' } }, 'verification.result');
    await refused(
      {
        status: 'Completed',
        verification: { endpoint, served_fingerprint_sha256: 'zz', result: 'verified' },
      },
      'verification.served_fingerprint_sha256',
    );
    // A claim the version contradicts is refused: the expected leaf is the server's, not the agent's.
    const other = 'ab'.repeat(32);
    await refused(
      {
        status: 'Completed',
        verification: { endpoint, served_fingerprint_sha256: other, result: 'verified' },
      },
      'verification.result',
    );
    await refused(
      {
        status: 'Failed',
        verification: { endpoint, served_fingerprint_sha256: expected, result: 'mismatch' },
      },
      'verification.result',
    );
    expect((await job(deployment)).status).toBe('Running');
    const none = await asAdmin('GET', `/api/v1/jobs/${deployment}/verification`);
    expect([none.status, json<{ code: string }>(none).code]).toEqual([404, 'verification_not_found']);

    const completed = await report({
      status: 'Completed',
      verification: {
        endpoint,
        served_fingerprint_sha256: expected.toUpperCase().match(/../g)!.join(':'),
        result: 'verified',
      },
    });
    expect(completed.status).toBe(200);
    expect(json<JobDto>(completed).status).toBe('Completed');
    const stored = await asAdmin('GET', `/api/v1/jobs/${deployment}/verification`);
    expect(stored.status).toBe(200);
    expect(stored.json()).toEqual({
      job_id: deployment,
      certificate_id: 'aw-web',
      endpoint,
      result: 'verified',
      expected_fingerprint_sha256: expected,
      served_fingerprint_sha256: expected,
      error: '',
      checked_at: expect.any(String),
    });
    const audited = await db.query<{ details: unknown }>(
      `SELECT envelope->'data'->'details' AS details FROM issuance.outbox
        WHERE subject LIKE '%audit.recorded' AND envelope->'data'->>'action' = 'job.status_reported'
          AND envelope->'data'->>'resource_id' = $1 AND envelope->'data'->'details'->>'to' = 'Completed'`,
      [deployment],
    );
    expect(audited.rows).toEqual([
      {
        details: expect.objectContaining({ verification: { endpoint, result: 'verified' }, to: 'Completed' }),
      },
    ]);

    // A failed deployment whose endpoint could not be read keeps why.
    const second = json<{ job_id: string }>(
      await asAdmin('POST', '/api/v1/certificates/aw-web/deploy', { target_id: 'tgt-aw-3' }),
    ).job_id;
    const failed = await asA('POST', `/api/v1/agents/${AGENT_A}/jobs/${second}/status`, {
      status: 'Failed',
      error: 'verify failed',
      verification: { endpoint, result: 'unreachable', error: 'connect ECONNREFUSED 127.0.0.1:8443' },
    });
    expect(failed.status).toBe(200);
    expect(json(await asAdmin('GET', `/api/v1/jobs/${second}/verification`))).toMatchObject({
      result: 'unreachable',
      expected_fingerprint_sha256: expected,
      served_fingerprint_sha256: '',
      error: 'connect ECONNREFUSED 127.0.0.1:8443',
    });
  });

  it('gives up a renewal when the agent reports it Failed: the certificate becomes Failed', async () => {
    const renewalJob = json<{ job_id: string }>(
      await asAdmin('POST', '/api/v1/certificates/aw-web/renew'),
    ).job_id;
    const failed = await asA('POST', `/api/v1/agents/${AGENT_A}/jobs/${renewalJob}/status`, {
      status: 'Failed',
      error: 'key generation failed',
    });
    expect(failed.status).toBe(200);
    expect(json<JobDto>(failed)).toMatchObject({ status: 'Failed', last_error: 'key generation failed' });
    expect((await certificate()).status).toBe('Failed');
  });

  it("keeps another agent's jobs and certificates out of reach through its own path (404)", async () => {
    const jobs = json<{ data: JobDto[] }>(await asAdmin('GET', '/api/v1/jobs?certificate_id=aw-web')).data;
    const report = await asB('POST', `/api/v1/agents/${AGENT_B}/jobs/${jobs[0].id}/status`, {
      status: 'Failed',
    });
    expect([report.status, json<{ code: string }>(report).code]).toEqual([404, 'job_not_found']);
    const fetched = await asB('GET', `/api/v1/agents/${AGENT_B}/certificates/aw-web`);
    expect([fetched.status, json<{ code: string }>(fetched).code]).toEqual([404, 'certificate_not_found']);
    const csr = await asB('POST', `/api/v1/agents/${AGENT_B}/csr`, {
      csr_pem: agentCsr('b'),
      certificate_id: 'aw-web',
    });
    expect([csr.status, json<{ code: string }>(csr).code]).toEqual([404, 'certificate_not_found']);
  });

  it("fails the job and the certificate when the issuer cannot issue, and answers with the issuer's error", async () => {
    const issuer = json<{ id: string; issuing_ca_id: string }>(
      await asAdmin('POST', '/api/v1/issuers', { name: 'AW retiring CA', type: 'local_ca' }),
    );
    expect((await asAdmin('POST', `/api/v1/intermediate-cas/${issuer.issuing_ca_id}/retire`)).status).toBe(
      200,
    );
    const created = await asAdmin('POST', '/api/v1/certificates', {
      id: 'aw-stuck',
      common_name: 'stuck.example.com',
      issuer_id: issuer.id,
      agent_id: AGENT_A,
    });
    expect(created.status).toBe(201);
    const response = await asA('POST', `/api/v1/agents/${AGENT_A}/csr`, {
      csr_pem: agentCsr('stuck', { subject: '/CN=stuck.example.com', sans: null }),
    });
    expect([response.status, json<{ code: string }>(response).code]).toEqual([409, 'ca_not_active']);
    const [stuck] = json<{ data: JobDto[] }>(
      await asAdmin('GET', '/api/v1/jobs?certificate_id=aw-stuck'),
    ).data;
    expect(stuck).toMatchObject({
      type: 'Issuance',
      status: 'Failed',
      last_error: expect.stringContaining('retired'),
    });
    expect(json<CertificateDto>(await asAdmin('GET', '/api/v1/certificates/aw-stuck')).status).toBe('Failed');
    const audited = await db.query<{ outcome: string }>(
      `SELECT envelope->'data'->>'outcome' AS outcome FROM issuance.outbox
        WHERE subject LIKE '%audit.recorded' AND envelope->'data'->>'action' = 'job.csr_submitted'
          AND envelope->'data'->>'resource_id' = $1`,
      [stuck.id],
    );
    expect(audited.rows).toEqual([{ outcome: 'failure' }]);
  });

  it('issues once when two CSRs for one job race: the other is refused', async () => {
    expect(
      (
        await asAdmin('POST', '/api/v1/certificates', {
          id: 'aw-race',
          common_name: 'race.example.com',
          agent_id: AGENT_A,
        })
      ).status,
    ).toBe(201);
    const csrs = [0, 1, 2].map((i) => agentCsr(`race-${i}`, { subject: '/CN=race.example.com', sans: null }));
    const answers = await Promise.all(
      csrs.map((csr_pem) =>
        asA('POST', `/api/v1/agents/${AGENT_A}/csr`, { csr_pem, certificate_id: 'aw-race' }),
      ),
    );
    const outcomes = answers.map((r) =>
      r.status === 202 ? 'issued' : `${r.status} ${json<{ code: string }>(r).code}`,
    );
    expect(outcomes.filter((o) => o === 'issued')).toHaveLength(1);
    for (const other of outcomes.filter((o) => o !== 'issued')) {
      expect(['400 job_invalid_transition', '404 job_not_found']).toContain(other);
    }
    const listed = json<{ total: number }>(await asAdmin('GET', '/api/v1/certificates/aw-race/versions'));
    expect(listed.total).toBe(1);
  });

  it('lets an admin call the work routes for support', async () => {
    const work = await asAdmin('GET', `/api/v1/agents/${AGENT_A}/work`);
    expect(work.status).toBe(200);
    const fetched = await asAdmin('GET', `/api/v1/agents/${AGENT_A}/certificates/aw-web`);
    expect(fetched.status).toBe(200);
  });

  it('never let a private key cross the wire: not in a request sent, not in a response read', () => {
    expect(privateKeys.length).toBeGreaterThan(5);
    expect(sent.some((body) => body.includes('BEGIN CERTIFICATE REQUEST'))).toBe(true);
    for (const key of privateKeys) {
      // Every full base64 line of the key (a short last line could occur anywhere by chance).
      const lines = key.split('\n').filter((line) => line.length >= 40 && !line.startsWith('-----'));
      expect(lines.length).toBeGreaterThan(0);
      for (const text of [...sent, ...received]) {
        expect(text).not.toContain('PRIVATE KEY');
        for (const line of lines) expect(text).not.toContain(line);
      }
    }
  });
});
