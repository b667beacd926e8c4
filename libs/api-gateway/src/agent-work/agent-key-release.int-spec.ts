import { spawnSync } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentCertificateDto, AgentKeyDto, AuditEventDto, CertificateDto } from '@certlane/contracts';
import { generateRecipientKey, unwrapPrivateKey } from '@certlane/pki';
import {
  eventually,
  httpsRequest,
  HttpsResult,
  recordSecrets,
  startTestSystem,
  TestSystem,
} from '@certlane/testing';
import { decodeProtectedHeader } from 'jose';

const AGENT_A = 'kr-agent-a';
const AGENT_B = 'kr-agent-b';

interface ErrorBody {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * Release of server-generated keys to agents (ADR 0033), in SERVICE_KEYGEN_MODE=server, through
 * the gateway over HTTPS with the real auth, issuance, revocation and gateway processes. The test
 * acts as the agent: it makes an ephemeral P-256 key per fetch, sends its public half, and opens
 * the JWE. Every unwrapped key is registered with the suite's secret scan, which fails the run if
 * one appears in any response body read.
 */
describe('agent key release (server key generation)', () => {
  let system: TestSystem;
  let dir: string;
  let admin: string;
  const keys: Record<string, string> = {};
  const released: string[] = [];

  const api = (key: string, method: string, path: string, body?: unknown): Promise<HttpsResult> =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const asAdmin = (method: string, path: string, body?: unknown) => api(admin, method, path, body);
  const json = <T>(response: HttpsResult) => response.json() as T;

  const leafOf = async (certificateId: string, versionId?: string) => {
    const query = versionId ? `?version_id=${versionId}` : '';
    const response = await api(
      keys[AGENT_A],
      'GET',
      `/api/v1/agents/${AGENT_A}/certificates/${certificateId}${query}`,
    );
    expect(response.status).toBe(200);
    return json<AgentCertificateDto>(response);
  };

  /** Fetches a key as agent A with a fresh ephemeral key; returns the response and the opened key. */
  async function fetchKey(certificateId: string, versionId?: string) {
    const recipient = await generateRecipientKey();
    const response = await api(
      keys[AGENT_A],
      'POST',
      `/api/v1/agents/${AGENT_A}/certificates/${certificateId}/key`,
      {
        recipient_public_jwk: recipient.publicJwk,
        ...(versionId ? { version_id: versionId } : {}),
      },
    );
    return { response, recipient };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-key-release-'));
    system = await startTestSystem('keyrelease', ['auth', 'issuance', 'revocation', 'api-gateway'], {
      SERVICE_KEYGEN_MODE: 'server',
    });
    admin = system.env.SERVICE_AUTH_SECRET!;
    for (const agent of [AGENT_A, AGENT_B]) {
      const minted = await asAdmin('POST', '/api/v1/auth/api-keys', {
        name: `key-${agent}`,
        actor_id: `agent.${agent}`,
        role_ids: ['r-agent'],
      });
      expect(minted.status).toBe(201);
      keys[agent] = json<{ key: string }>(minted).key;
    }
    const created = await asAdmin('POST', '/api/v1/certificates', {
      id: 'kr-web',
      common_name: 'kr.example.com',
      key_algorithm: 'ECDSA-P256',
      agent_id: AGENT_A,
    });
    expect(created.status).toBe(201);
    expect(json<CertificateDto>(created).status).toBe('Active');
  }, 90_000);

  afterAll(async () => {
    recordSecrets('released server-generated keys', released);
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers a JWE (ECDH-ES+A256KW, A256GCM) that opens to the key of the certificate, never the plaintext', async () => {
    const { response, recipient } = await fetchKey('kr-web');
    expect(response.status).toBe(200);
    expect(response.text).not.toContain('PRIVATE KEY');
    const body = json<AgentKeyDto>(response);
    const certificate = await leafOf('kr-web');
    expect(body).toEqual({
      certificate_id: 'kr-web',
      version_id: certificate.version_id,
      private_key_jwe: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+$/),
    });
    expect(decodeProtectedHeader(body.private_key_jwe)).toMatchObject({
      alg: 'ECDH-ES+A256KW',
      enc: 'A256GCM',
      kid: `kr-web/${certificate.version_id}`,
      certificate_id: 'kr-web',
      version_id: certificate.version_id,
    });
    const pem = await unwrapPrivateKey(
      body.private_key_jwe,
      recipient.privateKey,
      { certificateId: 'kr-web', versionId: certificate.version_id },
      certificate.leaf_pem,
    );
    released.push(pem);
    expect(new X509Certificate(certificate.leaf_pem).checkPrivateKey(createPrivateKey(pem))).toBe(true);
  });

