import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditCategory, AuditEventDto } from '@certlane/contracts';
import {
  createTlsFixture,
  eventually,
  httpsRequest,
  HttpsResult,
  signSubCaWithExternalRoot,
  startTestIdentityProvider,
  startTestSystem,
  TestIdentityProvider,
  TestSystem,
} from '@certlane/testing';
import { createCsr, generateRecipientKey, SoftwareKeyProvider } from '@certlane/pki';
import { SecretBox } from '@certlane/platform';
import { Client } from 'pg';
import { gatewayRouteTable } from '../api-gateway.module';
import { auditedRoutes, routesWithoutAuditCase } from '../routes/route-checks';

const BOOTSTRAP_TOKEN = 'bootstrap-token-for-audit-coverage-0123456789';
const ADMIN_SECRET_ACTOR = 'actor-service-auth-secret';

interface ExpectedEvent {
  service: string;
  action: string;
  event_category: AuditCategory;
  actor_id: string;
  resource_type: string;
  resource_id: string;
}

/** Sends one request as the given key (default: the SERVICE_AUTH_SECRET admin). */
type Call = (
  method: string,
  path: string,
  options?: { body?: unknown; key?: string | null; requestId?: string; session?: BrowserSession },
) => Promise<HttpsResult>;

/**
 * How to exercise one mutating route: set up what it needs (with other request ids), then make
 * the call under test with `requestId`, and say which audit event it must write.
 */
type RouteCase = (
  call: Call,
  requestId: string,
) => Promise<{ response: HttpsResult; expected: ExpectedEvent }>;

/** A break-glass login's cookies and CSRF token, for calls authenticated by the session. */
interface BrowserSession {
  id: string;
  cookie: string;
  csrf: string;
}

const BREAKGLASS_PASSWORD = 'correct horse battery staple 42';

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;
const json = <T>(response: HttpsResult) => response.json() as T;

const authEvent = (action: string, resource_type: string, resource_id: string): ExpectedEvent => ({
  service: 'auth',
  action,
  event_category: 'auth',
  actor_id: ADMIN_SECRET_ACTOR,
  resource_type,
  resource_id,
});
const policyEvent = (action: string, resource_id: string): ExpectedEvent => ({
  service: 'issuance',
  action,
  event_category: 'config',
  actor_id: ADMIN_SECRET_ACTOR,
  resource_type: 'renewal_policy',
  resource_id,
});

const policyRuleEvent = (action: string, resource_id: string): ExpectedEvent => ({
  service: 'issuance',
  action,
  event_category: 'config',
  actor_id: ADMIN_SECRET_ACTOR,
  resource_type: 'policy',
  resource_id,
});

async function createPolicyRule(call: Call): Promise<string> {
  const created = await call('POST', '/api/v1/policies', {
    body: { name: unique('Setup rule'), type: 'AllowedEnvironments', config: { allowed: ['production'] } },
  });
  expect(created.status).toBe(201);
  return json<{ id: string }>(created).id;
}

const issuerEvent = (action: string, resource_id: string, resource_type = 'issuer'): ExpectedEvent => ({
  service: 'issuance',
  action,
  event_category: 'config',
  actor_id: ADMIN_SECRET_ACTOR,
  resource_type,
  resource_id,
});

/** An issuer of a type that holds no CA (so it can be deleted). */
async function createVaultIssuer(call: Call): Promise<string> {
  const created = await call('POST', '/api/v1/issuers', {
    body: {
      name: unique('Setup vault'),
      type: 'vault_pki',
      config: { address: 'https://vault.example.com', mount: 'pki', role: 'web', token: 's.setup-token' },
    },
  });
  expect(created.status).toBe(201);
  return json<{ id: string }>(created).id;
}

async function createCa(
  call: Call,
  body: Record<string, unknown> = {},
): Promise<{ id: string; csr_pem: string | null }> {
  const created = await call('POST', '/api/v1/intermediate-cas', {
    body: { issuer_id: 'iss-local', common_name: unique('Setup CA'), ...body },
  });
  expect(created.status).toBe(201);
  return json(created);
}

async function createKey(call: Call): Promise<{ id: string; actor_id: string }> {
  const created = await call('POST', '/api/v1/auth/api-keys', { body: { name: unique('setup-key') } });
  expect(created.status).toBe(201);
  return json(created);
}

async function createRole(call: Call): Promise<string> {
  const id = unique('r-setup');
  const created = await call('POST', '/api/v1/auth/roles', { body: { id, permissions: ['audit.read'] } });
  expect(created.status).toBe(201);
  return id;
}

async function createPolicy(call: Call): Promise<string> {
  const created = await call('POST', '/api/v1/renewal-policies', {
    body: { name: unique('Setup policy'), max_retries: 1 },
  });
  expect(created.status).toBe(201);
  return json<{ id: string }>(created).id;
}

async function breakGlassActor(call: Call): Promise<string> {
  const actorId = unique('bg');
  const set = await call('POST', '/api/v1/auth/breakglass/credentials', {
    body: { actor_id: actorId, password: BREAKGLASS_PASSWORD },
  });
  expect(set.status).toBe(201);
  return actorId;
}

/** Logs in with break-glass and returns the session (the cookies of the response). */
async function browserSession(call: Call): Promise<BrowserSession & { actorId: string }> {
  const actorId = await breakGlassActor(call);
  const login = await call('POST', '/auth/breakglass/login', {
    key: null,
    body: { actor_id: actorId, password: BREAKGLASS_PASSWORD },
  });
  expect(login.status).toBe(200);
  const cookies = ([] as string[]).concat(login.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]);
  const body = json<{ session_id: string; csrf_token: string }>(login);
  return { actorId, id: body.session_id, cookie: cookies.join('; '), csrf: body.csrf_token };
}

const bulkEvent = (action: string): ExpectedEvent => ({
  service: 'issuance',
  action,
  event_category: 'cert_lifecycle',
  actor_id: ADMIN_SECRET_ACTOR,
  resource_type: 'certificate',
  resource_id: 'bulk',
});
/** The database, for cases that need rows no route creates yet (set in beforeAll). */
const sqlForCases: { db?: Client } = {};

// ---- certificates and jobs (ADR 0024) ----
/** Set in beforeAll: approval gates arrive with governance, so an awaiting job is inserted directly. */
const lifecycleDatabase = { url: '' };
const lifecycleEvent = (
  action: string,
  resource_type: 'certificate' | 'job',
  resource_id: string,
): ExpectedEvent => ({
  service: 'issuance',
  action,
  event_category: 'cert_lifecycle',
  actor_id: ADMIN_SECRET_ACTOR,
  resource_type,
  resource_id,
});

/** A managed certificate; with `issued`, version 1 is an imported certificate (the local issuing CA's). */
async function createManagedCertificate(call: Call, issued = false): Promise<string> {
  const id = unique('mc-audit');
  const certificatePem = issued
    ? json<{ certificate_pem: string }>(await call('GET', '/api/v1/intermediate-cas/ca-local-issuing-1'))
        .certificate_pem
    : undefined;
  const created = await call('POST', '/api/v1/certificates', {
    body: {
      id,
      common_name: `${id}.example.com`,
      agent_id: 'audit-agent',
      ...(certificatePem ? { certificate_pem: certificatePem } : {}),
    },
  });
  expect(created.status).toBe(201);
  return id;
}

async function firstJobOf(call: Call, certificateId: string): Promise<string> {
  return json<{ data: { id: string }[] }>(await call('GET', `/api/v1/jobs?certificate_id=${certificateId}`))
    .data[0].id;
}

async function jobAwaitingApproval(call: Call): Promise<string> {
  const certificateId = await createManagedCertificate(call);
  const db = new Client({ connectionString: lifecycleDatabase.url });
  await db.connect();
  try {
    const id = unique('job-awaiting');
    await db.query(
      `INSERT INTO issuance.jobs (id, type, status, certificate_id) VALUES ($1, 'Deployment', 'AwaitingApproval', $2)`,
      [id, certificateId],
    );
    return id;
  } finally {
    await db.end();
  }
}

