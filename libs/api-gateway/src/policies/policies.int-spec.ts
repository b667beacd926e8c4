import { randomBytes } from 'node:crypto';
import {
  CertificateDto,
  Page,
  PolicyEvaluationResult,
  PolicyRuleDto,
  PolicyViolationDto,
} from '@certlane/contracts';
import { eventually, httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

/**
 * Policy rules and violations through gateway -> NATS -> issuance -> Postgres (spec 2.6, 2.7,
 * 4.5; ADR 0028). Server key generation, so a create issues at once and the issuance hook runs.
 */
describe('policy rules and violations', () => {
  let system: TestSystem;
  let db: Client;

  const call = (method: string, path: string, body?: unknown) =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  async function createRule(body: Record<string, unknown>): Promise<PolicyRuleDto> {
    const response = await call('POST', '/api/v1/policies', { name: unique('rule'), ...body });
    expect(`${response.status} ${response.text}`).toMatch(/^201 /);
    return response.json() as PolicyRuleDto;
  }

  async function violations(ruleId: string): Promise<PolicyViolationDto[]> {
    const response = await call('GET', `/api/v1/policies/${ruleId}/violations?per_page=500`);
    expect(response.status).toBe(200);
    return (response.json() as Page<PolicyViolationDto>).data;
  }

  const openViolationCount = async () =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM issuance.policy_violations')).rows[0].n;

  beforeAll(async () => {
    system = await startTestSystem('policies', ['auth', 'issuance', 'api-gateway'], {
      SERVICE_KEYGEN_MODE: 'server',
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  describe('CRUD', () => {
    it.each([
      ['a type outside the allowlist', { type: 'allowedIssuers', config: {} }],
      ['an unknown type', { type: 'KeySize', config: {} }],
      ['a severity outside the allowlist', { type: 'AllowedIssuers', severity: 'warning' }],
      ['an unknown severity', { type: 'AllowedIssuers', severity: 'Info' }],
      ['a config field of the wrong type', { type: 'RequiredMetadata', config: { required_keys: 'team' } }],
      ['a config that is an array', { type: 'RequiredMetadata', config: ['team'] }],
      ['no name', { name: '', type: 'AllowedIssuers' }],
    ])('refuses %s with 400', async (_label, body) => {
      const response = await call('POST', '/api/v1/policies', { name: unique('bad'), ...body });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ code: 'validation_failed' });
    });

    it('creates with severity Warning by default, and keeps the severity on an update that omits it', async () => {
      const rule = await createRule({ type: 'AllowedEnvironments', config: { allowed: ['production'] } });
      expect(rule).toMatchObject({
        id: expect.stringMatching(/^pol-[0-9a-f]{16}$/),
        type: 'AllowedEnvironments',
        severity: 'Warning',
        config: { allowed: ['production'] },
        config_error: null,
        enabled: true,
      });
      const critical = await call('PUT', `/api/v1/policies/${rule.id}`, { severity: 'Critical' });
      expect(critical.json()).toMatchObject({ severity: 'Critical' });
      const renamed = await call('PUT', `/api/v1/policies/${rule.id}`, {
        name: 'renamed',
        config: { allowed: ['dev'] },
      });
      expect(renamed.status).toBe(200);
      expect(renamed.json()).toMatchObject({
        name: 'renamed',
        severity: 'Critical',
        config: { allowed: ['dev'] },
      });
      expect((await call('GET', `/api/v1/policies/${rule.id}`)).json()).toMatchObject({
        severity: 'Critical',
      });
      expect((await call('PUT', `/api/v1/policies/${rule.id}`, { severity: 'critical' })).status).toBe(400);
      expect((await call('PUT', `/api/v1/policies/${rule.id}`, { type: 'Nope' })).status).toBe(400);
      expect((await call('DELETE', `/api/v1/policies/${rule.id}`)).status).toBe(204);
      expect((await call('GET', `/api/v1/policies/${rule.id}`)).status).toBe(404);
    });

    it('answers 404 for unknown rules on get, put, delete and violations, 400 on bad paging', async () => {
      for (const [method, path, body] of [
        ['GET', '/api/v1/policies/pol-nope', undefined],
        ['PUT', '/api/v1/policies/pol-nope', { severity: 'Error' }],
        ['DELETE', '/api/v1/policies/pol-nope', undefined],
        ['GET', '/api/v1/policies/pol-nope/violations', undefined],
      ] as const) {
        const response = await call(method, path, body);
        expect(`${method} ${path} ${response.status}`).toBe(`${method} ${path} 404`);
        expect(response.json()).toMatchObject({ code: 'policy_rule_not_found' });
      }
      const rule = await createRule({ type: 'AllowedIssuers', config: { allowed: ['iss-local'] } });
      for (const query of ['per_page=0', 'per_page=501', 'page=0', 'page=x']) {
        expect((await call('GET', `/api/v1/policies/${rule.id}/violations?${query}`)).status).toBe(400);
        expect((await call('GET', `/api/v1/policies?${query}`)).status).toBe(400);
      }
    });

    it('lists rules in the pagination envelope', async () => {
      await createRule({ type: 'AllowedIssuers', config: { allowed: ['iss-local'] } });
      await createRule({ type: 'AllowedIssuers', config: { allowed: ['iss-local'] } });
      const page = (await call('GET', '/api/v1/policies?per_page=1&page=2')).json() as Page<PolicyRuleDto>;
      expect(page).toMatchObject({ page: 2, per_page: 1, total: expect.any(Number) });
      expect(page.total).toBeGreaterThanOrEqual(2);
      expect(page.data).toHaveLength(1);
    });

    it('refuses a violation severity outside the allowlist in the store (CHECK constraint)', async () => {
      const rule = await createRule({ type: 'AllowedIssuers', config: { allowed: ['iss-local'] } });
      await db.query(
        `INSERT INTO issuance.certificates (id, name, common_name, issuer_id, renewal_policy_id)
         VALUES ('chk-cert', 'chk', 'chk.example.com', 'iss-local', 'rp-default') ON CONFLICT DO NOTHING`,
      );
      await expect(
        db.query(
          `INSERT INTO issuance.policy_violations (id, rule_id, certificate_id, severity, code, message)
           VALUES ('pv-x', $1, 'chk-cert', 'warning', 'x', 'x')`,
          [rule.id],
        ),
      ).rejects.toMatchObject({ code: '23514' });
      await expect(
        db.query(`UPDATE issuance.policy_rules SET severity = 'Info' WHERE id = $1`, [rule.id]),
      ).rejects.toMatchObject({ code: '23514' });
    });
  });

  describe('evaluation', () => {
    // The rules of this block: created first, then certificates are created, updated and issued.
    let environments: PolicyRuleDto;
    let metadata: PolicyRuleDto;
    let lifetime: PolicyRuleDto;
    let malformed: PolicyRuleDto;
    let issuers: PolicyRuleDto;

    beforeAll(async () => {
      // Rules of the CRUD block stay; disable them so they do not add findings here.
      await db.query('UPDATE issuance.policy_rules SET enabled = false');
      environments = await createRule({
        type: 'AllowedEnvironments',
        severity: 'Critical',
        config: { allowed: ['production'] },
      });
      metadata = await createRule({
        type: 'RequiredMetadata',
        severity: 'Error',
        config: { required_keys: ['owner_email'] },
      });
      lifetime = await createRule({ type: 'CertificateLifetime', config: { max_days: 7 } });
      // Config given as a string of JSON text that does not parse: stored, reported, skipped.
      malformed = await createRule({ type: 'AllowedIssuers', severity: 'Critical', config: '{"allowed": [' });
      issuers = await createRule({
        type: 'AllowedIssuers',
        severity: 'Error',
        config: { allowed: ['iss-other'] },
      });
    });

    it('returns the malformed config as given, with the reason it is skipped', () => {
      expect(malformed.config).toBe('{"allowed": [');
      expect(malformed.config_error).toMatch(/not valid JSON/);
    });

    it('records violations on create and issuance with the rule severity, skipping only the malformed rule', async () => {
      const created = await call('POST', '/api/v1/certificates', {
        common_name: `${unique('app')}.example.com`,
        environment: 'staging',
      });
      expect(created.status).toBe(201);
      const certificate = created.json() as CertificateDto;
      expect(certificate.status).toBe('Active');
      const mine = async (ruleId: string) =>
        (await violations(ruleId)).filter((v) => v.certificate_id === certificate.id);
      expect(await mine(environments.id)).toEqual([
        expect.objectContaining({
          rule_type: 'AllowedEnvironments',
          severity: 'Critical',
          code: 'environment_not_allowed',
        }),
      ]);
      expect(await mine(metadata.id)).toEqual([
        expect.objectContaining({ severity: 'Error', code: 'metadata_missing' }),
      ]);
      // The version stored by the server-mode issuance is longer than 7 days.
      expect(await mine(lifetime.id)).toEqual([
        expect.objectContaining({ severity: 'Warning', code: 'lifetime_exceeded' }),
      ]);
      expect(await mine(issuers.id)).toEqual([expect.objectContaining({ code: 'issuer_not_allowed' })]);
      expect(await mine(malformed.id)).toEqual([]);
    });

    it('summarises the open violations of every rule: as many as the rules list, by severity, rules and certificates', async () => {
      const rules = (await call('GET', '/api/v1/policies?per_page=500')).json() as Page<PolicyRuleDto>;
      // The sweep that follows rule changes may still be adding violations for the earlier tests'
      // certificates: the summary must match the lists once a read of both sees the same state.
      const listAll = async () => (await Promise.all(rules.data.map((rule) => violations(rule.id)))).flat();
      const expectedSummary = (open: Awaited<ReturnType<typeof listAll>>) => {
        const bySeverity = (severity: string) => open.filter((v) => v.severity === severity).length;
        return {
          open: open.length,
          by_severity: {
            Warning: bySeverity('Warning'),
            Error: bySeverity('Error'),
            Critical: bySeverity('Critical'),
          },
          rules: new Set(open.map((v) => v.rule_id)).size,
          certificates: new Set(open.map((v) => v.certificate_id)).size,
        };
      };
      let open: Awaited<ReturnType<typeof listAll>> = [];
      let summary: { status: number; json: () => unknown } | undefined;
      await eventually(async () => {
        open = await listAll();
        summary = await call('GET', '/api/v1/policies/violations/summary');
        const answered = summary.json() as Record<string, unknown>;
        return (
          JSON.stringify(expectedSummary(await listAll())) === JSON.stringify(expectedSummary(open)) &&
          answered.open === open.length
        );
      }, 'the lists and the summary to read the same state');
      expect(open.length).toBeGreaterThan(0);
      expect(summary!.status).toBe(200);
      expect(summary!.json()).toMatchObject(expectedSummary(open));
    });

    it('re-evaluates on update: a fixed certificate loses the violation, a rule severity change follows', async () => {
      const created = (
        await call('POST', '/api/v1/certificates', {
          common_name: `${unique('upd')}.example.com`,
          environment: 'staging',
        })
      ).json() as CertificateDto;
      const mine = async (ruleId: string) =>
        (await violations(ruleId)).filter((v) => v.certificate_id === created.id);
      expect(await mine(metadata.id)).toHaveLength(1);
      const updated = await call('PUT', `/api/v1/certificates/${created.id}`, {
        environment: 'production',
        tags: { owner_email: 'ops@example.com' },
      });
      expect(updated.status).toBe(200);
      expect(await mine(metadata.id)).toEqual([]);
      expect(await mine(environments.id)).toEqual([]);
      // Another violation stays open and follows its rule's severity.
      expect((await mine(issuers.id))[0]).toMatchObject({ severity: 'Error' });
      await call('PUT', `/api/v1/policies/${issuers.id}`, { severity: 'Warning' });
      expect((await mine(issuers.id))[0]).toMatchObject({ severity: 'Warning' });
      await call('PUT', `/api/v1/policies/${issuers.id}`, { severity: 'Error' });
    });

    it('raises no violation on revoked, archived or expired certificates, and resolves their open ones', async () => {
      const flagged = async () => {
        const created = (
          await call('POST', '/api/v1/certificates', {
            common_name: `${unique('retired')}.example.com`,
            environment: 'staging',
          })
        ).json() as CertificateDto;
        const mine = async () =>
          (await violations(environments.id)).filter((v) => v.certificate_id === created.id);
        expect(await mine()).toHaveLength(1);
        return { id: created.id, mine };
      };
      // Updates re-evaluate: a change that would still break the rule raises nothing any more.
      const reevaluate = async (id: string) =>
        expect((await call('PUT', `/api/v1/certificates/${id}`, { environment: 'qa' })).status).toBe(200);

      const archived = await flagged();
      expect((await call('DELETE', `/api/v1/certificates/${archived.id}`)).status).toBe(204);
      expect(await archived.mine()).toEqual([]);

      const revoked = await flagged();
      expect((await call('POST', `/api/v1/certificates/${revoked.id}/revoke`, {})).status).toBe(200);
      await reevaluate(revoked.id);
      expect(await revoked.mine()).toEqual([]);

      const expired = await flagged();
      await db.query(`UPDATE issuance.certificates SET status = 'Expired' WHERE id = $1`, [expired.id]);
      await reevaluate(expired.id);
      expect(await expired.mine()).toEqual([]);
    });

    it('reports the missing-field violation for an empty config', async () => {
      const empty = await createRule({ type: 'RenewalLeadTime', severity: 'Error', config: {} });
      const created = (
        await call('POST', '/api/v1/certificates', { common_name: `${unique('empty')}.example.com` })
      ).json() as CertificateDto;
      expect((await violations(empty.id)).filter((v) => v.certificate_id === created.id)).toEqual([
        expect.objectContaining({ code: 'lead_time_days_missing', severity: 'Error' }),
      ]);
      await call('PUT', `/api/v1/policies/${empty.id}`, { enabled: false });
      expect(await violations(empty.id)).toEqual([]);
    });

    it('an evaluation racing a rule being disabled writes no violation for the disabled rule', async () => {
      const rule = await createRule({ type: 'RenewalLeadTime', severity: 'Error', config: {} });
      // Disable the rule in a transaction held open, as the update route does (rule row, then its
      // violations), while a certificate create evaluates every enabled rule.
      const disabler = new Client({ connectionString: system.database.url });
      await disabler.connect();
      try {
        await disabler.query('BEGIN');
        await disabler.query('UPDATE issuance.policy_rules SET enabled = false WHERE id = $1', [rule.id]);
        await disabler.query(
          'UPDATE issuance.policy_violations SET resolved_at = now() WHERE rule_id = $1 AND resolved_at IS NULL',
          [rule.id],
        );
        let createDone = false;
        const create = call('POST', '/api/v1/certificates', {
          common_name: `${unique('race')}.example.com`,
        }).finally(() => (createDone = true));
        await eventually(async () => {
          if (createDone) return true;
          const waiting = await db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%policy_rules%'`,
          );
          return waiting.rows[0].n > 0;
        }, 'the create to evaluate the rules (or to wait for the disabling transaction)');
        await disabler.query('COMMIT');
        const created = (await create).json() as CertificateDto;
        expect(created.id).toMatch(/^mc-/);
        expect((await violations(rule.id)).filter((v) => v.certificate_id === created.id)).toEqual([]);
      } finally {
        await disabler.end();
      }
    });

    it('the periodic and on-change sweep evaluates certificates that existed before the rule', async () => {
      const created = (
        await call('POST', '/api/v1/certificates', { common_name: `${unique('pre')}.example.org` })
      ).json() as CertificateDto;
      const domains = await createRule({ type: 'AllowedDomains', config: { allowed: ['example.com'] } });
      await eventually(
        async () => (await violations(domains.id)).some((v) => v.certificate_id === created.id),
        'the sweep to flag a certificate created before the rule',
      );
      await call('DELETE', `/api/v1/policies/${domains.id}`);
    });

    it('dry run: evaluates a proposed certificate against every enabled rule and stores nothing', async () => {
      const before = await openViolationCount();
      const response = await call('POST', '/api/v1/policies/evaluate', {
        common_name: 'proposed.example.com',
        environment: 'dev',
        tags: { owner_email: 'a@example.com' },
        validity_days: 30,
      });
      expect(response.status).toBe(200);
      const result = response.json() as PolicyEvaluationResult;
      const byRule = Object.fromEntries(result.violations.map((v) => [v.rule_id, v]));
      expect(byRule[environments.id]).toMatchObject({
        severity: 'Critical',
        code: 'environment_not_allowed',
      });
      expect(byRule[lifetime.id]).toMatchObject({ severity: 'Warning', code: 'lifetime_exceeded' });
      expect(byRule[issuers.id]).toMatchObject({ code: 'issuer_not_allowed' });
      expect(byRule[metadata.id]).toBeUndefined();
      expect(result.skipped_rules).toEqual([
        { rule_id: malformed.id, reason: expect.stringMatching(/JSON/) },
      ]);
      expect(await openViolationCount()).toBe(before);
      const bad = await call('POST', '/api/v1/policies/evaluate', {
        common_name: 'x',
        renewal_policy_id: 'rp-nope',
      });
      expect(bad.status).toBe(400);
      expect((await call('POST', '/api/v1/policies/evaluate', { environment: 'dev' })).status).toBe(400);
    });
  });

  it('refuses to delete a renewal policy certificates use (409 renewal_policy_in_use)', async () => {
    const policy = (
      await call('POST', '/api/v1/renewal-policies', { name: unique('Used'), max_retries: 1 })
    ).json() as { id: string };
    expect(
      (
        await call('POST', '/api/v1/certificates', {
          common_name: 'used.example.com',
          renewal_policy_id: policy.id,
        })
      ).status,
    ).toBe(201);
    const refused = await call('DELETE', `/api/v1/renewal-policies/${policy.id}`);
    expect(refused.status).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'renewal_policy_in_use' });
  });
});
