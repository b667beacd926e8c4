import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EstProfileDto, EstProfileList, EstTrustReloadResult } from '@certlane/contracts';
import { HttpsResult, httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

/** A CA certificate made by the openssl CLI (independent of the code under test). */
function caPem(dir: string, name: string): string {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.crt`);
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
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
    ],
    { stdio: 'ignore' },
  );
  return execFileSync('openssl', ['x509', '-in', cert], { encoding: 'utf8' });
}

/**
 * /api/v1/admin/est/* (spec 4.9, ADR 0058) through the real gateway, auth and protocol-frontends
 * processes: create, list with counters, update, delete, the refusals, and reload-trust keeping
 * the previous anchors when a bundle file goes bad.
 */
describe('EST admin routes', () => {
  let system: TestSystem;
  let db: Client;
  let dir: string;
  const PASSWORD = 'est-basic-password-0123';

  const call = (method: string, path: string, body?: unknown, key?: string): Promise<HttpsResult> =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${key ?? system.env.SERVICE_AUTH_SECRET}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'est-admin-'));
    system = await startTestSystem('estadmin', ['auth', 'issuance', 'protocol-frontends', 'api-gateway']);
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    // The certificate profile a profile below names: issuance must know it.
    expect((await call('POST', '/api/v1/profiles', { id: 'prof-routers', name: 'Routers' })).status).toBe(
      201,
    );
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  it('creates a Basic profile, keeps only a hash of its password, and lists it with zeroed counters', async () => {
    const created = await call('POST', '/api/v1/admin/est/profiles', {
      path_id: 'routers',
      auth_methods: ['basic'],
      basic_username: 'router',
      basic_password: PASSWORD,
      certificate_profile_id: 'prof-routers',
      serverkeygen_enabled: true,
      rate_limit_per_minute: 10,
    });
    expect(created.status).toBe(201);
    const profile = created.json() as EstProfileDto;
    expect(profile).toMatchObject({
      path_id: 'routers',
      auth_methods: ['basic'],
      basic_username: 'router',
      basic_password_set: true,
      serverkeygen_enabled: true,
      channel_binding_required: false,
      rate_limit_per_minute: 10,
      trust_anchor_count: 0,
    });
    expect(created.text).not.toContain(PASSWORD);
    expect(created.text).not.toContain('scrypt');
    const stored = await db.query(
      'SELECT basic_password_hash FROM protocol_frontends.est_profiles WHERE id = $1',
      [profile.id],
    );
    expect(stored.rows[0].basic_password_hash).toMatch(/^scrypt\$/);

    const list = await call('GET', '/api/v1/admin/est/profiles');
    expect(list.status).toBe(200);
    const listed = (list.json() as EstProfileList).data.find((p) => p.id === profile.id)!;
    expect(listed.counters.est_simple_enroll_success).toBe(0);
    expect(Object.keys(listed.counters)).toHaveLength(12);
    expect(listed.counters.est_enrollment_pending).toBe(0);
    expect(list.text).not.toContain('scrypt');

    // The counters snapshot reads what the EST endpoints tick (spec 6.4).
    await db.query(
      `INSERT INTO protocol_frontends.est_profile_counters (profile_id, outcome, count)
       VALUES ($1, 'est_rate_limited', 3)`,
      [profile.id],
    );
    const again = (await call('GET', '/api/v1/admin/est/profiles')).json() as EstProfileList;
    expect(again.data.find((p) => p.id === profile.id)!.counters.est_rate_limited).toBe(3);
  });

  it('refuses a second profile on the same path id (409) and inconsistent settings (400)', async () => {
    const body = { path_id: 'dup', auth_methods: ['basic'], basic_username: 'u', basic_password: PASSWORD };
    expect((await call('POST', '/api/v1/admin/est/profiles', body)).status).toBe(201);
    const duplicate = await call('POST', '/api/v1/admin/est/profiles', body);
    expect([duplicate.status, (duplicate.json() as { code: string }).code]).toEqual([
      409,
      'est_profile_exists',
    ]);

    const noPassword = await call('POST', '/api/v1/admin/est/profiles', {
      path_id: 'nopass',
      auth_methods: ['basic'],
      basic_username: 'u',
    });
    expect([noPassword.status, (noPassword.json() as { code: string }).code]).toEqual([
      400,
      'est_profile_invalid',
    ]);
    const noTrust = await call('POST', '/api/v1/admin/est/profiles', {
      path_id: 'notrust',
      auth_methods: ['mtls'],
    });
    expect([noTrust.status, (noTrust.json() as { code: string }).code]).toEqual([400, 'est_profile_invalid']);
    for (const bad of [
      { path_id: 'Upper', auth_methods: ['mtls'] },
      // RFC 7030 3.2.2: a label "MUST NOT be the same as any defined operation path segment".
      { path_id: 'simpleenroll', auth_methods: ['basic'], basic_username: 'u', basic_password: PASSWORD },
      { path_id: 'fullcmc', auth_methods: ['basic'], basic_username: 'u', basic_password: PASSWORD },
      { path_id: 'ok', auth_methods: ['kerberos'] },
      { path_id: 'ok', auth_methods: [] },
      { path_id: 'ok', auth_methods: ['basic'], basic_username: 'u', basic_password: 'short' },
    ]) {
      const refused = await call('POST', '/api/v1/admin/est/profiles', bad);
      expect([bad, refused.status]).toEqual([bad, 400]);
    }
  });

  it('refuses an owner, team or certificate profile the inventory does not know, on create and on update (400, each beside its field): enrollments would fail on it', async () => {
    const basic = { auth_methods: ['basic'], basic_username: 'u', basic_password: PASSWORD };
    const unknownOwner = await call('POST', '/api/v1/admin/est/profiles', {
      path_id: 'ghost-owner',
      ...basic,
      owner: 'no-such-owner',
      certificate_profile_id: 'no-such-profile',
    });
    expect(unknownOwner.status).toBe(400);
    expect(unknownOwner.json()).toMatchObject({
      code: 'est_profile_invalid',
      details: {
        fields: [
          { field: 'owner', message: expect.stringContaining('no owner no-such-owner') },
          { field: 'certificate_profile_id', message: 'no certificate profile no-such-profile' },
        ],
      },
    });
    expect((await call('POST', '/api/v1/owners', { id: 'est-owner', name: 'EST owner' })).status).toBe(201);
    const created = await call('POST', '/api/v1/admin/est/profiles', {
      path_id: 'known-owner',
      ...basic,
      owner: 'est-owner',
    });
    expect(created.status).toBe(201);
    const unknownTeam = await call(
      'POST',
      `/api/v1/admin/est/profiles/${(created.json() as EstProfileDto).id}`,
      {
        team: 'no-such-team',
      },
    );
    expect([unknownTeam.status, unknownTeam.json()]).toMatchObject([
      400,
      { code: 'est_profile_invalid', details: { fields: [{ field: 'team' }] } },
    ]);
    const listed = (await call('GET', '/api/v1/admin/est/profiles')).json() as { data: EstProfileDto[] };
    expect(listed.data.find((p) => p.path_id === 'known-owner')).toMatchObject({
      owner: 'est-owner',
      team: null,
    });
    expect(listed.data.some((p) => p.path_id === 'ghost-owner')).toBe(false);
  });

  it('is for admins only (403), and 404 for an unknown profile', async () => {
    const key = await call('POST', '/api/v1/auth/api-keys', { name: 'est-non-admin' });
    expect(key.status).toBe(201);
    const plain = (key.json() as { key: string }).key;
    expect((await call('GET', '/api/v1/admin/est/profiles', undefined, plain)).status).toBe(403);
    expect((await call('POST', '/api/v1/admin/est/reload-trust', undefined, plain)).status).toBe(403);
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect(
      (await call('POST', `/api/v1/admin/est/profiles/${unknown}`, { serverkeygen_enabled: false })).status,
    ).toBe(404);
    expect((await call('POST', `/api/v1/admin/est/profiles/${unknown}/delete`)).status).toBe(404);
    expect((await call('POST', `/api/v1/admin/est/profiles/${unknown}`, undefined, plain)).status).toBe(403);
    expect(
      (await call('POST', `/api/v1/admin/est/profiles/${unknown}/delete`, undefined, plain)).status,
    ).toBe(403);
  });

  it('spec 4.9: takes no PUT or DELETE (405), updating and deleting by POST', async () => {
    const created = (
      await call('POST', '/api/v1/admin/est/profiles', {
        path_id: 'no-put',
        auth_methods: ['basic'],
        basic_username: 'no-put',
        basic_password: PASSWORD,
      })
    ).json() as EstProfileDto;
    const put = await call('PUT', `/api/v1/admin/est/profiles/${created.id}`, { serverkeygen_enabled: true });
    expect([put.status, put.headers.allow, (put.json() as { code: string }).code]).toEqual([
      405,
      'POST',
      'method_not_allowed',
    ]);
    const remove = await call('DELETE', `/api/v1/admin/est/profiles/${created.id}`);
    expect([remove.status, remove.headers.allow]).toEqual([405, 'POST']);
    const kek = await call('DELETE', `/api/v1/admin/est/key-encryption-keys/${created.id}`);
    expect([kek.status, kek.headers.allow]).toEqual([405, 'GET, HEAD, POST']);
    // Nothing changed: the profile is still there, as it was.
    const listed = (await call('GET', '/api/v1/admin/est/profiles')).json() as EstProfileList;
    expect(listed.data.find((p) => p.id === created.id)).toMatchObject({ serverkeygen_enabled: false });
    expect((await call('POST', `/api/v1/admin/est/profiles/${created.id}/delete`)).status).toBe(204);
  });

  it('updates and deletes a profile', async () => {
    const created = (
      await call('POST', '/api/v1/admin/est/profiles', {
        path_id: 'iot',
        auth_methods: ['basic'],
        basic_username: 'iot',
        basic_password: PASSWORD,
      })
    ).json() as EstProfileDto;
    const updated = await call('POST', `/api/v1/admin/est/profiles/${created.id}`, {
      serverkeygen_enabled: true,
      channel_binding_required: true,
    });
    expect(updated.status).toBe(200);
    expect(updated.json()).toMatchObject({
      path_id: 'iot',
      basic_password_set: true,
      serverkeygen_enabled: true,
      channel_binding_required: true,
    });
    // Dropping basic while its credentials stay is refused; with them cleared, it is fine.
    const trust = caPem(dir, 'update-ca');
    const mtlsOnly = await call('POST', `/api/v1/admin/est/profiles/${created.id}`, {
      auth_methods: ['mtls'],
      trust_bundle_pem: trust,
    });
    expect(mtlsOnly.status).toBe(400);
    const cleared = await call('POST', `/api/v1/admin/est/profiles/${created.id}`, {
      auth_methods: ['mtls'],
      trust_bundle_pem: trust,
      basic_username: null,
    });
    expect(cleared.status).toBe(200);
    expect(cleared.json()).toMatchObject({
      basic_username: null,
      basic_password_set: false,
      trust_anchor_count: 1,
    });

    expect((await call('POST', `/api/v1/admin/est/profiles/${created.id}/delete`)).status).toBe(204);
    expect((await call('POST', `/api/v1/admin/est/profiles/${created.id}/delete`)).status).toBe(404);
  });

  it('reload-trust re-reads bundle files; a bad file keeps the previous anchors and is audited', async () => {
    const file = join(dir, 'trust.pem');
    const first = caPem(dir, 'first-ca');
    writeFileSync(file, first);
    const created = await call('POST', '/api/v1/admin/est/profiles', {
      path_id: 'fleet',
      auth_methods: ['mtls'],
      trust_bundle_path: file,
    });
    expect(created.status).toBe(201);
    const profile = created.json() as EstProfileDto;
    expect(profile.trust_anchor_count).toBe(1);

    const second = caPem(dir, 'second-ca');
    writeFileSync(file, first + second);
    const reloaded = await call('POST', '/api/v1/admin/est/reload-trust');
    expect(reloaded.status).toBe(200);
    expect((reloaded.json() as EstTrustReloadResult).reloaded).toContain('fleet');
    const listed = () =>
      call('GET', '/api/v1/admin/est/profiles').then((r) =>
        (r.json() as EstProfileList).data.find((p) => p.path_id === 'fleet')!,
      );
    expect((await listed()).trust_anchor_count).toBe(2);

    writeFileSync(file, 'not a bundle');
    const kept = await call('POST', '/api/v1/admin/est/reload-trust');
    expect(kept.status).toBe(200);
    expect((kept.json() as EstTrustReloadResult).kept_previous).toEqual([
      { path_id: 'fleet', reason: 'the bundle holds text outside CERTIFICATE blocks' },
    ]);
    const after = await listed();
    expect(after.trust_anchor_count).toBe(2);
    expect(after.trust_bundle_pem).toContain(second.split('\n')[1]);

    const audited = await db.query<{ action: string; outcome: string }>(
      `SELECT envelope->'data'->>'action' AS action, envelope->'data'->>'outcome' AS outcome
         FROM protocol_frontends.outbox WHERE subject LIKE '%.audit.recorded'
          AND envelope->'data'->>'action' = 'est_trust_anchor_reloaded' ORDER BY envelope->>'occurred_at'`,
    );
    expect(audited.rows.map((row) => row.outcome)).toEqual(['success', 'failure']);
    const created_ = await db.query(
      `SELECT 1 FROM protocol_frontends.outbox WHERE envelope->'data'->>'action' = 'est_profile.created'
          AND envelope->'data'->>'resource_id' = $1`,
      [profile.id],
    );
    expect(created_.rowCount).toBe(1);
  });
});