const LIFECYCLE_ROUTE_CASES: Record<string, RouteCase> = {
  'POST /api/v1/certificates': async (call, requestId) => {
    const id = unique('mc-created');
    const response = await call('POST', '/api/v1/certificates', {
      requestId,
      body: { id, common_name: 'created.example.com', agent_id: 'audit-agent' },
    });
    return { response, expected: lifecycleEvent('certificate.created', 'certificate', id) };
  },
  'PUT /api/v1/certificates/:id': async (call, requestId) => {
    const id = await createManagedCertificate(call);
    const response = await call('PUT', `/api/v1/certificates/${id}`, {
      requestId,
      body: { environment: 'prod' },
    });
    return { response, expected: lifecycleEvent('certificate.updated', 'certificate', id) };
  },
  'DELETE /api/v1/certificates/:id': async (call, requestId) => {
    const id = await createManagedCertificate(call);
    const response = await call('DELETE', `/api/v1/certificates/${id}`, { requestId });
    return { response, expected: lifecycleEvent('certificate.archived', 'certificate', id) };
  },
  'POST /api/v1/certificates/:id/renew': async (call, requestId) => {
    const id = await createManagedCertificate(call, true);
    const response = await call('POST', `/api/v1/certificates/${id}/renew`, { requestId });
    return { response, expected: lifecycleEvent('certificate.renewal_requested', 'certificate', id) };
  },
  'POST /api/v1/certificates/:id/deploy': async (call, requestId) => {
    const id = await createManagedCertificate(call, true);
    const response = await call('POST', `/api/v1/certificates/${id}/deploy`, {
      requestId,
      body: { target_id: await createTarget(call) },
    });
    return { response, expected: lifecycleEvent('certificate.deploy_requested', 'certificate', id) };
  },
  'POST /api/v1/certificates/:id/revoke': async (call, requestId) => {
    const id = await createManagedCertificate(call, true);
    const response = await call('POST', `/api/v1/certificates/${id}/revoke`, {
      requestId,
      body: { reason: 'superseded' },
    });
    return { response, expected: lifecycleEvent('certificate.revoked', 'certificate', id) };
  },
  'POST /api/v1/certificates/:id/export/pkcs12': async (call, requestId) => {
    const id = await createManagedCertificate(call, true);
    const response = await call('POST', `/api/v1/certificates/${id}/export/pkcs12`, { requestId, body: {} });
    return { response, expected: lifecycleEvent('certificate.exported', 'certificate', id) };
  },
  'POST /api/v1/jobs/:id/cancel': async (call, requestId) => {
    const job = await firstJobOf(call, await createManagedCertificate(call));
    const response = await call('POST', `/api/v1/jobs/${job}/cancel`, { requestId });
    return { response, expected: lifecycleEvent('job.cancelled', 'job', job) };
  },
  'POST /api/v1/jobs/:id/approve': async (call, requestId) => {
    const job = await jobAwaitingApproval(call);
    const response = await call('POST', `/api/v1/jobs/${job}/approve`, { requestId });
    return { response, expected: lifecycleEvent('job.approved', 'job', job) };
  },
  'POST /api/v1/jobs/:id/reject': async (call, requestId) => {
    const job = await jobAwaitingApproval(call);
    const response = await call('POST', `/api/v1/jobs/${job}/reject`, { requestId, body: { reason: 'no' } });
    return { response, expected: lifecycleEvent('job.rejected', 'job', job) };
  },
  'POST /api/v1/jobs/:id/verify': async (call, requestId) => {
    const id = await createManagedCertificate(call, true);
    const deployed = await call('POST', `/api/v1/certificates/${id}/deploy`);
    const job = json<{ job_id: string }>(deployed).job_id;
    // Nothing listens on port 1: the check is recorded as unreachable, and audited.
    const response = await call('POST', `/api/v1/jobs/${job}/verify`, {
      requestId,
      body: { endpoint: '127.0.0.1:1' },
    });
    return { response, expected: lifecycleEvent('job.verified', 'job', job) };
  },
};
// ---- end certificates and jobs ----

// ---- agent work protocol (ADR 0027) ----
/** A certificate of agent `audit-agent` (imported, so it has a version, when `issued`). */
async function createAgentCertificate(call: Call, issued: boolean): Promise<string> {
  const id = unique('mc-agent');
  const certificatePem = issued
    ? json<{ certificate_pem: string }>(await call('GET', '/api/v1/intermediate-cas/ca-local-issuing-1'))
        .certificate_pem
    : undefined;
  const created = await call('POST', '/api/v1/certificates', {
    body: {
      id,
      common_name: `${id}.example.com`,
      agent_id: 'audit-agent',
      ...(certificatePem ? { certificate_pem: certificatePem } : {}),
    },
  });
  expect(created.status).toBe(201);
  return id;
}

/** SERVICE_CONFIG_ENCRYPTION_KEY of the system, to seal a server-held key as the issuance service does. */
// ---- OIDC (ADR 0081): a real OpenID Provider, started in beforeAll ----
const oidcFixture: { idp?: TestIdentityProvider; gateway: string; ca: string } = { gateway: '', ca: '' };
const OIDC_CLIENT_ID = 'audit-coverage';

/** A provider of its own client id: one provider per client of an issuer (ADR 0081 amendment). */
async function oidcProvider(call: Call, clientId = unique('client')): Promise<string> {
  const created = await call('POST', '/api/v1/auth/oidc/providers', {
    body: {
      name: unique('idp'),
      issuer: oidcFixture.idp!.issuer,
      client_id: clientId,
      redirect_uri: `${oidcFixture.gateway}/auth/oidc/callback`,
    },
  });
  expect(created.status).toBe(201);
  return json<{ id: string }>(created).id;
}

const OIDC_ROUTE_CASES: Record<string, RouteCase> = {
  'POST /api/v1/auth/oidc/providers': async (call, requestId) => {
    const response = await call('POST', '/api/v1/auth/oidc/providers', {
      requestId,
      body: {
        name: unique('idp'),
        issuer: oidcFixture.idp!.issuer,
        client_id: unique('client'),
        client_secret: 'audited-client-secret-0001',
        redirect_uri: `${oidcFixture.gateway}/auth/oidc/callback`,
      },
    });
    const id = response.status === 201 ? json<{ id: string }>(response).id : 'none';
    return { response, expected: authEvent('auth.oidc_provider_created', 'oidc_provider', id) };
  },
  'PUT /api/v1/auth/oidc/providers/:id': async (call, requestId) => {
    const id = await oidcProvider(call);
    const response = await call('PUT', `/api/v1/auth/oidc/providers/${id}`, {
      requestId,
      body: { group_claim: 'roles' },
    });
    return { response, expected: authEvent('auth.oidc_provider_updated', 'oidc_provider', id) };
  },
  'DELETE /api/v1/auth/oidc/providers/:id': async (call, requestId) => {
    const id = await oidcProvider(call);
    const response = await call('DELETE', `/api/v1/auth/oidc/providers/${id}`, { requestId });
    return { response, expected: authEvent('auth.oidc_provider_deleted', 'oidc_provider', id) };
  },
  'POST /api/v1/auth/oidc/providers/:id/refresh': async (call, requestId) => {
    const id = await oidcProvider(call);
    const response = await call('POST', `/api/v1/auth/oidc/providers/${id}/refresh`, { requestId });
    return { response, expected: authEvent('auth.oidc_provider_refreshed', 'oidc_provider', id) };
  },
  'POST /api/v1/auth/oidc/group-mappings': async (call, requestId) => {
    const providerId = await oidcProvider(call);
    const response = await call('POST', '/api/v1/auth/oidc/group-mappings', {
      requestId,
      body: { provider_id: providerId, group: 'auditors', role_id: 'r-auditor' },
    });
    const id = response.status === 201 ? json<{ id: string }>(response).id : 'none';
    return { response, expected: authEvent('auth.group_mapping_added', 'oidc_group_mapping', id) };
  },
  'DELETE /api/v1/auth/oidc/group-mappings/:id': async (call, requestId) => {
    const providerId = await oidcProvider(call);
    const created = await call('POST', '/api/v1/auth/oidc/group-mappings', {
      body: { provider_id: providerId, group: 'auditors', role_id: 'r-auditor' },
    });
    const id = json<{ id: string }>(created).id;
    const response = await call('DELETE', `/api/v1/auth/oidc/group-mappings/${id}`, { requestId });
    return { response, expected: authEvent('auth.group_mapping_removed', 'oidc_group_mapping', id) };
  },
  'POST /auth/oidc/back-channel-logout': async (call, requestId) => {
    // Its own client id: the token's audience then names this provider alone.
    const clientId = unique('bcl');
    const providerId = await oidcProvider(call, clientId);
    const token = await oidcFixture.idp!.sign({
      iss: oidcFixture.idp!.issuer,
      aud: clientId,
      iat: Math.floor(Date.now() / 1000),
      jti: randomUUID(),
      sub: unique('someone'),
      events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
    });
    const response = await httpsRequest(`${oidcFixture.gateway}/auth/oidc/back-channel-logout`, {
      method: 'POST',
      ca: oidcFixture.ca,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-request-id': requestId },
      body: new URLSearchParams({ logout_token: token }).toString(),
    });
    return {
      response,
      expected: {
        ...authEvent('auth.oidc_back_channel_logout', 'oidc_provider', providerId),
        actor_id: 'system',
      },
    };
  },
};

const keySealing = { secret: '' };

const AGENT_WORK_ROUTE_CASES: Record<string, RouteCase> = {
  // The system runs in agent key generation, so the server-held key a release needs is sealed
  // and stored here the way SERVICE_KEYGEN_MODE=server stores it (ADR 0024, 0033).
  'POST /api/v1/agents/:id/certificates/:certId/key': async (call, requestId) => {
    const id = await createAgentCertificate(call, true);
    const versionId = json<{ current_version_id: string }>(
      await call('GET', `/api/v1/certificates/${id}`),
    ).current_version_id;
    const { signer } = await new SoftwareKeyProvider().generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const box = new SecretBox(keySealing.secret, 'issuance certificate private key v1');
    await sqlForCases.db!.query(
      'INSERT INTO issuance.certificate_keys (version_id, certificate_id, private_key_sealed) VALUES ($1, $2, $3)',
      [versionId, id, box.seal(signer.exportPkcs8(), versionId)],
    );
    const { publicJwk } = await generateRecipientKey();
    const response = await call('POST', `/api/v1/agents/audit-agent/certificates/${id}/key`, {
      requestId,
      body: { recipient_public_jwk: publicJwk },
    });
    return { response, expected: lifecycleEvent('certificate.key_released', 'certificate', id) };
  },
  'POST /api/v1/agents/:id/csr': async (call, requestId) => {
    const id = await createAgentCertificate(call, false);
    const job = await firstJobOf(call, id);
    const { signer } = await new SoftwareKeyProvider().generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const csr = await createCsr({ subject: [['CN', `${id}.example.com`]], signer });
    const response = await call('POST', '/api/v1/agents/audit-agent/csr', {
      requestId,
      body: { csr_pem: csr.pem, certificate_id: id },
    });
    return { response, expected: lifecycleEvent('job.csr_submitted', 'job', job) };
  },
  'POST /api/v1/agents/:id/jobs/:jobId/status': async (call, requestId) => {
    const id = await createAgentCertificate(call, true);
    const job = json<{ job_id: string }>(await call('POST', `/api/v1/certificates/${id}/deploy`)).job_id;
    const response = await call('POST', `/api/v1/agents/audit-agent/jobs/${job}/status`, {
      requestId,
      body: { status: 'Running' },
    });
    return { response, expected: lifecycleEvent('job.status_reported', 'job', job) };
  },
};
// ---- end agent work protocol ----
// ---- profiles and approvals (ADR 0025) ----
const governanceEvent = (
  action: string,
  resource_type: 'profile' | 'approval',
  resource_id: string,
  event_category: AuditCategory = 'config',
  actor_id = ADMIN_SECRET_ACTOR,
): ExpectedEvent => ({ service: 'issuance', action, event_category, actor_id, resource_type, resource_id });

