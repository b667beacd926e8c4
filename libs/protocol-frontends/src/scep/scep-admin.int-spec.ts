import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { ScepMdmStats, ScepProfileDto, ScepProfileList } from '@certlane/contracts';
import { eventually, HttpsResult, httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

/** A self-signed MDM signing certificate made by the openssl CLI. */
function mdmCertificatePem(dir: string, name: string): string {
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
      join(dir, `${name}.key`),
    ].concat(['-out', cert, '-days', '30', '-subj', `/CN=${name}`]),
    { stdio: 'ignore' },
  );
  return execFileSync('openssl', ['x509', '-in', cert], { encoding: 'utf8' });
}

/**
 * /api/v1/admin/scep/* (spec 4.9, ADR 0059) through the real gateway, auth, issuance and
 * protocol-frontends processes: create with an RA certificate issued by the local CA, the list
 * (never the challenge password), update, RA rotation, delete, MDM stats, reload-trust with every
 * status of spec 4.9, the refusals of non-admins and of other methods.
 */
describe('SCEP admin routes', () => {
  let system: TestSystem;
  let db: Client;
  let dir: string;
  const CHALLENGE = 'scep-admin-challenge-0123';

  const call = (method: string, path: string, body?: unknown, key?: string): Promise<HttpsResult> =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${key ?? system.env.SERVICE_AUTH_SECRET}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });

  beforeAll(async () => {
    system = await startTestSystem('scepadmin', ['auth', 'issuance', 'protocol-frontends', 'api-gateway'], {
      // The retention purge (ADR 0074) at every sweep, for the test of it below.
      SERVICE_SCEP_RETENTION_INTERVAL: '10s',
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    dir = mkdtempSync(join(tmpdir(), 'scep-admin-'));
    expect((await call('POST', '/api/v1/owners', { id: 'owner-devices', name: 'Devices' })).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  it('creates a profile with an RA certificate from the CA and never shows the challenge password', async () => {
    const created = await call('POST', '/api/v1/admin/scep/profiles', {
      path_id: 'default',
      challenge_password: CHALLENGE,
      owner: 'owner-devices',
    });
    expect(created.status).toBe(201);
    const profile = created.json() as ScepProfileDto;
    expect(profile).toMatchObject({
      path_id: 'default',
      url_path: '/scep',
      challenge_password_set: true,
      legacy_algorithms: false,
      mtls_enabled: false,
      trust_bundle_path: null,
      client_revocation_unknown: 'soft-fail',
    });
    expect(profile.ra_certificate.subject).toBe('CN=Certlane SCEP RA default');
    expect(new Date(profile.ra_certificate.not_after).getTime()).toBeGreaterThan(
      Date.now() + 300 * 86_400_000,
    );
    expect(profile).not.toHaveProperty('mdm');
    expect(created.text).not.toContain(CHALLENGE);
    expect(created.text).not.toContain('hmac-sha256');
    const stored = await db.query(
      'SELECT challenge_password_hash, ra_key_sealed, ra_certificate_pem FROM protocol_frontends.scep_profiles WHERE id = $1',
      [profile.id],
    );
    expect(stored.rows[0].challenge_password_hash).toMatch(/^hmac-sha256\$/);
    expect(stored.rows[0].ra_key_sealed).toMatch(/^v1\./);
    expect(stored.rows[0].ra_key_sealed).not.toContain('PRIVATE KEY');
    const ra = new X509Certificate(stored.rows[0].ra_certificate_pem);
    expect(ra.publicKey.asymmetricKeyType).toBe('rsa');
    expect(ra.subject).not.toBe(ra.issuer);

    const list = await call('GET', '/api/v1/admin/scep/profiles');
    expect(list.status).toBe(200);
    const body = list.json() as ScepProfileList;
    expect(body.profile_count).toBe(1);
    expect(body.generated_at).toEqual(expect.any(String));
    expect(body.profiles[0]).toMatchObject({ path_id: 'default', challenge_password_set: true });
    expect(body.profiles[0].counters.scep_pkcsreq).toBe(0);
    expect(list.text).not.toContain(CHALLENGE);
  });

  it('refuses a duplicate path id (409), settings that cannot authorise (400) and bad input (400)', async () => {
    expect(
      (
        await call('POST', '/api/v1/admin/scep/profiles', {
          path_id: 'default',
          challenge_password: CHALLENGE,
        })
      ).status,
    ).toBe(409);
    const none = await call('POST', '/api/v1/admin/scep/profiles', { path_id: 'nothing' });
    expect(none.status).toBe(400);
    expect(none.json()).toMatchObject({ code: 'scep_profile_invalid' });
    expect(
      (
        await call('POST', '/api/v1/admin/scep/profiles', {
          path_id: 'Bad Path',
          challenge_password: CHALLENGE,
        })
      ).status,
    ).toBe(400);
    expect(
      (await call('POST', '/api/v1/admin/scep/profiles', { path_id: 'short', challenge_password: 'short' }))
        .status,
    ).toBe(400);
    expect((await call('POST', '/api/v1/admin/scep/profiles', '{not json')).status).toBe(400);
  });

  it('refuses an owner, team or certificate profile the inventory does not know, on create and on update (400, each beside its field): enrollments would fail on it', async () => {
    const refused = await call('POST', '/api/v1/admin/scep/profiles', {
      path_id: 'ghost-team',
      challenge_password: CHALLENGE,
      owner: 'owner-devices',
      team: 'no-such-team',
    });
    expect(refused.status).toBe(400);
    expect(refused.json()).toMatchObject({
      code: 'scep_profile_invalid',
      details: { fields: [{ field: 'team', message: expect.stringContaining('no team no-such-team') }] },
    });
    const created = await call('POST', '/api/v1/admin/scep/profiles', {
      path_id: 'known-owner',
      challenge_password: CHALLENGE,
      owner: 'owner-devices',
    });
    expect(created.status).toBe(201);
    const id = (created.json() as { id: string }).id;
    const unknownOwner = await call('POST', `/api/v1/admin/scep/profiles/${id}`, { owner: 'no-such-owner' });
    expect([unknownOwner.status, unknownOwner.json()]).toMatchObject([
      400,
      { code: 'scep_profile_invalid', details: { fields: [{ field: 'owner' }] } },
    ]);
    const listed = (await call('GET', '/api/v1/admin/scep/profiles')).json() as ScepProfileList;
    expect(listed.profiles.find((p) => p.id === id)).toMatchObject({ owner: 'owner-devices' });
  });

  it('updates, rotates the RA certificate and deletes a profile; unknown ids are 404', async () => {
    const created = (
      await call('POST', '/api/v1/admin/scep/profiles', { path_id: 'phones', challenge_password: CHALLENGE })
    ).json() as ScepProfileDto;
    const updated = await call('POST', `/api/v1/admin/scep/profiles/${created.id}`, {
      legacy_algorithms: true,
    });
    expect(updated.status).toBe(200);
    expect(updated.json()).toMatchObject({ legacy_algorithms: true, challenge_password_set: true });
    // PENDING through approvals (ADR 0065).
    const held = await call('POST', `/api/v1/admin/scep/profiles/${created.id}`, { approval_required: true });
    expect([held.status, (held.json() as ScepProfileDto).approval_required]).toEqual([200, true]);
    const hard = await call('POST', `/api/v1/admin/scep/profiles/${created.id}`, {
      client_revocation_unknown: 'hard-fail',
    });
    expect([hard.status, (hard.json() as ScepProfileDto).client_revocation_unknown]).toEqual([
      200,
      'hard-fail',
    ]);
    const wrong = await call('POST', `/api/v1/admin/scep/profiles/${created.id}`, {
      client_revocation_unknown: 'maybe',
    });
    expect([wrong.status, wrong.text]).toEqual([400, expect.stringContaining('client_revocation_unknown')]);
    const rotated = await call('POST', `/api/v1/admin/scep/profiles/${created.id}/rotate-ra`);
    expect(rotated.status).toBe(200);
    expect((rotated.json() as ScepProfileDto).ra_certificate.serial_hex).not.toBe(
      created.ra_certificate.serial_hex,
    );
    expect((await call('POST', `/api/v1/admin/scep/profiles/${created.id}/delete`)).status).toBe(204);
    expect((await call('POST', `/api/v1/admin/scep/profiles/${created.id}/delete`)).status).toBe(404);
    expect(
      (await call('POST', '/api/v1/admin/scep/profiles/4b0c6f2e-8a39-4c1e-9a57-3f4f1b2c9d10', { owner: 'x' }))
        .status,
    ).toBe(404);
  });

  it('spec 4.9: MDM stats per status and trust expiry; reload-trust answers 200, 400, 404, 409 and 500 keeping the previous trust', async () => {
    const file = join(dir, 'mdm.pem');
    writeFileSync(file, mdmCertificatePem(dir, 'mdm-one'));
    const created = await call('POST', '/api/v1/admin/scep/profiles', {
      path_id: 'managed',
      mdm_enabled: true,
      mdm_audience: 'https://scep.example.test/scep/managed',
      mdm_trust_path: file,
    });
    expect(created.status).toBe(201);
    expect((created.json() as ScepProfileDto).mdm).toMatchObject({ trust_anchor_count: 1, trust_path: file });

    writeFileSync(file, mdmCertificatePem(dir, 'mdm-one') + mdmCertificatePem(dir, 'mdm-two'));
    const reloaded = await call('POST', '/api/v1/admin/scep/mdm/reload-trust', { path_id: 'managed' });
    expect([reloaded.status, reloaded.json()]).toEqual([
      200,
      expect.objectContaining({ path_id: 'managed', trust_anchor_count: 2 }),
    ]);

    writeFileSync(file, 'not a certificate');
    const bad = await call('POST', '/api/v1/admin/scep/mdm/reload-trust', { path_id: 'managed' });
    expect(bad.status).toBe(500);
    expect(bad.json()).toMatchObject({ code: 'scep_trust_file_error' });
    expect((await call('POST', '/api/v1/admin/scep/mdm/reload-trust', { path_id: 'nowhere' })).status).toBe(
      404,
    );
    // The root profile (empty path id) has no MDM.
    const disabled = await call('POST', '/api/v1/admin/scep/mdm/reload-trust', { path_id: '' });
    expect([disabled.status, disabled.json()]).toEqual([
      409,
      expect.objectContaining({ code: 'scep_mdm_disabled' }),
    ]);
    expect((await call('POST', '/api/v1/admin/scep/mdm/reload-trust', '{"path_id":')).status).toBe(400);

    const stats = await call('GET', '/api/v1/admin/scep/mdm/stats');
    expect(stats.status).toBe(200);
    const managed = (stats.json() as ScepMdmStats).profiles.find((p) => p.path_id === 'managed')!;
    expect(managed.trust_anchor_count).toBe(2);
    expect(managed.trust_anchors.map((a) => a.subject)).toEqual(['CN=mdm-one', 'CN=mdm-two']);
    expect(Object.keys(managed.counters)).toEqual([
      'success',
      'signature_invalid',
      'expired',
      'not_yet_valid',
      'wrong_audience',
      'replay',
      'rate_limited',
      'claim_mismatch',
      'device_state_failed',
      'malformed',
      'unknown_version',
    ]);
    const list = (await call('GET', '/api/v1/admin/scep/profiles')).json() as ScepProfileList;
    expect(list.profiles.find((p) => p.path_id === 'managed')!.mdm).toMatchObject({ trust_anchor_count: 2 });
  });

  it('spec 4.9: admins only (403) and only GET and POST (405)', async () => {
    const key = await call('POST', '/api/v1/auth/api-keys', { name: 'scep-viewer', role_ids: ['r-viewer'] });
    const viewer = (key.json() as { key: string }).key;
    expect((await call('GET', '/api/v1/admin/scep/profiles', undefined, viewer)).status).toBe(403);
    expect((await call('GET', '/api/v1/admin/scep/mdm/stats', undefined, viewer)).status).toBe(403);
    expect((await call('POST', '/api/v1/admin/scep/mdm/reload-trust', { path_id: '' }, viewer)).status).toBe(
      403,
    );
    expect((await call('DELETE', '/api/v1/admin/scep/profiles')).status).toBe(405);
    expect((await call('PUT', '/api/v1/admin/scep/mdm/reload-trust', {})).status).toBe(405);
  });

  it('ADR 0074: each replica purges SCEP transactions that have not moved for 90 days and certificates expired that long; recent ones stay', async () => {
    const created = await call('POST', '/api/v1/admin/scep/profiles', {
      path_id: 'retained',
      challenge_password: CHALLENGE,
    });
    expect(created.status).toBe(201);
    const profileId = (created.json() as ScepProfileDto).id;
    const transaction = (transactionId: string, daysAgo: number) =>
      db.query(
        `INSERT INTO protocol_frontends.scep_transactions
           (profile_id, transaction_id, message_type, status, csr_pem, principal, created_at, updated_at)
         VALUES ($1, $2, 'pkcsreq', 'rejected', 'csr', 'challenge', now() - $3 * interval '1 day', now() - $3 * interval '1 day')`,
        [profileId, transactionId, daysAgo],
      );
    const certificate = (transactionId: string, expiredDaysAgo: number) =>
      db.query(
        `INSERT INTO protocol_frontends.scep_issued_certificates
           (profile_id, certificate_issuer, certificate_serial, certificate_pem, transaction_id, not_after)
         VALUES ($1, '\\x3000', $2, 'pem', $3, now() - $4 * interval '1 day')`,
        [profileId, Buffer.from([0x02, 0x01, expiredDaysAgo]), transactionId, expiredDaysAgo],
      );
    await transaction('old', 120);
    await transaction('recent', 20);
    await certificate('old', 100);
    await certificate('recent', 20);
    const left = async (table: string, transactionId: string) =>
      (
        await db.query(
          `SELECT 1 FROM protocol_frontends.${table} WHERE profile_id = $1 AND transaction_id = $2`,
          [profileId, transactionId],
        )
      ).rowCount;
    await eventually(
      async () => (await left('scep_transactions', 'old')) === 0,
      'the sweep to purge the old transaction',
    );
    await eventually(
      async () => (await left('scep_issued_certificates', 'old')) === 0,
      'the sweep to purge the long expired certificate',
    );
    expect(await left('scep_transactions', 'recent')).toBe(1);
    expect(await left('scep_issued_certificates', 'recent')).toBe(1);
  }, 60_000);
});