  it('writes one certificate.key_released audit record naming certificate, version and agent, not the key', async () => {
    const { response } = await fetchKey('kr-web');
    expect(response.status).toBe(200);
    const { version_id } = json<AgentKeyDto>(response);
    let events: AuditEventDto[] = [];
    await eventually(async () => {
      const listed = await asAdmin('GET', '/api/v1/audit?per_page=500&action=certificate.key_released');
      events = json<{ data: AuditEventDto[] }>(listed).data.filter((event) => event.resource_id === 'kr-web');
      return events.length >= 2;
    }, 'the key release audit records');
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({
      service: 'issuance',
      action: 'certificate.key_released',
      event_category: 'cert_lifecycle',
      actor_id: `agent.${AGENT_A}`,
      resource_type: 'certificate',
      resource_id: 'kr-web',
      outcome: 'success',
      details: expect.objectContaining({
        agent_id: AGENT_A,
        version_id,
        wrapping: 'ECDH-ES+A256KW/A256GCM',
        recipient_key_thumbprint: expect.stringMatching(/^[\w-]{43}$/),
      }),
    });
    expect(JSON.stringify(events)).not.toContain('PRIVATE KEY');
  });

  it('releases the key of a version named by version_id, and each version has its own key', async () => {
    const first = await leafOf('kr-web');
    const renewed = await asAdmin('POST', '/api/v1/certificates/kr-web/renew', {});
    expect(renewed.status).toBe(202);
    const second = await leafOf('kr-web');
    expect(second.version_id).not.toBe(first.version_id);

    const old = await fetchKey('kr-web', first.version_id);
    expect(old.response.status).toBe(200);
    const oldPem = await unwrapPrivateKey(
      json<AgentKeyDto>(old.response).private_key_jwe,
      old.recipient.privateKey,
      { certificateId: 'kr-web', versionId: first.version_id },
      first.leaf_pem,
    );
    const current = await fetchKey('kr-web');
    expect(json<AgentKeyDto>(current.response).version_id).toBe(second.version_id);
    const currentPem = await unwrapPrivateKey(
      json<AgentKeyDto>(current.response).private_key_jwe,
      current.recipient.privateKey,
      { certificateId: 'kr-web', versionId: second.version_id },
      second.leaf_pem,
    );
    released.push(oldPem, currentPem);
    expect(currentPem).not.toBe(oldPem);
  });

  it("refuses another agent's key on the agent's path (403) and hides the certificate on its own (404)", async () => {
    const { publicJwk } = await generateRecipientKey();
    const forbidden = await api(keys[AGENT_B], 'POST', `/api/v1/agents/${AGENT_A}/certificates/kr-web/key`, {
      recipient_public_jwk: publicJwk,
    });
    expect(forbidden.status).toBe(403);
    expect(json<ErrorBody>(forbidden).code).toBe('forbidden');
    const hidden = await api(keys[AGENT_B], 'POST', `/api/v1/agents/${AGENT_B}/certificates/kr-web/key`, {
      recipient_public_jwk: publicJwk,
    });
    expect(hidden.status).toBe(404);
    expect(json<ErrorBody>(hidden).code).toBe('certificate_not_found');
  });