async function createProfile(call: Call, body: Record<string, unknown> = {}): Promise<string> {
  const created = await call('POST', '/api/v1/profiles', {
    body: { name: unique('Setup profile'), ...body },
  });
  expect(created.status).toBe(201);
  return json<{ id: string }>(created).id;
}

/** A second operator key: approvals must be decided by someone other than the requester. */
const approver: { key?: string; actor_id?: string } = {};
async function secondApprover(call: Call): Promise<{ key: string; actor_id: string }> {
  if (!approver.key) {
    const created = await call('POST', '/api/v1/auth/api-keys', {
      body: { name: unique('approver'), role_ids: ['r-operator'] },
    });
    expect(created.status).toBe(201);
    Object.assign(approver, json<{ key: string; actor_id: string }>(created));
  }
  return approver as { key: string; actor_id: string };
}

/** A certificate under a requires-approval profile: its issuance job waits; the approval's id. */
async function pendingIssuanceApproval(call: Call): Promise<string> {
  const profileId = await createProfile(call, { requires_approval: true });
  const certificateId = unique('mc-gated');
  const created = await call('POST', '/api/v1/certificates', {
    body: {
      id: certificateId,
      common_name: `${certificateId}.example.com`,
      profile_id: profileId,
      agent_id: 'audit-agent',
    },
  });
  expect(created.status).toBe(201);
  const listed = await call(
    'GET',
    '/api/v1/approvals?status=pending&approval_kind=cert_issuance&per_page=500',
  );
  const approval = json<{ data: { id: string; certificate_id: string }[] }>(listed).data.find(
    (a) => a.certificate_id === certificateId,
  );
  if (!approval) throw new Error(`no pending approval for ${certificateId}`);
  return approval.id;
}

const PROFILE_ROUTE_CASES: Record<string, RouteCase> = {
  'POST /api/v1/profiles': async (call, requestId) => {
    const id = unique('prof-audit');
    const response = await call('POST', '/api/v1/profiles', { requestId, body: { id, name: id } });
    return { response, expected: governanceEvent('profile.created', 'profile', id) };
  },
  'PUT /api/v1/profiles/:id': async (call, requestId) => {
    const id = await createProfile(call);
    const response = await call('PUT', `/api/v1/profiles/${id}`, { requestId, body: { description: 'x' } });
    return { response, expected: governanceEvent('profile.updated', 'profile', id) };
  },
  'DELETE /api/v1/profiles/:id': async (call, requestId) => {
    const id = await createProfile(call);
    const response = await call('DELETE', `/api/v1/profiles/${id}`, { requestId });
    return { response, expected: governanceEvent('profile.deleted', 'profile', id) };
  },
  'POST /api/v1/approvals/:id/approve': async (call, requestId) => {
    const id = await pendingIssuanceApproval(call);
    const { key, actor_id } = await secondApprover(call);
    const response = await call('POST', `/api/v1/approvals/${id}/approve`, { requestId, key });
    return {
      response,
      expected: governanceEvent('approval.approved', 'approval', id, 'cert_lifecycle', actor_id),
    };
  },
  'POST /api/v1/approvals/:id/reject': async (call, requestId) => {
    const id = await pendingIssuanceApproval(call);
    const response = await call('POST', `/api/v1/approvals/${id}/reject`, {
      requestId,
      body: { reason: 'no' },
    });
    return { response, expected: governanceEvent('approval.rejected', 'approval', id, 'cert_lifecycle') };
  },
};
// ---- end profiles and approvals ----

// ---- EST profiles (ADR 0058) ----
const estEvent = (action: string, resource_type: string, resource_id: string): ExpectedEvent => ({
  service: 'protocol-frontends',
  action,
  event_category: 'config',
  actor_id: ADMIN_SECRET_ACTOR,
  resource_type,
  resource_id,
});

async function createEstProfile(call: Call): Promise<string> {
  const created = await call('POST', '/api/v1/admin/est/profiles', {
    body: {
      path_id: unique('est'),
      auth_methods: ['basic'],
      basic_username: 'device',
      basic_password: 'audit-coverage-est-password',
    },
  });
  expect(created.status).toBe(201);
  return json<{ id: string }>(created).id;
}

const EST_ROUTE_CASES: Record<string, RouteCase> = {
  'POST /api/v1/admin/est/profiles': async (call, requestId) => {
    const response = await call('POST', '/api/v1/admin/est/profiles', {
      requestId,
      body: {
        path_id: unique('est'),
        auth_methods: ['basic'],
        basic_username: 'device',
        basic_password: 'audit-coverage-est-password',
      },
    });
    return {
      response,
      expected: estEvent('est_profile.created', 'est_profile', json<{ id: string }>(response).id),
    };
  },
  'POST /api/v1/admin/est/profiles/:id': async (call, requestId) => {
    const id = await createEstProfile(call);
    const response = await call('POST', `/api/v1/admin/est/profiles/${id}`, {
      requestId,
      body: { serverkeygen_enabled: true },
    });
    return { response, expected: estEvent('est_profile.updated', 'est_profile', id) };
  },
  'POST /api/v1/admin/est/profiles/:id/delete': async (call, requestId) => {
    const id = await createEstProfile(call);
    const response = await call('POST', `/api/v1/admin/est/profiles/${id}/delete`, { requestId });
    return { response, expected: estEvent('est_profile.deleted', 'est_profile', id) };
  },
  'POST /api/v1/admin/est/reload-trust': async (call, requestId) => {
    const response = await call('POST', '/api/v1/admin/est/reload-trust', { requestId });
    return { response, expected: estEvent('est_trust_anchor_reloaded', 'est_trust', 'est_trust') };
  },
  'POST /api/v1/admin/est/key-encryption-keys': async (call, requestId) => {
    const response = await call('POST', '/api/v1/admin/est/key-encryption-keys', {
      requestId,
      body: { profile_id: await createEstProfile(call) },
    });
    return {
      response,
      expected: estEvent(
        'est_key_encryption_key.created',
        'est_key_encryption_key',
        json<{ id: string }>(response).id,
      ),
    };
  },
  'POST /api/v1/admin/est/key-encryption-keys/:id/revoke': async (call, requestId) => {
    const created = await call('POST', '/api/v1/admin/est/key-encryption-keys', {
      body: { profile_id: await createEstProfile(call) },
    });
    expect(created.status).toBe(201);
    const id = json<{ id: string }>(created).id;
    const response = await call('POST', `/api/v1/admin/est/key-encryption-keys/${id}/revoke`, { requestId });
    return { response, expected: estEvent('est_key_encryption_key.revoked', 'est_key_encryption_key', id) };
  },
};
// ---- end EST profiles ----

// ---- SCEP profiles (ADR 0059) ----
async function createScepProfile(call: Call, body: Record<string, unknown> = {}): Promise<string> {
  const created = await call('POST', '/api/v1/admin/scep/profiles', {
    body: { path_id: unique('scep'), challenge_password: 'audit-coverage-scep-challenge', ...body },
  });
  expect(created.status).toBe(201);
  return json<{ id: string }>(created).id;
}

