import { createHash, randomBytes } from 'node:crypto';
import { AgentDto, AuditEventDto, SENTINEL_AGENT_IDS } from '@certlane/contracts';
import {
  eventually,
  httpsRequest,
  HttpsResult,
  recordSecrets,
  startTestSystem,
  TestSystem,
} from '@certlane/testing';
import { Client } from 'pg';

type Registered = AgentDto & { api_key: string };

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;
const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

/**
 * Agents through the real gateway, auth, issuance and deployment-dispatch processes over real
 * NATS and Postgres (spec 2.4, 3, 4.7; ADR 0026): registration and per-agent keys, heartbeat,
 * the retired list, and the full retirement matrix.
 */
describe('agents through gateway -> NATS -> deployment-dispatch (+ auth, issuance)', () => {
  let system: TestSystem;
  let db: Client;

  const api = (
    method: string,
    path: string,
    options: { body?: unknown; key?: string | null; requestId?: string } = {},
  ): Promise<HttpsResult> => {
    const key = options.key === undefined ? system.env.SERVICE_AUTH_SECRET : options.key;
    return httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(options.requestId ? { 'x-request-id': options.requestId } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
  };

  async function register(overrides: Record<string, unknown> = {}): Promise<Registered> {
    const id = unique('edge');
    const response = await api('POST', '/api/v1/agents', {
      body: { id, name: id, hostname: `${id}.example.com`, ...overrides },
    });
    expect(`${response.status} ${response.text}`).toMatch(/^201 /);
    return response.json() as Registered;
  }

  /** Audit rows stored for a resource (the store is eventually consistent: poll for `atLeast`). */
  async function auditRows(agentId: string, atLeast = 0): Promise<AuditEventDto[]> {
    let rows: AuditEventDto[] = [];
    await eventually(async () => {
      const result = await db.query<AuditEventDto>(
        `SELECT action, request_id, actor_id, details FROM auth.audit_events
          WHERE resource_type = 'agent' AND resource_id = $1 ORDER BY seq`,
        [agentId],
      );
      rows = result.rows;
      return rows.length >= atLeast;
    }, `${atLeast} audit rows for agent ${agentId}`);
    return rows;
  }

  beforeAll(async () => {
    system = await startTestSystem('agents', ['auth', 'issuance', 'deployment-dispatch', 'api-gateway']);
    db = new Client({ connectionString: system.database.url });
    await db.connect();
  }, 90_000);

  afterAll(async () => {
    if (process.env.AGENTS_TEST_LOGS) {
      for (const service of Object.values(system?.services ?? {})) process.stderr.write(service.output());
    }
    await db?.end();
    await system?.stop();
  });

  describe('sentinel agents', () => {
    it('exist from startup, marked as sentinels, and are listed', async () => {
      const response = await api('GET', '/api/v1/agents?per_page=500');
      expect(response.status).toBe(200);
      const page = response.json() as { data: AgentDto[]; total: number; page: number; per_page: number };
      expect(page).toMatchObject({ page: 1, per_page: 500 });
      const sentinels = page.data.filter((agent) => agent.sentinel).map((agent) => agent.id);
      expect(sentinels.sort()).toEqual([...SENTINEL_AGENT_IDS].sort());
    });

    it.each(SENTINEL_AGENT_IDS.map((id) => [id]))(
      'refuses to retire %s with 403, with and without force',
      async (id) => {
        const plain = await api('DELETE', `/api/v1/agents/${id}`);
        expect(plain.status).toBe(403);
        expect(plain.json()).toMatchObject({ code: 'agent_sentinel' });
        const forced = await api('DELETE', `/api/v1/agents/${id}?force=true&reason=please`);
        expect(forced.status).toBe(403);
        const forcedNoReason = await api('DELETE', `/api/v1/agents/${id}?force=true`);
        expect(forcedNoReason.status).toBe(403);
        expect(((await api('GET', `/api/v1/agents/${id}`)).json() as AgentDto).retired_at).toBeNull();
      },
    );

    it('cannot be registered again (409)', async () => {
      const response = await api('POST', '/api/v1/agents', {
        body: { id: 'server-scanner', name: 'imposter', hostname: 'h' },
      });
      expect(response.status).toBe(409);
      expect(response.json()).toMatchObject({ code: 'agent_exists' });
    });
  });

  describe('registration', () => {
    it('answers 201 with the agent and its key once, stores only the key hash, and never returns the hash', async () => {
      const agent = await register({ name: 'Edge proxy one' });
      expect(agent).toMatchObject({
        name: 'Edge proxy one',
        status: 'Offline',
        sentinel: false,
        last_heartbeat_at: null,
        retired_at: null,
        retired_reason: null,
      });
      expect(agent.api_key).toMatch(/^[0-9a-f]{64}$/);
      const { rows } = await db.query<{ api_key_hash: string }>(
        'SELECT api_key_hash FROM deployment_dispatch.agents WHERE id = $1',
        [agent.id],
      );
      expect(rows[0].api_key_hash).toBe(sha256(agent.api_key));
      recordSecrets('agents api key hash', [rows[0].api_key_hash]);

      const reads = await Promise.all([
        api('GET', `/api/v1/agents/${agent.id}`),
        api('GET', '/api/v1/agents?per_page=500'),
        api('GET', '/api/v1/agents/retired'),
      ]);
      for (const response of reads) {
        expect(response.status).toBe(200);
        expect(response.text).not.toContain(rows[0].api_key_hash);
        expect(response.text).not.toContain(agent.api_key);
        expect(response.text).not.toContain('api_key_hash');
      }
      expect(Object.keys(reads[0].json() as object)).not.toContain('api_key');
    });

    it('generates an id when none is given', async () => {
      const response = await api('POST', '/api/v1/agents', {
        body: { name: unique('Anon'), hostname: 'h1' },
      });
      expect(response.status).toBe(201);
      expect((response.json() as Registered).id).toMatch(/^agent-[0-9a-f]{16}$/);
    });

    it('refuses an id or a name that is already registered with 409', async () => {
      const agent = await register();
      const sameId = await api('POST', '/api/v1/agents', {
        body: { id: agent.id, name: unique('other'), hostname: 'h' },
      });
      expect(sameId.status).toBe(409);
      expect(sameId.json()).toMatchObject({ code: 'agent_exists', details: { field: 'id' } });
      const sameName = await api('POST', '/api/v1/agents', {
        body: { id: unique('other'), name: agent.name.toUpperCase(), hostname: 'h' },
      });
      expect(sameName.status).toBe(409);
      expect(sameName.json()).toMatchObject({ code: 'agent_exists', details: { field: 'name' } });
    });

    it('refuses ids that do not fit the actor pattern with the agent. prefix (400)', async () => {
      for (const id of ['Upper', 'x'.repeat(59), '-lead', 'a b']) {
        const response = await api('POST', '/api/v1/agents', {
          body: { id, name: unique('n'), hostname: 'h' },
        });
        expect([id, response.status]).toEqual([id, 400]);
      }
      expect((await api('POST', '/api/v1/agents', { body: { name: 'no host' } })).status).toBe(400);
      const longest = `a${'b'.repeat(57)}`;
      expect(
        (await api('POST', '/api/v1/agents', { body: { id: longest, name: longest, hostname: 'h' } })).status,
      ).toBe(201);
    });

    it('mints a key that authenticates as agent.<id> with the r-agent role only', async () => {
      const agent = await register();
      const me = await api('GET', '/api/v1/auth/me', { key: agent.api_key });
      expect(me.status).toBe(200);
      expect(me.json()).toMatchObject({ actor_id: `agent.${agent.id}`, role_ids: ['r-agent'], admin: false });
      expect((await api('GET', '/api/v1/agents', { key: agent.api_key })).status).toBe(403);
      expect(
        (await api('POST', '/api/v1/agents', { key: agent.api_key, body: { name: 'x', hostname: 'h' } }))
          .status,
      ).toBe(403);
    });
  });

  describe('heartbeat', () => {
    it('records the host facts and makes the agent Online', async () => {
      const agent = await register();
      const facts = {
        version: '1.2.3',
        hostname: 'web-7',
        os: 'linux',
        architecture: 'amd64',
        ip_address: '10.0.0.7',
      };
      const response = await api('POST', `/api/v1/agents/${agent.id}/heartbeat`, {
        key: agent.api_key,
        body: facts,
      });
      expect(response.status).toBe(200);
      expect(response.json()).toMatchObject({
        ...facts,
        status: 'Online',
        last_heartbeat_at: expect.any(String),
      });
      expect(response.text).not.toContain('api_key');
      expect((await api('GET', `/api/v1/agents/${agent.id}`)).json()).toMatchObject({
        ...facts,
        status: 'Online',
      });
    });

    it('accepts no body, keeps earlier facts, and refuses unknown fields with 400', async () => {
      const agent = await register();
      await api('POST', `/api/v1/agents/${agent.id}/heartbeat`, {
        key: agent.api_key,
        body: { os: 'freebsd' },
      });
      const bare = await api('POST', `/api/v1/agents/${agent.id}/heartbeat`, { key: agent.api_key });
      expect(bare.status).toBe(200);
      expect(bare.json()).toMatchObject({ os: 'freebsd', status: 'Online' });
      const unknown = await api('POST', `/api/v1/agents/${agent.id}/heartbeat`, {
        key: agent.api_key,
        body: { api_key_hash: 'x' },
      });
      expect(unknown.status).toBe(400);
    });

    it("refuses an agent key heartbeating for another agent with 403, and leaves that agent's facts alone", async () => {
      const [mine, theirs] = await Promise.all([register(), register()]);
      const response = await api('POST', `/api/v1/agents/${theirs.id}/heartbeat`, {
        key: mine.api_key,
        body: { hostname: 'hijacked' },
      });
      expect(response.status).toBe(403);
      expect(response.json()).toMatchObject({ code: 'forbidden' });
      expect((await api('GET', `/api/v1/agents/${theirs.id}`)).json()).toMatchObject({
        hostname: theirs.hostname,
        last_heartbeat_at: null,
      });
    });

    it('answers 404 for an unknown agent', async () => {
      const response = await api('POST', `/api/v1/agents/${unique('ghost')}/heartbeat`);
      expect(response.status).toBe(404);
      expect(response.json()).toMatchObject({ code: 'agent_not_found' });
    });

    it('answers concurrent heartbeats (written together) each with its own agent, 404 and 410 among them', async () => {
      const agents = await Promise.all(Array.from({ length: 12 }, () => register()));
      const retired = await register();
      expect((await api('DELETE', `/api/v1/agents/${retired.id}`)).status).toBe(200);
      const ghost = unique('ghost');
      const answers = await Promise.all([
        ...agents.map((agent, i) =>
          api('POST', `/api/v1/agents/${agent.id}/heartbeat`, { body: { version: `v${i}`, os: `os-${i}` } }),
        ),
        api('POST', `/api/v1/agents/${ghost}/heartbeat`, { body: { version: 'x' } }),
        api('POST', `/api/v1/agents/${retired.id}/heartbeat`, { body: { version: 'x' } }),
      ]);
      agents.forEach((agent, i) => {
        expect(answers[i].status).toBe(200);
        expect(answers[i].json()).toMatchObject({
          id: agent.id,
          version: `v${i}`,
          os: `os-${i}`,
          status: 'Online',
        });
      });
      expect(answers[12].status).toBe(404);
      expect(answers[13].status).toBe(410);
      const { rows } = await db.query<{ id: string; version: string }>(
        'SELECT id, version FROM deployment_dispatch.agents WHERE id = ANY($1::text[]) ORDER BY id',
        [[...agents.map((a) => a.id), retired.id]],
      );
      const versions = Object.fromEntries(rows.map((row) => [row.id, row.version]));
      agents.forEach((agent, i) => expect(versions[agent.id]).toBe(`v${i}`));
      expect(versions[retired.id]).not.toBe('x');
    });
  });

  describe('lists and get', () => {
    it('lists non-retired agents in the envelope of spec 2.1', async () => {
      await register();
      const response = await api('GET', '/api/v1/agents?page=1&per_page=2');
      expect(response.status).toBe(200);
      const page = response.json() as { data: AgentDto[]; total: number; page: number; per_page: number };
      expect(page.data).toHaveLength(2);
      expect(page.total).toBeGreaterThanOrEqual(5);
      expect(page).toMatchObject({ page: 1, per_page: 2 });
      expect((await api('GET', '/api/v1/agents?per_page=0')).status).toBe(400);
    });

    it('serves /agents/retired as the literal path, with page below 1 read as 1 and per_page below 1 as 50', async () => {
      const retired = await register();
      expect((await api('DELETE', `/api/v1/agents/${retired.id}`)).status).toBe(200);
      for (const query of ['', '?page=0&per_page=0', '?page=-3&per_page=-1']) {
        const response = await api('GET', `/api/v1/agents/retired${query}`);
        expect([query, response.status]).toEqual([query, 200]);
        const page = response.json() as { data: AgentDto[]; page: number; per_page: number; total: number };
        expect(page).toMatchObject({ page: 1, per_page: 50 });
        expect(page.total).toBeGreaterThanOrEqual(1);
        expect(page.data.every((agent) => agent.retired_at !== null && agent.status === 'Retired')).toBe(
          true,
        );
      }
      expect((await api('GET', '/api/v1/agents/retired?page=abc')).status).toBe(400);
      expect((await api('GET', '/api/v1/agents/retired?per_page=501')).status).toBe(400);
      const active = (await api('GET', '/api/v1/agents?per_page=500')).json() as { data: AgentDto[] };
      expect(active.data.map((agent) => agent.id)).not.toContain(retired.id);
    });

    it('serves /agents/summary: the fleet by status as the list derives it, sentinels apart, counted over every agent', async () => {
      const [online, degraded] = [await register(), await register()];
      await register(); // never heartbeats: Offline
      // Heartbeat ages set in the database: one fresh, one three minutes old.
      await db.query(
        `UPDATE deployment_dispatch.agents SET last_heartbeat_at = CASE id
           WHEN $1 THEN now() WHEN $2 THEN now() - interval '3 minutes' END WHERE id IN ($1, $2)`,
        [online.id, degraded.id],
      );
      const summary = await api('GET', '/api/v1/agents/summary');
      expect(summary.status).toBe(200);
      const counts = summary.json() as Record<string, number>;
      // The list's own statuses, over every page (the summary counts beyond the first 100).
      const listed: AgentDto[] = [];
      for (let page = 1; ; page++) {
        const rows = (await api('GET', `/api/v1/agents?per_page=500&page=${page}`)).json() as {
          data: AgentDto[];
        };
        listed.push(...rows.data.filter((agent) => !agent.sentinel));
        if (rows.data.length < 500) break;
      }
      const count = (status: string) => listed.filter((agent) => agent.status === status).length;
      expect(counts).toMatchObject({
        total: listed.length,
        online: count('Online'),
        degraded: count('Degraded'),
        offline: count('Offline'),
      });
      expect(counts.online).toBeGreaterThanOrEqual(1);
      expect(counts.degraded).toBeGreaterThanOrEqual(1);
      const retired = (await api('GET', '/api/v1/agents/retired?per_page=500')).json() as { total: number };
      expect(counts.retired).toBe(retired.total);
      expect((await api('GET', '/api/v1/agents/summary', { key: null })).status).toBe(401);
    });

    it('answers 404 for an unknown id', async () => {
      const response = await api('GET', `/api/v1/agents/${unique('ghost')}`);
      expect(response.status).toBe(404);
      expect(response.json()).toMatchObject({ code: 'agent_not_found' });
    });
  });

  describe('retirement (spec 3, 4.7)', () => {
    async function addDependencies(agentId: string): Promise<{ targetIds: string[]; certificateId: string }> {
      const targetIds: string[] = [];
      for (const path of ['/etc/nginx/a.crt', '/etc/nginx/b.crt']) {
        const target = await api('POST', '/api/v1/targets', {
          body: {
            name: unique('web'),
            type: 'nginx',
            agent_id: agentId,
            config: { cert_path: path, key_path: '/etc/nginx/k.pem' },
          },
        });
        expect(`${target.status} ${target.text}`).toMatch(/^201 /);
        targetIds.push((target.json() as { id: string }).id);
      }
      const certificateId = unique('mc-agent');
      const certificate = await api('POST', '/api/v1/certificates', {
        body: { id: certificateId, common_name: `${certificateId}.example.com`, agent_id: agentId },
      });
      expect(`${certificate.status} ${certificate.text}`).toMatch(/^201 /);
      return { targetIds, certificateId };
    }

    it('retires an agent without dependencies: 200 with the result, one agent_retired record', async () => {
      const agent = await register();
      const requestId = unique('retire-plain');
      const response = await api('DELETE', `/api/v1/agents/${agent.id}?reason=decommissioned`, { requestId });
      expect(response.status).toBe(200);
      expect(response.json()).toMatchObject({
        already_retired: false,
        forced: false,
        counts: { active_targets: 0, active_certificates: 0, pending_jobs: 0 },
        retired_target_ids: [],
        agent: {
          id: agent.id,
          status: 'Retired',
          retired_reason: 'decommissioned',
          retired_at: expect.any(String),
        },
      });
      expect(response.text).not.toContain(agent.api_key);
      const rows = await auditRows(agent.id, 2);
      expect(rows.map((row) => row.action)).toEqual(['agent.registered', 'agent_retired']);
      expect(rows[1]).toMatchObject({ request_id: requestId, actor_id: 'actor-service-auth-secret' });
    });

    it('refuses a retirement with dependencies: 409 with {error, counts}', async () => {
      const agent = await register();
      await addDependencies(agent.id);
      const response = await api('DELETE', `/api/v1/agents/${agent.id}`);
      expect(response.status).toBe(409);
      const body = response.json() as Record<string, unknown>;
      expect(body).toMatchObject({
        code: 'agent_has_dependencies',
        error: expect.stringContaining('active dependencies'),
        counts: { active_targets: 2, active_certificates: 1, pending_jobs: 1 },
      });
      expect(body.error).toBe(body.message);
      expect(((await api('GET', `/api/v1/agents/${agent.id}`)).json() as AgentDto).retired_at).toBeNull();
    });

    it('counts only certificates that are not Archived or Revoked, and only open jobs (of the agent or its certificates)', async () => {
      const agent = await register();
      const other = unique('mc-other');
      const certificate = (status: string) => ({ id: unique(`mc-${status.toLowerCase()}`), status });
      const certificates = ['Active', 'Expired', 'Failed', 'Archived', 'Revoked'].map(certificate);
      for (const { id, status } of certificates) {
        await db.query(
          `INSERT INTO issuance.certificates (id, name, common_name, issuer_id, renewal_policy_id, agent_id, status)
           VALUES ($1, $1, $1, 'iss-local', 'rp-default', $2, $3)`,
          [id, agent.id, status],
        );
      }
      await db.query(
        `INSERT INTO issuance.certificates (id, name, common_name, issuer_id, renewal_policy_id, status)
         VALUES ($1, $1, $1, 'iss-local', 'rp-default', 'Active')`,
        [other],
      );
      const archived = certificates[3].id;
      const jobs: [string, string, string][] = [
        // [status, certificate, job agent_id]
        ['Pending', archived, ''],
        ['AwaitingCSR', archived, ''],
        ['Running', other, agent.id],
        ['AwaitingApproval', other, agent.id],
        ['Completed', archived, agent.id],
        ['Failed', other, agent.id],
        ['Cancelled', archived, ''],
        ['Pending', other, ''],
      ];
      for (const [status, certificateId, jobAgent] of jobs) {
        await db.query(
          `INSERT INTO issuance.jobs (id, type, status, certificate_id, agent_id) VALUES ($1, 'Deployment', $2, $3, $4)`,
          [unique('job-count'), status, certificateId, jobAgent],
        );
      }
      const response = await api('DELETE', `/api/v1/agents/${agent.id}`);
      expect(response.status).toBe(409);
      expect(response.json()).toMatchObject({
        counts: { active_targets: 0, active_certificates: 3, pending_jobs: 4 },
      });
    });

    it('refuses force without a reason with 400, and changes nothing', async () => {
      const agent = await register();
      await addDependencies(agent.id);
      for (const query of ['?force=true', '?force=1&reason=', '?force=true&reason=%20%20']) {
        const response = await api('DELETE', `/api/v1/agents/${agent.id}${query}`);
        expect([query, response.status]).toEqual([query, 400]);
        expect(response.json()).toMatchObject({ code: 'validation_failed' });
      }
      expect((await api('DELETE', `/api/v1/agents/${agent.id}?force=maybe&reason=x`)).status).toBe(400);
      expect(((await api('GET', `/api/v1/agents/${agent.id}`)).json() as AgentDto).retired_at).toBeNull();
    });

    it('with force and a reason retires the agent and its targets in one transaction, with both audit records', async () => {
      const agent = await register();
      const { targetIds } = await addDependencies(agent.id);
      const requestId = unique('retire-force');
      const response = await api('DELETE', `/api/v1/agents/${agent.id}?force=true&reason=host%20destroyed`, {
        requestId,
      });
      expect(response.status).toBe(200);
      expect(response.json()).toMatchObject({
        already_retired: false,
        forced: true,
        counts: { active_targets: 2, active_certificates: 1, pending_jobs: 1 },
        retired_target_ids: [...targetIds].sort(),
        agent: { status: 'Retired', retired_reason: 'host destroyed' },
      });
      // Same transaction: the agent's retired_at equals its targets' (now() is the transaction's time).
      const { rows } = await db.query<{ agent: Date; target: Date }>(
        `SELECT a.retired_at AS agent, t.retired_at AS target FROM deployment_dispatch.agents a
           JOIN deployment_dispatch.targets t ON t.agent_id = a.id WHERE a.id = $1`,
        [agent.id],
      );
      expect(rows).toHaveLength(2);
      for (const row of rows) expect(row.target.getTime()).toBe(row.agent.getTime());
      // Targets are retired, never deleted.
      for (const id of targetIds) {
        const target = await api('GET', `/api/v1/targets/${id}`);
        expect(target.status).toBe(200);
        expect(target.json()).toMatchObject({ retired_at: expect.any(String), agent_id: agent.id });
      }
      const listed = (await api('GET', `/api/v1/targets?agent_id=${agent.id}`)).json() as { total: number };
      expect(listed.total).toBe(0);
      const withRetired = (
        await api('GET', `/api/v1/targets?agent_id=${agent.id}&include_retired=true`)
      ).json() as {
        total: number;
      };
      expect(withRetired.total).toBe(2);
      const audit = await auditRows(agent.id, 3);
      expect(audit.filter((row) => row.request_id === requestId).map((row) => row.action)).toEqual([
        'agent_retired',
        'agent_retirement_cascaded',
      ]);
      expect(audit[2].details).toMatchObject({
        reason: 'host destroyed',
        retired_target_ids: [...targetIds].sort(),
      });
    });

    it("cancels the retired agent's waiting jobs with the retirement as their reason, and no one else's", async () => {
      const agent = await register();
      const other = await register();
      const { certificateId } = await addDependencies(agent.id);
      const { certificateId: othersCertificate } = await addDependencies(other.id);
      const jobsOf = async (id: string) =>
        (
          (await api('GET', `/api/v1/jobs?certificate_id=${id}`)).json() as {
            data: { id: string; status: string; last_error: string }[];
          }
        ).data;
      expect((await jobsOf(certificateId)).map((job) => job.status)).toEqual(['AwaitingCSR']);
      const retired = await api('DELETE', `/api/v1/agents/${agent.id}?force=true&reason=host%20destroyed`);
      expect(retired.status).toBe(200);
      await eventually(
        async () => (await jobsOf(certificateId))[0].status === 'Cancelled',
        "the retired agent's job cancelled",
      );
      const [cancelled] = await jobsOf(certificateId);
      expect(cancelled.last_error).toBe(`agent "${agent.id}" was retired: host destroyed`);
      await eventually(async () => {
        const { rows } = await db.query(
          `SELECT actor_id, details FROM auth.audit_events WHERE action = 'job.cancelled' AND resource_id = $1`,
          [cancelled.id],
        );
        return rows.length === 1 && rows[0].actor_id === 'system';
      }, 'the cancellation audited');
      expect((await jobsOf(othersCertificate)).map((job) => job.status)).toEqual(['AwaitingCSR']);
    });

    it('answers 204 for an agent already retired, with no body and no new audit record', async () => {
      const agent = await register();
      expect((await api('DELETE', `/api/v1/agents/${agent.id}`)).status).toBe(200);
      const before = await auditRows(agent.id, 2);
      const requestId = unique('retire-again');
      for (const query of ['', '?force=true&reason=again']) {
        const again = await api('DELETE', `/api/v1/agents/${agent.id}${query}`, { requestId });
        expect(again.status).toBe(204);
        expect(again.text).toBe('');
      }
      const emitted = await db.query(
        `SELECT 1 FROM deployment_dispatch.outbox WHERE envelope->'data'->>'request_id' = $1`,
        [requestId],
      );
      expect(emitted.rows).toHaveLength(0);
      expect(await auditRows(agent.id)).toHaveLength(before.length);
    });

    it('answers 404 for an unknown agent', async () => {
      const response = await api('DELETE', `/api/v1/agents/${unique('ghost')}`);
      expect(response.status).toBe(404);
      expect(response.json()).toMatchObject({ code: 'agent_not_found' });
    });

    it('answers a heartbeat for a retired agent with 410, and revokes the agent key', async () => {
      const agent = await register();
      expect((await api('POST', `/api/v1/agents/${agent.id}/heartbeat`, { key: agent.api_key })).status).toBe(
        200,
      );
      expect((await api('DELETE', `/api/v1/agents/${agent.id}`)).status).toBe(200);
      const gone = await api('POST', `/api/v1/agents/${agent.id}/heartbeat`, { body: { version: '2' } });
      expect(gone.status).toBe(410);
      expect(gone.json()).toMatchObject({ code: 'agent_retired' });
      await eventually(
        async () => (await api('GET', '/api/v1/auth/me', { key: agent.api_key })).status === 401,
        'the retired agent key refused',
      );
      await eventually(async () => {
        const { rows } = await db.query(
          'SELECT api_key_revoked_at FROM deployment_dispatch.agents WHERE id = $1',
          [agent.id],
        );
        return rows[0].api_key_revoked_at !== null;
      }, 'the revocation recorded');
    });

    it("answers the retired agent's own heartbeat with 410 once its key is revoked, and refuses that key elsewhere with 401", async () => {
      const agent = await register();
      const other = await register();
      expect((await api('DELETE', `/api/v1/agents/${agent.id}`)).status).toBe(200);
      await eventually(
        async () => (await api('GET', '/api/v1/auth/me', { key: agent.api_key })).status === 401,
        'the retired agent key revoked',
      );
      const gone = await api('POST', `/api/v1/agents/${agent.id}/heartbeat`, { key: agent.api_key });
      expect(gone.status).toBe(410);
      expect(gone.json()).toMatchObject({ code: 'agent_retired' });
      expect(gone.headers['www-authenticate']).toBeUndefined();
      // Every other route, and the heartbeat of any other agent, keeps refusing the key.
      for (const [method, path] of [
        ['GET', `/api/v1/agents/${agent.id}/work`],
        ['GET', `/api/v1/agents/${agent.id}`],
        ['POST', `/api/v1/agents/${other.id}/heartbeat`],
      ]) {
        const refused = await api(method, path, { key: agent.api_key });
        expect([method, path, refused.status]).toEqual([method, path, 401]);
        expect(refused.json()).toMatchObject({ code: 'unauthenticated' });
      }
      // A key that was never an agent's stays 401 on a retired agent's heartbeat.
      const stranger = await api('POST', `/api/v1/agents/${agent.id}/heartbeat`, {
        key: other.api_key + 'x',
      });
      expect(stranger.status).toBe(401);
    });

    it('lets the database refuse deleting an agent that owns targets (FK ON DELETE RESTRICT)', async () => {
      const agent = await register();
      await addDependencies(agent.id);
      await expect(
        db.query('DELETE FROM deployment_dispatch.agents WHERE id = $1', [agent.id]),
      ).rejects.toMatchObject({
        code: '23503',
      });
      const bare = await register();
      await db.query('DELETE FROM deployment_dispatch.agents WHERE id = $1', [bare.id]);
    });
  });
});