  it('releases a key to another agent only while it holds an open job on the certificate (a finished one gives no key)', async () => {
    const { Client } = await import('pg');
    const db = new Client({ connectionString: system.database.url });
    await db.connect();
    const asB = async () => {
      const { publicJwk } = await generateRecipientKey();
      return api(keys[AGENT_B], 'POST', `/api/v1/agents/${AGENT_B}/certificates/kr-web/key`, {
        recipient_public_jwk: publicJwk,
      });
    };
    try {
      // A deployment of kr-web to a target of agent B (ADR 0042: the job is the target's agent's).
      await db.query(
        `INSERT INTO issuance.jobs (id, type, status, certificate_id, agent_id) VALUES ('kr-job-b', 'Deployment', 'Running', 'kr-web', $1)`,
        [AGENT_B],
      );
      const during = await asB();
      expect(during.status).toBe(200);
      await db.query(`UPDATE issuance.jobs SET status = 'Completed' WHERE id = 'kr-job-b'`);
      const after = await asB();
      expect([after.status, json<ErrorBody>(after).code]).toEqual([404, 'certificate_not_found']);
      // The certificate itself (public) stays readable through the finished job.
      const leaf = await api(keys[AGENT_B], 'GET', `/api/v1/agents/${AGENT_B}/certificates/kr-web`);
      expect(leaf.status).toBe(200);
    } finally {
      await db.end();
    }
  });

  it('answers 404 certificate_key_not_found for a version whose key the service does not hold', async () => {
    // An imported certificate: its key was never on the server (as in agent key generation).
    const made = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        'imported.key',
        '-out',
        'imported.crt',
        '-subj',
        '/CN=kr-imported.example.com',
        '-days',
        '30',
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(made.status).toBe(0);
    released.push(readFileSync(join(dir, 'imported.key'), 'utf8'));
    const imported = await asAdmin('POST', '/api/v1/certificates', {
      id: 'kr-imported',
      common_name: 'kr-imported.example.com',
      agent_id: AGENT_A,
      certificate_pem: readFileSync(join(dir, 'imported.crt'), 'utf8'),
    });
    expect(imported.status).toBe(201);
    const { response } = await fetchKey('kr-imported');
    expect(response.status).toBe(404);
    expect(json<ErrorBody>(response)).toMatchObject({
      code: 'certificate_key_not_found',
      details: { certificate_id: 'kr-imported', version_id: expect.stringMatching(/^ver-/) },
    });
  });

  it('answers 404 for an unknown certificate or version', async () => {
    expect(json<ErrorBody>((await fetchKey('kr-nope')).response).code).toBe('certificate_not_found');
    const unknownVersion = await fetchKey('kr-web', 'ver-nope');
    expect(unknownVersion.response.status).toBe(404);
    expect(json<ErrorBody>(unknownVersion.response).code).toBe('certificate_version_not_found');
  });

  it.each([
    ['no recipient key', {}, 'recipient_public_jwk is required'],
    [
      'a private JWK',
      {
        recipient_public_jwk: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
          format: 'jwk',
        }),
      },
      'recipient_public_jwk must be a public key: it carries private member d',
    ],
    [
      'a P-384 key',
      {
        recipient_public_jwk: generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({
          format: 'jwk',
        }),
      },
      'recipient_public_jwk.crv must be "P-256"',
    ],
    [
      'an RSA key',
      {
        recipient_public_jwk: generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({
          format: 'jwk',
        }),
      },
      'recipient_public_jwk.kty must be "EC"',
    ],
    [
      'a point off the curve',
      {
        recipient_public_jwk: {
          kty: 'EC',
          crv: 'P-256',
          x: Buffer.alloc(32, 1).toString('base64url'),
          y: Buffer.alloc(32, 2).toString('base64url'),
        },
      },
      'recipient_public_jwk is not a point on P-256',
    ],
    ['an unknown field', { recipient_public_jwk: {}, extra: 1 }, 'extra is not a known field'],
  ])('refuses %s with 400 validation_failed', async (_name, body, message) => {
    const response = await api(
      keys[AGENT_A],
      'POST',
      `/api/v1/agents/${AGENT_A}/certificates/kr-web/key`,
      body,
    );
    expect(response.status).toBe(400);
    const error = json<ErrorBody>(response);
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain(message);
    expect(error.details).toMatchObject({ fields: expect.arrayContaining([expect.any(Object)]) });
    expect(response.text).not.toMatch(/"d"\s*:/);
  });
});