const SCEP_ROUTE_CASES: Record<string, RouteCase> = {
  'POST /api/v1/admin/scep/profiles': async (call, requestId) => {
    const response = await call('POST', '/api/v1/admin/scep/profiles', {
      requestId,
      body: { path_id: unique('scep'), challenge_password: 'audit-coverage-scep-challenge' },
    });
    return {
      response,
      expected: estEvent('scep_profile.created', 'scep_profile', json<{ id: string }>(response).id),
    };
  },
  'POST /api/v1/admin/scep/profiles/:id': async (call, requestId) => {
    const id = await createScepProfile(call);
    const response = await call('POST', `/api/v1/admin/scep/profiles/${id}`, {
      requestId,
      body: { legacy_algorithms: true },
    });
    return { response, expected: estEvent('scep_profile.updated', 'scep_profile', id) };
  },
  'POST /api/v1/admin/scep/profiles/:id/delete': async (call, requestId) => {
    const id = await createScepProfile(call);
    const response = await call('POST', `/api/v1/admin/scep/profiles/${id}/delete`, { requestId });
    return { response, expected: estEvent('scep_profile.deleted', 'scep_profile', id) };
  },
  'POST /api/v1/admin/scep/profiles/:id/rotate-ra': async (call, requestId) => {
    const id = await createScepProfile(call);
    const response = await call('POST', `/api/v1/admin/scep/profiles/${id}/rotate-ra`, { requestId });
    return { response, expected: estEvent('scep_profile.ra_rotated', 'scep_profile', id) };
  },
  'POST /api/v1/admin/scep/mdm/reload-trust': async (call, requestId) => {
    const dir = mkdtempSync(join(tmpdir(), 'scep-mdm-'));
    const file = join(dir, 'mdm.pem');
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
        join(dir, 'mdm.key'),
        '-out',
        file,
        '-days',
        '2',
        '-subj',
        '/CN=audit coverage MDM',
      ],
      { stdio: 'ignore' },
    );
    const pathId = unique('scep');
    const id = await createScepProfile(call, {
      path_id: pathId,
      mdm_enabled: true,
      mdm_audience: 'https://scep.example.test',
      mdm_trust_path: file,
    });
    const response = await call('POST', '/api/v1/admin/scep/mdm/reload-trust', {
      requestId,
      body: { path_id: pathId },
    });
    return { response, expected: estEvent('scep_mdm_trust_reloaded', 'scep_profile', id) };
  },
};
// ---- end SCEP profiles ----

// ---- ACME operator routes (ADR 0060) ----
const acmeEvent = (
  action: string,
  event_category: AuditCategory,
  resource_type: string,
  resource_id: string,
): ExpectedEvent => ({
  service: 'protocol-frontends',
  action,
  event_category,
  actor_id: ADMIN_SECRET_ACTOR,
  resource_type,
  resource_id,
});

async function createEabKey(call: Call): Promise<string> {
  const created = await call('POST', '/api/v1/admin/acme/eab-keys', { body: { description: 'audit' } });
  expect(created.status).toBe(201);
  return json<{ id: string }>(created).id;
}

async function createAcmeProfile(call: Call): Promise<string> {
  const id = unique('acme');
  const created = await call('POST', '/api/v1/admin/acme/profiles', { body: { id } });
  expect(created.status).toBe(201);
  return id;
}

const ACME_ROUTE_CASES: Record<string, RouteCase> = {
  'POST /api/v1/admin/acme/profiles': async (call, requestId) => {
    const id = unique('acme');
    const response = await call('POST', '/api/v1/admin/acme/profiles', { requestId, body: { id } });
    return { response, expected: acmeEvent('acme_profile.created', 'config', 'acme_profile', id) };
  },
  'POST /api/v1/admin/acme/profiles/:id': async (call, requestId) => {
    const id = await createAcmeProfile(call);
    const response = await call('POST', `/api/v1/admin/acme/profiles/${id}`, {
      requestId,
      body: { allow_ip: false },
    });
    return { response, expected: acmeEvent('acme_profile.updated', 'config', 'acme_profile', id) };
  },
  'POST /api/v1/admin/acme/profiles/:id/delete': async (call, requestId) => {
    const id = await createAcmeProfile(call);
    const response = await call('POST', `/api/v1/admin/acme/profiles/${id}/delete`, { requestId });
    return { response, expected: acmeEvent('acme_profile.deleted', 'config', 'acme_profile', id) };
  },
  'POST /api/v1/admin/acme/accounts/:id/deactivate': async (call, requestId) => {
    // An account as a client's newAccount leaves it (the ACME flow itself is not a gateway route).
    const id = randomBytes(16).toString('base64url');
    await sqlForCases.db!.query(
      `INSERT INTO protocol_frontends.acme_accounts (id, jwk, jwk_thumbprint) VALUES ($1, '{}'::jsonb, $2)`,
      [id, randomBytes(32).toString('base64url')],
    );
    const response = await call('POST', `/api/v1/admin/acme/accounts/${id}/deactivate`, { requestId });
    return { response, expected: acmeEvent('acme.account_deactivated', 'auth', 'acme_account', id) };
  },
  'POST /api/v1/admin/acme/eab-keys': async (call, requestId) => {
    const response = await call('POST', '/api/v1/admin/acme/eab-keys', { requestId, body: {} });
    return {
      response,
      expected: acmeEvent(
        'acme.eab_key_created',
        'config',
        'acme_eab_key',
        json<{ id: string }>(response).id,
      ),
    };
  },
  'POST /api/v1/admin/acme/eab-keys/:id/revoke': async (call, requestId) => {
    const id = await createEabKey(call);
    const response = await call('POST', `/api/v1/admin/acme/eab-keys/${id}/revoke`, { requestId });
    return { response, expected: acmeEvent('acme.eab_key_revoked', 'config', 'acme_eab_key', id) };
  },
};
// ---- end ACME operator routes ----

// ---- ACME early renewal (RFC 9773 4.2) ----
const ACME_OPERATIONS_ROUTE_CASES: Record<string, RouteCase> = {
  'POST /api/v1/admin/acme/certificates/:id/renew-early': async (call, requestId) => {
    // A certificate as an order leaves it (the ACME flow itself is not a gateway route).
    const [account, order, id] = [0, 1, 2].map(() => randomBytes(16).toString('base64url'));
    const db = sqlForCases.db!;
    await db.query(
      `INSERT INTO protocol_frontends.acme_accounts (id, jwk, jwk_thumbprint) VALUES ($1, '{}'::jsonb, $2)`,
      [account, randomBytes(32).toString('base64url')],
    );
    await db.query(
      `INSERT INTO protocol_frontends.acme_orders (id, account_id, profile_id, status, identifiers, expires_at)
       VALUES ($1, $2, 'default', 'valid', '[{"type":"dns","value":"audit.localhost"}]', now() + interval '1 day')`,
      [order, account],
    );
    await db.query(
      `INSERT INTO protocol_frontends.acme_certificates
         (id, order_id, account_id, issuer_id, serial_hex, pem_chain, not_before, not_after, renewal_id)
       VALUES ($1, $2, $3, 'audit-issuer', 'abc123', 'pem', now(), now() + interval '90 days', $4)`,
      [id, order, account, `${id}.AQ`],
    );
    const response = await call('POST', `/api/v1/admin/acme/certificates/${id}/renew-early`, {
      requestId,
      body: { explanation_url: 'https://status.example/audit' },
    });
    return {
      response,
      expected: acmeEvent('acme.certificate_renew_early', 'cert_lifecycle', 'acme_certificate', id),
    };
  },
  'POST /api/v1/admin/acme/certificates/bulk-renew-early': async (call, requestId) => {
    // Every certificate of an account with none: one audit record for the call all the same.
    const account = randomBytes(16).toString('base64url');
    await sqlForCases.db!.query(
      `INSERT INTO protocol_frontends.acme_accounts (id, jwk, jwk_thumbprint) VALUES ($1, '{}'::jsonb, $2)`,
      [account, randomBytes(32).toString('base64url')],
    );
    const response = await call('POST', '/api/v1/admin/acme/certificates/bulk-renew-early', {
      requestId,
      body: { account_id: account },
    });
    return {
      response,
      expected: acmeEvent('acme.certificate_bulk_renew_early', 'cert_lifecycle', 'acme_certificate', 'bulk'),
    };
  },
};
// ---- end ACME early renewal ----

/**
 * Every mutating gateway route -> how to call it. A route missing here fails the suite: whoever
 * adds a POST, PUT, PATCH or DELETE route adds its case, and with it the proof that it audits.
 */
// ---- agents and targets (ADR 0026) ----
const dispatchEvent = (
  action: string,
  resource_type: 'agent' | 'target',
  resource_id: string,
): ExpectedEvent => ({
  service: 'deployment-dispatch',
  action,
  event_category: 'config',
  actor_id: ADMIN_SECRET_ACTOR,
  resource_type,
  resource_id,
});

async function registerAgent(call: Call): Promise<string> {
  const id = unique('agent-audit');
  const created = await call('POST', '/api/v1/agents', {
    body: { id, name: id, hostname: `${id}.example.com` },
  });
  expect(created.status).toBe(201);
  return id;
}

async function createTarget(call: Call): Promise<string> {
  const id = unique('tgt-audit');
  const created = await call('POST', '/api/v1/targets', {
    body: {
      id,
      name: id,
      type: 'aws_acm',
      config: { region: 'eu-west-1', secret_access_key: 'audit-secret' },
    },
  });
  expect(created.status).toBe(201);
  return id;
}

const AGENT_TARGET_ROUTE_CASES: Record<string, RouteCase> = {
  'POST /api/v1/agents': async (call, requestId) => {
    const id = unique('agent-audit');
    const response = await call('POST', '/api/v1/agents', {
      requestId,
      body: { id, name: id, hostname: `${id}.example.com` },
    });
    return { response, expected: dispatchEvent('agent.registered', 'agent', id) };
  },
  'DELETE /api/v1/agents/:id': async (call, requestId) => {
    const id = await registerAgent(call);
    const response = await call('DELETE', `/api/v1/agents/${id}`, { requestId });
    return { response, expected: dispatchEvent('agent_retired', 'agent', id) };
  },
  'POST /api/v1/targets': async (call, requestId) => {
    const id = unique('tgt-audit');
    const response = await call('POST', '/api/v1/targets', {
      requestId,
      body: { id, name: id, type: 'aws_acm', config: { region: 'eu-west-1' } },
    });
    return { response, expected: dispatchEvent('target.created', 'target', id) };
  },
  'PUT /api/v1/targets/:id': async (call, requestId) => {
    const id = await createTarget(call);
    const response = await call('PUT', `/api/v1/targets/${id}`, {
      requestId,
      body: { name: `${id}-renamed` },
    });
    return { response, expected: dispatchEvent('target.updated', 'target', id) };
  },
  'DELETE /api/v1/targets/:id': async (call, requestId) => {
    const id = await createTarget(call);
    const response = await call('DELETE', `/api/v1/targets/${id}`, { requestId });
    return { response, expected: dispatchEvent('target.deleted', 'target', id) };
  },
  'POST /api/v1/targets/:id/test': async (call, requestId) => {
    const id = await createTarget(call);
    const response = await call('POST', `/api/v1/targets/${id}/test`, { requestId });
    return { response, expected: dispatchEvent('target.tested', 'target', id) };
  },
};

const healthCheckEvent = (action: string, resource_id: string): ExpectedEvent => ({
  service: 'health-monitor',
  action,
  event_category: 'config',
  actor_id: ADMIN_SECRET_ACTOR,
  resource_type: 'health_check',
  resource_id,
});

async function createHealthCheck(call: Call): Promise<string> {
  const response = await call('POST', '/api/v1/health-checks', {
    body: { host: 'db.example.test', port: 5432 },
  });
  return json<{ id: string }>(response).id;
}

async function createScanTarget(call: Call): Promise<string> {
  // A reserved address nobody allow-lists: the triggered scan refuses it at once, touching nothing.
  const response = await call('POST', '/api/v1/network-scan/targets', {
    body: { hosts: ['127.0.0.1'], ports: [9] },
  });
  return json<{ id: string }>(response).id;
}

/** Endpoint health checks and the SCEP probe (ADR 0057); acknowledge needs a check that is not healthy. */
const HEALTH_CHECK_ROUTE_CASES: Record<string, RouteCase> = {
  'POST /api/v1/discovered-certificates/:id/dismiss': async (call, requestId) => {
    const id = randomBytes(32).toString('hex');
    await sqlForCases.db!.query(
      `INSERT INTO health_monitor.discovered_certificates (fingerprint, subject, issuer, not_before, not_after, first_seen_at, last_seen_at)
       VALUES ($1, 'CN=found.test', 'CN=found.test', now(), now() + interval '30 days', now(), now())`,
      [id],
    );
    const response = await call('POST', `/api/v1/discovered-certificates/${id}/dismiss`, { requestId });
    return {
      response,
      expected: {
        ...healthCheckEvent('discovered_certificate.dismissed', id),
        event_category: 'cert_lifecycle',
        resource_type: 'discovered_certificate',
      },
    };
  },
  'POST /api/v1/discovered-certificates/:id/claim': async (call, requestId) => {
    const fixture = await createTlsFixture('claimed.test');
    const id = fixture.fingerprint;
    await sqlForCases.db!.query(
      `INSERT INTO health_monitor.discovered_certificates (fingerprint, subject, issuer, not_before, not_after, first_seen_at, last_seen_at, certificate_pem)
       VALUES ($1, 'CN=claimed.test', 'CN=claimed.test', now(), now() + interval '30 days', now(), now(), $2)`,
      [id, fixture.certPem],
    );
    const response = await call('POST', `/api/v1/discovered-certificates/${id}/claim`, {
      requestId,
      body: {},
    });
    return {
      response,
      expected: {
        ...healthCheckEvent('discovered_certificate.claimed', id),
        event_category: 'cert_lifecycle',
        resource_type: 'discovered_certificate',
      },
    };
  },
  'POST /api/v1/discovered-certificates/bulk-dismiss': async (call, requestId) => {
    const id = randomBytes(32).toString('hex');
    await sqlForCases.db!.query(
      `INSERT INTO health_monitor.discovered_certificates (fingerprint, subject, issuer, not_before, not_after, first_seen_at, last_seen_at)
       VALUES ($1, 'CN=found.test', 'CN=found.test', now(), now() + interval '30 days', now(), now())`,
      [id],
    );
    const response = await call('POST', '/api/v1/discovered-certificates/bulk-dismiss', {
      requestId,
      body: { ids: [id] },
    });
    return {
      response,
      expected: {
        ...healthCheckEvent('discovered_certificate.bulk_dismissed', 'bulk'),
        event_category: 'cert_lifecycle',
        resource_type: 'discovered_certificate',
      },
    };
  },
  'POST /api/v1/discovered-certificates/bulk-claim': async (call, requestId) => {
    const fixture = await createTlsFixture('bulk-claimed.test');
    await sqlForCases.db!.query(
      `INSERT INTO health_monitor.discovered_certificates (fingerprint, subject, issuer, not_before, not_after, first_seen_at, last_seen_at, certificate_pem)
       VALUES ($1, 'CN=bulk-claimed.test', 'CN=bulk-claimed.test', now(), now() + interval '30 days', now(), now(), $2)`,
      [fixture.fingerprint, fixture.certPem],
    );
    const response = await call('POST', '/api/v1/discovered-certificates/bulk-claim', {
      requestId,
      body: { ids: [fixture.fingerprint] },
    });
    return {
      response,
      expected: {
        ...healthCheckEvent('discovered_certificate.bulk_claimed', 'bulk'),
        event_category: 'cert_lifecycle',
        resource_type: 'discovered_certificate',
      },
    };
  },
  // The agent discovery push; the admin may push for any agent (the ownWork rule).
  'POST /api/v1/agents/:id/discovery': async (call, requestId) => {
    const fixture = await createTlsFixture('agent-found.test');
    const response = await call('POST', '/api/v1/agents/audit-agent/discovery', {
      requestId,
      body: { findings: [{ path: '/etc/ssl/found.pem', format: 'pem', certificate_pem: fixture.certPem }] },
    });
    return {
      response,
      expected: {
        ...healthCheckEvent('discovery.agent_pushed', 'audit-agent'),
        event_category: 'cert_lifecycle',
        resource_type: 'agent',
      },
    };
  },
  // An empty url is answered 200 with the error in the result, and still audited.
  'POST /api/v1/network-scan/scep-probe': async (call, requestId) => {
    const response = await call('POST', '/api/v1/network-scan/scep-probe', { requestId, body: { url: '' } });
    return {
      response,
      expected: {
        ...healthCheckEvent('scep_probe.run', json<{ id: string }>(response).id),
        resource_type: 'scep_probe',
      },
    };
  },
  'POST /api/v1/network-scan/targets': async (call, requestId) => {
    const response = await call('POST', '/api/v1/network-scan/targets', {
      requestId,
      body: { hosts: ['scan.example.test'], ports: [443] },
    });
    return {
      response,
      expected: {
        ...healthCheckEvent('scan_target.created', json<{ id: string }>(response).id),
        resource_type: 'scan_target',
      },
    };
  },
  'PUT /api/v1/network-scan/targets/:id': async (call, requestId) => {
    const id = await createScanTarget(call);
    const response = await call('PUT', `/api/v1/network-scan/targets/${id}`, {
      requestId,
      body: { ports: [8443] },
    });
    return {
      response,
      expected: { ...healthCheckEvent('scan_target.updated', id), resource_type: 'scan_target' },
    };
  },
  'DELETE /api/v1/network-scan/targets/:id': async (call, requestId) => {
    const id = await createScanTarget(call);
    const response = await call('DELETE', `/api/v1/network-scan/targets/${id}`, { requestId });
    return {
      response,
      expected: { ...healthCheckEvent('scan_target.deleted', id), resource_type: 'scan_target' },
    };
  },
  // The scan itself runs after the answer; the audit event is the start, with who started it.
  'POST /api/v1/network-scan/targets/:id/trigger': async (call, requestId) => {
    const id = await createScanTarget(call);
    const response = await call('POST', `/api/v1/network-scan/targets/${id}/trigger`, { requestId });
    return {
      response,
      expected: {
        ...healthCheckEvent('network_scan.started', json<{ id: string }>(response).id),
        resource_type: 'network_scan',
      },
    };
  },
  'POST /api/v1/health-checks': async (call, requestId) => {
    const response = await call('POST', '/api/v1/health-checks', {
      requestId,
      body: { host: 'www.example.test' },
    });
    return {
      response,
      expected: healthCheckEvent('health_check.created', json<{ id: string }>(response).id),
    };
  },
  'PUT /api/v1/health-checks/:id': async (call, requestId) => {
    const id = await createHealthCheck(call);
    const response = await call('PUT', `/api/v1/health-checks/${id}`, {
      requestId,
      body: { interval_seconds: 120 },
    });
    return { response, expected: healthCheckEvent('health_check.updated', id) };
  },
  'DELETE /api/v1/health-checks/:id': async (call, requestId) => {
    const id = await createHealthCheck(call);
    const response = await call('DELETE', `/api/v1/health-checks/${id}`, { requestId });
    return { response, expected: healthCheckEvent('health_check.deleted', id) };
  },
  'POST /api/v1/health-checks/:id/acknowledge': async (call, requestId) => {
    const id = await createHealthCheck(call);
    await sqlForCases.db!.query(
      `UPDATE health_monitor.health_checks SET status = 'down', consecutive_failures = 5 WHERE id = $1`,
      [id],
    );
    const response = await call('POST', `/api/v1/health-checks/${id}/acknowledge`, { requestId });
    return { response, expected: healthCheckEvent('health_check.acknowledged', id) };
  },
};

const notificationEvent = (action: string, resource_id: string): ExpectedEvent => ({
  service: 'notifier',
  action,
  event_category: 'cert_lifecycle',
  actor_id: ADMIN_SECRET_ACTOR,
  resource_type: 'notification',
  resource_id,
});

/** A notification row in `status` (the notifier makes them from events; the route only moves it on). */
async function insertNotification(status: 'sent' | 'dead'): Promise<string> {
  const id = randomUUID();
  await sqlForCases.db!.query(
    `INSERT INTO notifier.notifications (id, dedup_key, event_type, severity, notifier_id, title, event, status, retry_count, sent_at)
     VALUES ($1::uuid, $1::text, 'certificate.revoked', 'warning', 'ntf-audit', 'audit case', '{"details": {}}', $2, $3, $4)`,
    [id, status, status === 'dead' ? 5 : 0, status === 'sent' ? new Date() : null],
  );
  return id;
}

const NOTIFICATION_ROUTE_CASES: Record<string, RouteCase> = {
  'POST /api/v1/notifications/:id/read': async (call, requestId) => {
    const id = await insertNotification('sent');
    const response = await call('POST', `/api/v1/notifications/${id}/read`, { requestId });
    return { response, expected: notificationEvent('notification.read', id) };
  },
  'POST /api/v1/notifications/:id/requeue': async (call, requestId) => {
    const id = await insertNotification('dead');
    const response = await call('POST', `/api/v1/notifications/${id}/requeue`, { requestId });
    return { response, expected: notificationEvent('notification.requeued', id) };
  },
  'POST /api/v1/notifiers': async (call, requestId) => {
    const response = await call('POST', '/api/v1/notifiers', {
      requestId,
      body: notifierBody('ntf-created'),
    });
    return { response, expected: notifierEvent('notifier.created', 'ntf-created') };
  },
  'PUT /api/v1/notifiers/:id': async (call, requestId) => {
    await call('POST', '/api/v1/notifiers', { body: notifierBody('ntf-updated') });
    const response = await call('PUT', '/api/v1/notifiers/ntf-updated', {
      requestId,
      body: { enabled: false },
    });
    return { response, expected: notifierEvent('notifier.updated', 'ntf-updated') };
  },
  'DELETE /api/v1/notifiers/:id': async (call, requestId) => {
    await call('POST', '/api/v1/notifiers', { body: notifierBody('ntf-deleted') });
    const response = await call('DELETE', '/api/v1/notifiers/ntf-deleted', { requestId });
    return { response, expected: notifierEvent('notifier.deleted', 'ntf-deleted') };
  },
  // The receiver is a documentation address (refused at dial time): a failed test is audited too.
  'POST /api/v1/notifiers/:id/test': async (call, requestId) => {
    await call('POST', '/api/v1/notifiers', { body: notifierBody('ntf-tested') });
    const response = await call('POST', '/api/v1/notifiers/ntf-tested/test', { requestId });
    return { response, expected: notifierEvent('notifier.tested', 'ntf-tested') };
  },
  'POST /api/v1/routing-rules': async (call, requestId) => {
    const response = await call('POST', '/api/v1/routing-rules', {
      requestId,
      body: { id: 'rr-created', name: 'Created rule' },
    });
    return { response, expected: routingRuleEvent('routing_rule.created', 'rr-created') };
  },
  'PUT /api/v1/routing-rules/:id': async (call, requestId) => {
    await call('POST', '/api/v1/routing-rules', { body: { id: 'rr-updated', name: 'Updated rule' } });
    const response = await call('PUT', '/api/v1/routing-rules/rr-updated', {
      requestId,
      body: { min_severity: 'critical' },
    });
    return { response, expected: routingRuleEvent('routing_rule.updated', 'rr-updated') };
  },
  'DELETE /api/v1/routing-rules/:id': async (call, requestId) => {
    await call('POST', '/api/v1/routing-rules', { body: { id: 'rr-deleted', name: 'Deleted rule' } });
    const response = await call('DELETE', '/api/v1/routing-rules/rr-deleted', { requestId });
    return { response, expected: routingRuleEvent('routing_rule.deleted', 'rr-deleted') };
  },
  'PUT /api/v1/contacts/:kind/:subject_id': async (call, requestId) => {
    const response = await call('PUT', '/api/v1/contacts/team/audit-team', {
      requestId,
      body: { addresses: ['team@example.com'] },
    });
    return { response, expected: contactEvent('contact.set', 'team/audit-team') };
  },
  'POST /api/v1/digest/send': async (call, requestId) => {
    const response = await call('POST', '/api/v1/digest/send', { requestId, body: {} });
    const runId = (response.json() as { run_id: string }).run_id;
    return { response, expected: { ...notificationEvent('digest.sent', runId), resource_type: 'digest' } };
  },
  'DELETE /api/v1/contacts/:kind/:subject_id': async (call, requestId) => {
    await call('PUT', '/api/v1/contacts/owner/audit-owner', { body: { addresses: ['owner@example.com'] } });
    const response = await call('DELETE', '/api/v1/contacts/owner/audit-owner', { requestId });
    return { response, expected: contactEvent('contact.deleted', 'owner/audit-owner') };
  },
};

const notifierEvent = (action: string, resource_id: string): ExpectedEvent => ({
  ...notificationEvent(action, resource_id),
  event_category: 'config',
  resource_type: 'notifier',
});

const routingRuleEvent = (action: string, resource_id: string): ExpectedEvent => ({
  ...notifierEvent(action, resource_id),
  resource_type: 'routing_rule',
});

const contactEvent = (action: string, resource_id: string): ExpectedEvent => ({
  ...notifierEvent(action, resource_id),
  resource_type: 'contact',
});

const notifierBody = (id: string) => ({
  id,
  name: `Notifier ${id}`,
  kind: 'webhook',
  secrets: { url: 'http://192.0.2.1/hook', secret: `whsec_${Buffer.alloc(32, 3).toString('base64')}` },
});

const ROUTE_CASES: Record<string, RouteCase> = {
  'POST /api/v1/auth/bootstrap': async (call, requestId) => {
    const response = await call('POST', '/api/v1/auth/bootstrap', {
      key: null,
      requestId,
      body: { token: BOOTSTRAP_TOKEN, actor_id: 'audit-day-zero' },
    });
    const minted = json<{ key_id: string }>(response);
    return {
      response,
      expected: {
        ...authEvent('bootstrap.consume', 'api_key', minted.key_id),
        actor_id: 'audit-day-zero',
      },
    };
  },
  'POST /api/v1/auth/api-keys': async (call, requestId) => {
    const response = await call('POST', '/api/v1/auth/api-keys', {
      requestId,
      body: { name: unique('audited-key'), role_ids: ['r-viewer'] },
    });
    return {
      response,
      expected: authEvent('auth.api_key_created', 'api_key', json<{ id: string }>(response).id),
    };
  },
  'POST /api/v1/auth/api-keys/:id/rotate': async (call, requestId) => {
    const { id } = await createKey(call);
    const response = await call('POST', `/api/v1/auth/api-keys/${id}/rotate`, { requestId });
    return { response, expected: authEvent('auth.api_key_rotated', 'api_key', id) };
  },
  'DELETE /api/v1/auth/api-keys/:id': async (call, requestId) => {
    const { id } = await createKey(call);
    const response = await call('DELETE', `/api/v1/auth/api-keys/${id}`, { requestId });
    return { response, expected: authEvent('auth.api_key_deleted', 'api_key', id) };
  },
  'POST /api/v1/auth/roles': async (call, requestId) => {
    const id = unique('r-audited');
    const response = await call('POST', '/api/v1/auth/roles', {
      requestId,
      body: { id, permissions: ['renewal_policy.read'] },
    });
    return { response, expected: authEvent('auth.role_created', 'role', id) };
  },
  'PUT /api/v1/auth/roles/:id': async (call, requestId) => {
    const id = await createRole(call);
    const response = await call('PUT', `/api/v1/auth/roles/${id}`, {
      requestId,
      body: { description: 'edited' },
    });
    return { response, expected: authEvent('auth.role_updated', 'role', id) };
  },
  'DELETE /api/v1/auth/roles/:id': async (call, requestId) => {
    const id = await createRole(call);
    const response = await call('DELETE', `/api/v1/auth/roles/${id}`, { requestId });
    return { response, expected: authEvent('auth.role_deleted', 'role', id) };
  },
  'POST /api/v1/auth/grants': async (call, requestId) => {
    const { actor_id } = await createKey(call);
    const response = await call('POST', '/api/v1/auth/grants', {
      requestId,
      body: { actor_id, role_id: 'r-operator' },
    });
    return { response, expected: authEvent('auth.role_granted', 'actor', actor_id) };
  },
  'DELETE /api/v1/auth/grants/:actorId/:roleId': async (call, requestId) => {
    const { actor_id } = await createKey(call);
    const granted = await call('POST', '/api/v1/auth/grants', { body: { actor_id, role_id: 'r-viewer' } });
    expect(granted.status).toBe(201);
    const response = await call('DELETE', `/api/v1/auth/grants/${actor_id}/r-viewer`, { requestId });
    return { response, expected: authEvent('auth.role_revoked', 'actor', actor_id) };
  },
  'POST /api/v1/renewal-policies': async (call, requestId) => {
    const response = await call('POST', '/api/v1/renewal-policies', {
      requestId,
      body: { name: unique('Audited policy'), max_retries: 2 },
    });
    return { response, expected: policyEvent('renewal_policy.created', json<{ id: string }>(response).id) };
  },
  'PUT /api/v1/renewal-policies/:id': async (call, requestId) => {
    const id = await createPolicy(call);
    const response = await call('PUT', `/api/v1/renewal-policies/${id}`, {
      requestId,
      body: { max_retries: 4 },
    });
    return { response, expected: policyEvent('renewal_policy.updated', id) };
  },
  'DELETE /api/v1/renewal-policies/:id': async (call, requestId) => {
    const id = await createPolicy(call);
    const response = await call('DELETE', `/api/v1/renewal-policies/${id}`, { requestId });
    return { response, expected: policyEvent('renewal_policy.deleted', id) };
  },
  'POST /api/v1/issuers': async (call, requestId) => {
    const response = await call('POST', '/api/v1/issuers', {
      requestId,
      body: { name: unique('Audited issuer'), type: 'local_ca' },
    });
    return { response, expected: issuerEvent('issuer.created', json<{ id: string }>(response).id) };
  },
  'PUT /api/v1/issuers/:id': async (call, requestId) => {
    const id = await createVaultIssuer(call);
    const response = await call('PUT', `/api/v1/issuers/${id}`, {
      requestId,
      body: {
        config: { address: 'https://vault2.example.com', mount: 'pki', role: 'api', token: '********' },
      },
    });
    return { response, expected: issuerEvent('issuer.updated', id) };
  },
  'DELETE /api/v1/issuers/:id': async (call, requestId) => {
    const id = await createVaultIssuer(call);
    const response = await call('DELETE', `/api/v1/issuers/${id}`, { requestId });
    return { response, expected: issuerEvent('issuer.deleted', id) };
  },
  'POST /api/v1/issuers/:id/test': async (call, requestId) => {
    const response = await call('POST', '/api/v1/issuers/iss-local/test', { requestId });
    return { response, expected: issuerEvent('issuer.tested', 'iss-local') };
  },
  'POST /api/v1/intermediate-cas': async (call, requestId) => {
    const response = await call('POST', '/api/v1/intermediate-cas', {
      requestId,
      body: { issuer_id: 'iss-local', common_name: unique('Audited CA'), parent_id: 'ca-local-root' },
    });
    return {
      response,
      expected: issuerEvent('ca.created', json<{ id: string }>(response).id, 'ca_certificate'),
    };
  },
  'POST /api/v1/intermediate-cas/:id/retire': async (call, requestId) => {
    const { id } = await createCa(call);
    const response = await call('POST', `/api/v1/intermediate-cas/${id}/retire`, { requestId });
    return { response, expected: issuerEvent('ca.retired', id, 'ca_certificate') };
  },
  'POST /api/v1/intermediate-cas/:id/revoke': async (call, requestId) => {
    const { id } = await createCa(call, { parent_id: 'ca-local-root' });
    const response = await call('POST', `/api/v1/intermediate-cas/${id}/revoke`, {
      requestId,
      body: { reason: 'cessationOfOperation' },
    });
    return { response, expected: issuerEvent('ca.revoked', id, 'ca_certificate') };
  },
  'POST /api/v1/intermediate-cas/:id/certificate': async (call, requestId) => {
    const pending = await createCa(call, { external: true });
    const signed = signSubCaWithExternalRoot(pending.csr_pem as string);
    const response = await call('POST', `/api/v1/intermediate-cas/${pending.id}/certificate`, {
      requestId,
      body: { certificate_pem: signed.certificatePem, chain_pem: signed.rootPem },
    });
    return { response, expected: issuerEvent('ca.certificate_installed', pending.id, 'ca_certificate') };
  },
  'POST /api/v1/intermediate-cas/:id/cross-certificates': async (call, requestId) => {
    const { id } = await createCa(call);
    const response = await call('POST', `/api/v1/intermediate-cas/${id}/cross-certificates`, {
      requestId,
      body: { parent_id: 'ca-local-root' },
    });
    return {
      response,
      expected: issuerEvent(
        'ca.cross_certificate_created',
        json<{ id: string }>(response).id,
        'ca_cross_certificate',
      ),
    };
  },
  ...Object.fromEntries(
    (
      [
        ['retire', 'ca.cross_certificate_retired', undefined],
        ['revoke', 'ca.cross_certificate_revoked', { reason: 'superseded' }],
      ] as const
    ).map(([verb, action, body]): [string, RouteCase] => [
      `POST /api/v1/intermediate-cas/:id/cross-certificates/:cross_id/${verb}`,
      async (call, requestId) => {
        const { id } = await createCa(call);
        const created = await call('POST', `/api/v1/intermediate-cas/${id}/cross-certificates`, {
          body: { parent_id: 'ca-local-root' },
        });
        expect(created.status).toBe(201);
        const crossId = json<{ id: string }>(created).id;
        const response = await call(
          'POST',
          `/api/v1/intermediate-cas/${id}/cross-certificates/${crossId}/${verb}`,
          { requestId, ...(body ? { body } : {}) },
        );
        return { response, expected: issuerEvent(action, crossId, 'ca_cross_certificate') };
      },
    ]),
  ),
  // Inventory: owners and teams (ADR 0024).
  ...Object.fromEntries(
    (['owner', 'team'] as const).flatMap((kind) => {
      const event = (action: string, id: string) => issuerEvent(`${kind}.${action}`, id, kind);
      const create = async (call: Call) => {
        const id = unique(`setup-${kind}`);
        expect((await call('POST', `/api/v1/${kind}s`, { body: { id, name: id } })).status).toBe(201);
        return id;
      };
      const cases: [string, RouteCase][] = [
        [
          `POST /api/v1/${kind}s`,
          async (call, requestId) => {
            const id = unique(`audited-${kind}`);
            const response = await call('POST', `/api/v1/${kind}s`, { requestId, body: { id, name: id } });
            return { response, expected: event('created', id) };
          },
        ],
        [
          `PUT /api/v1/${kind}s/:id`,
          async (call, requestId) => {
            const id = await create(call);
            const response = await call('PUT', `/api/v1/${kind}s/${id}`, {
              requestId,
              body: { name: `${id}-2` },
            });
            return { response, expected: event('updated', id) };
          },
        ],
        [
          `DELETE /api/v1/${kind}s/:id`,
          async (call, requestId) => {
            const id = await create(call);
            const response = await call('DELETE', `/api/v1/${kind}s/${id}`, { requestId });
            return { response, expected: event('deleted', id) };
          },
        ],
      ];
      return cases;
    }),
  ),
  'POST /auth/breakglass/login': async (call, requestId) => {
    const actorId = await breakGlassActor(call);
    const response = await call('POST', '/auth/breakglass/login', {
      key: null,
      requestId,
      body: { actor_id: actorId, password: BREAKGLASS_PASSWORD },
    });
    return {
      response,
      expected: {
        ...authEvent('auth.breakglass_login_succeeded', 'breakglass_credential', actorId),
        actor_id: actorId,
      },
    };
  },
  'POST /auth/logout': async (call, requestId) => {
    const session = await browserSession(call);
    const response = await call('POST', '/auth/logout', { key: null, session, requestId });
    return {
      response,
      expected: { ...authEvent('auth.logout', 'session', session.id), actor_id: session.actorId },
    };
  },
  'DELETE /api/v1/auth/sessions/:id': async (call, requestId) => {
    const session = await browserSession(call);
    const response = await call('DELETE', `/api/v1/auth/sessions/${session.id}`, { requestId });
    return { response, expected: authEvent('auth.session_revoked', 'session', session.id) };
  },
  'DELETE /api/v1/auth/sessions': async (call, requestId) => {
    const response = await call('DELETE', '/api/v1/auth/sessions', { requestId });
    return { response, expected: authEvent('auth.session_revoked', 'actor', ADMIN_SECRET_ACTOR) };
  },
  'POST /api/v1/auth/breakglass/credentials': async (call, requestId) => {
    const actorId = unique('bg-set');
    const response = await call('POST', '/api/v1/auth/breakglass/credentials', {
      requestId,
      body: { actor_id: actorId, password: BREAKGLASS_PASSWORD },
    });
    return {
      response,
      expected: authEvent('auth.breakglass_credential_set', 'breakglass_credential', actorId),
    };
  },
  'DELETE /api/v1/auth/breakglass/credentials/:actorId': async (call, requestId) => {
    const actorId = await breakGlassActor(call);
    const response = await call('DELETE', `/api/v1/auth/breakglass/credentials/${actorId}`, { requestId });
    return {
      response,
      expected: authEvent('auth.breakglass_credential_deleted', 'breakglass_credential', actorId),
    };
  },
  'POST /api/v1/auth/breakglass/credentials/:actorId/unlock': async (call, requestId) => {
    const actorId = await breakGlassActor(call);
    const response = await call('POST', `/api/v1/auth/breakglass/credentials/${actorId}/unlock`, {
      requestId,
    });
    return { response, expected: authEvent('auth.breakglass_unlocked', 'breakglass_credential', actorId) };
  },
  'DELETE /api/v1/auth/users/:id': async (call, requestId) => {
    const { actor_id } = await createKey(call);
    const response = await call('DELETE', `/api/v1/auth/users/${actor_id}`, { requestId });
    return { response, expected: authEvent('auth.user_deactivated', 'user', actor_id) };
  },
  'POST /api/v1/auth/users/:id/reactivate': async (call, requestId) => {
    const { actor_id } = await createKey(call);
    expect((await call('DELETE', `/api/v1/auth/users/${actor_id}`)).status).toBe(200);
    const response = await call('POST', `/api/v1/auth/users/${actor_id}/reactivate`, { requestId });
    return { response, expected: authEvent('auth.user_reactivated', 'user', actor_id) };
  },
  // Bulk certificate operations: one audit record per call, also when nothing matches.
  'POST /api/v1/certificates/bulk-revoke': async (call, requestId) => {
    const response = await call('POST', '/api/v1/certificates/bulk-revoke', {
      requestId,
      body: { owner_id: unique('nobody') },
    });
    return { response, expected: bulkEvent('certificate.bulk_revoked') };
  },
  'POST /api/v1/est/certificates/bulk-revoke': async (call, requestId) => {
    const response = await call('POST', '/api/v1/est/certificates/bulk-revoke', {
      requestId,
      body: { owner_id: unique('nobody') },
    });
    return { response, expected: bulkEvent('est_bulk_revoke') };
  },
  'POST /api/v1/certificates/bulk-renew': async (call, requestId) => {
    const response = await call('POST', '/api/v1/certificates/bulk-renew', {
      requestId,
      body: { certificate_ids: [unique('absent')] },
    });
    return { response, expected: bulkEvent('certificate.bulk_renewed') };
  },
  'POST /api/v1/certificates/bulk-reassign': async (call, requestId) => {
    const owner = unique('bulk-owner');
    await sqlForCases.db!.query('INSERT INTO issuance.owners (id, name) VALUES ($1, $1)', [owner]);
    const response = await call('POST', '/api/v1/certificates/bulk-reassign', {
      requestId,
      body: { certificate_ids: [unique('absent')], owner_id: owner },
    });
    return { response, expected: bulkEvent('certificate.bulk_reassigned') };
  },
  'POST /api/v1/auth/demo-residual/cleanup': async (call, requestId) => {
    const response = await call('POST', '/api/v1/auth/demo-residual/cleanup', { requestId });
    return { response, expected: authEvent('auth.demo_residual_cleaned', 'user', 'actor-demo-anon') };
  },
  // Policy rules (ADR 0028): config changes, and the dry run (which stores no violation).
  'POST /api/v1/policies': async (call, requestId) => {
    const response = await call('POST', '/api/v1/policies', {
      requestId,
      body: { name: unique('Audited rule'), type: 'AllowedIssuers', config: { allowed: ['iss-local'] } },
    });
    return { response, expected: policyRuleEvent('policy.created', json<{ id: string }>(response).id) };
  },
  'PUT /api/v1/policies/:id': async (call, requestId) => {
    const id = await createPolicyRule(call);
    const response = await call('PUT', `/api/v1/policies/${id}`, { requestId, body: { severity: 'Error' } });
    return { response, expected: policyRuleEvent('policy.updated', id) };
  },
  'DELETE /api/v1/policies/:id': async (call, requestId) => {
    const id = await createPolicyRule(call);
    const response = await call('DELETE', `/api/v1/policies/${id}`, { requestId });
    return { response, expected: policyRuleEvent('policy.deleted', id) };
  },
  'POST /api/v1/policies/evaluate': async (call, requestId) => {
    const response = await call('POST', '/api/v1/policies/evaluate', {
      requestId,
      body: { common_name: 'dry-run.example.com' },
    });
    return { response, expected: policyRuleEvent('policy.evaluated', 'dry-run') };
  },
  ...LIFECYCLE_ROUTE_CASES,
  ...OIDC_ROUTE_CASES,
  ...AGENT_WORK_ROUTE_CASES,
  ...AGENT_TARGET_ROUTE_CASES,
  ...PROFILE_ROUTE_CASES,
  ...HEALTH_CHECK_ROUTE_CASES,
  ...EST_ROUTE_CASES,
  ...ACME_ROUTE_CASES,
  ...ACME_OPERATIONS_ROUTE_CASES,
  ...SCEP_ROUTE_CASES,
  ...NOTIFICATION_ROUTE_CASES,
};

/** Spec 6.1: every mutating operation records exactly one audit event, through the real processes. */
describe('audit coverage of every mutating gateway route', () => {
  let system: TestSystem;
  let db: Client;
  let outboxSchemas: string[];
  // A mutating route that writes no audit record says why in its declaration (the heartbeat).
  const table = gatewayRouteTable();
  const mutating = auditedRoutes(table);

  const call: Call = (method, path, options = {}) => {
    const key = options.key === undefined ? system.env.SERVICE_AUTH_SECRET : options.key;
    return httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(options.session ? { cookie: options.session.cookie, 'x-csrf-token': options.session.csrf } : {}),
        ...(options.requestId ? { 'x-request-id': options.requestId } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
  };

  /** The audit records committed to any service's outbox for a request (what the service emitted). */
  async function emitted(requestId: string): Promise<string[]> {
    const union = outboxSchemas
      .map(
        (schema) =>
          `SELECT id::text FROM "${schema}".outbox WHERE subject LIKE '%.audit.recorded' AND envelope->'data'->>'request_id' = $1`,
      )
      .join(' UNION ALL ');
    return (await db.query<{ id: string }>(union, [requestId])).rows.map((row) => row.id);
  }

  beforeAll(async () => {
    system = await startTestSystem(
      'auditcov',
      [
        'auth',
        'issuance',
        'deployment-dispatch',
        'health-monitor',
        'notifier',
        'protocol-frontends',
        'api-gateway',
      ],
      {
        SERVICE_BOOTSTRAP_TOKEN: BOOTSTRAP_TOKEN,
        SERVICE_BREAKGLASS_ENABLED: 'true',
        // API keys work as in api-key mode; the OIDC handshake routes answer only in this mode.
        SERVICE_AUTH_TYPE: 'oidc',
      },
    );
    oidcFixture.gateway = system.services['api-gateway'].url;
    oidcFixture.ca = system.ca;
    oidcFixture.idp = await startTestIdentityProvider({
      clients: [{ client_id: OIDC_CLIENT_ID, redirect_uris: [`${oidcFixture.gateway}/auth/oidc/callback`] }],
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    sqlForCases.db = db;
    lifecycleDatabase.url = system.database.url;
    keySealing.secret = system.env.SERVICE_CONFIG_ENCRYPTION_KEY as string;
    outboxSchemas = (
      await db.query<{ table_schema: string }>(
        `SELECT table_schema FROM information_schema.tables WHERE table_name = 'outbox' ORDER BY 1`,
      )
    ).rows.map((row) => row.table_schema);
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await oidcFixture.idp?.stop();
    await system?.stop();
  });

  it('finds the mutating routes and has a case for each of them, and none for a route that is gone', () => {
    expect(mutating).toEqual(
      expect.arrayContaining(['POST /api/v1/renewal-policies', 'POST /api/v1/auth/bootstrap']),
    );
    const missing = routesWithoutAuditCase(table, ROUTE_CASES);
    expect({ 'mutating routes without an audit case': missing }).toEqual({
      'mutating routes without an audit case': [],
    });
    const stale = Object.keys(ROUTE_CASES).filter((route) => !mutating.includes(route));
    expect({ 'audit cases for routes that do not exist': stale }).toEqual({
      'audit cases for routes that do not exist': [],
    });
  });

  // Spec 4.9: admin routes take no PUT or DELETE; the methods these routes once had are 405,
  // refused before they reach a service, so nothing is changed and nothing is audited.
  it.each([
    ['PUT', '/api/v1/admin/est/profiles/:id', 'POST'],
    ['DELETE', '/api/v1/admin/est/profiles/:id', 'POST'],
    ['DELETE', '/api/v1/admin/est/key-encryption-keys/:id', 'GET, HEAD, POST'],
    ['PUT', '/api/v1/admin/acme/profiles/:id', 'POST'],
    ['DELETE', '/api/v1/admin/acme/profiles/:id', 'POST'],
    ['DELETE', '/api/v1/admin/acme/eab-keys/:id', 'GET, HEAD, POST'],
  ])('%s %s is 405 (Allow: %s) and writes no audit event', async (method, path, allow) => {
    const requestId = unique('audit-405');
    const response = await call(method, path.replace(':id', 'x-1'), {
      requestId,
      ...(method === 'PUT' ? { body: {} } : {}),
    });
    expect([response.status, response.headers.allow]).toEqual([405, allow]);
    expect(await emitted(requestId)).toEqual([]);
  });

  it.each(mutating.map((route) => [route]))('%s writes exactly one audit event', async (route) => {
    const routeCase = ROUTE_CASES[route];
    if (!routeCase) throw new Error(`no audit case for ${route}: add one to ROUTE_CASES`);
    const requestId = unique('audit-cov');
    const { response, expected } = await routeCase(call, requestId);
    expect(`${response.status} ${response.status < 300 ? '' : response.text}`).toMatch(/^2\d\d $/);
    // What the services committed for this request: exactly one audit record.
    const ids = await emitted(requestId);
    expect(ids).toHaveLength(1);
    // ...and the store holds it, once, as sent.
    let stored: AuditEventDto[] = [];
    await eventually(async () => {
      const listed = await call('GET', `/api/v1/audit?per_page=500&action=${expected.action}`);
      stored = json<{ data: AuditEventDto[] }>(listed).data.filter((event) => event.request_id === requestId);
      return stored.length > 0;
    }, `the audit event of ${route} in the store`);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      ...expected,
      event_id: ids[0],
      outcome: 'success',
      request_id: requestId,
    });
    const { rows } = await db.query(
      'SELECT count(*)::int AS n FROM auth.audit_events WHERE request_id = $1',
      [requestId],
    );
    expect(rows).toEqual([{ n: 1 }]);
  });
});
