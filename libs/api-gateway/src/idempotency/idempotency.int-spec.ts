import { randomBytes } from 'node:crypto';
import { CertificateDto } from '@certlane/contracts';
import { httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';
import { AUTH_SECRET_ACTOR_ID } from '../auth/authenticator';
import { idempotentResourceId, requestFingerprint } from './idempotency-key';

/**
 * Idempotency-Key on the POSTs that create (draft-ietf-httpapi-idempotency-key-header, ADR 0045),
 * through real auth, issuance and gateway processes.
 */
describe('Idempotency-Key', () => {
  let system: TestSystem;
  let db: Client;

  const call = (method: string, path: string, body?: unknown, key?: string) =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(key !== undefined ? { 'idempotency-key': key } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  const newKey = () => `"${randomBytes(8).toString('hex')}"`;
  const unquoted = (key: string) => key.slice(1, -1);
  const newName = () => `idem-${randomBytes(4).toString('hex')}.example.com`;
  const countNamed = async (commonName: string) =>
    (
      await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM issuance.certificates WHERE common_name = $1',
        [commonName],
      )
    ).rows[0].n;
  const codeOf = (response: { json(): unknown }) => (response.json() as { code: string }).code;

  beforeAll(async () => {
    system = await startTestSystem('idempotency', ['auth', 'issuance', 'api-gateway'], {
      SERVICE_KEYGEN_MODE: 'server',
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  it('answers a retried create with the first answer, without creating a second certificate', async () => {
    const key = newKey();
    const body = { common_name: newName() };
    const first = await call('POST', '/api/v1/certificates', body, key);
    expect(first.status).toBe(201);
    const retried = await call('POST', '/api/v1/certificates', { ...body }, key);
    expect(retried.status).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBe('true');
    expect(retried.json()).toEqual(first.json());
    expect(await countNamed(body.common_name)).toBe(1);
    // Without a client id, the id derives from the actor and the key.
    expect((first.json() as CertificateDto).id).toBe(
      idempotentResourceId('mc', AUTH_SECRET_ACTOR_ID, unquoted(key)),
    );
  }, 60_000);

  it('refuses the same key with another payload with 422 idempotency_key_reused', async () => {
    const key = newKey();
    expect((await call('POST', '/api/v1/certificates', { common_name: newName() }, key)).status).toBe(201);
    const other = await call('POST', '/api/v1/certificates', { common_name: newName() }, key);
    expect({ status: other.status, code: codeOf(other) }).toEqual({
      status: 422,
      code: 'idempotency_key_reused',
    });
  }, 60_000);

  it('answers 409 idempotency_key_in_use while the first attempt holds the key, and runs once it lost it', async () => {
    const key = newKey();
    const body = { common_name: newName() };
    const ref = [AUTH_SECRET_ACTOR_ID, 'POST /api/v1/certificates', unquoted(key)];
    // An attempt in flight: the key held, no answer yet.
    await db.query(
      `INSERT INTO issuance.idempotency_keys (actor_id, route, key, fingerprint, held_until, expires_at)
       VALUES ($1, $2, $3, $4, now() + interval '1 hour', now() + interval '1 day')`,
      [...ref, requestFingerprint({}, body)],
    );
    const busy = await call('POST', '/api/v1/certificates', body, key);
    expect({ status: busy.status, code: codeOf(busy) }).toEqual({
      status: 409,
      code: 'idempotency_key_in_use',
    });
    expect(await countNamed(body.common_name)).toBe(0);
    // Its lease ran out without an answer (its gateway was lost): the retry runs.
    await db.query(
      `UPDATE issuance.idempotency_keys SET held_until = now() - interval '1 second'
        WHERE actor_id = $1 AND route = $2 AND key = $3`,
      ref,
    );
    expect((await call('POST', '/api/v1/certificates', body, key)).status).toBe(201);
    expect(await countNamed(body.common_name)).toBe(1);
  }, 60_000);

  it('gives the certificate the first attempt made when that attempt committed but its answer was lost', async () => {
    const key = newKey();
    const body = { common_name: newName() };
    const first = await call('POST', '/api/v1/certificates', body, key);
    expect(first.status).toBe(201);
    // As if the gateway had died after the create committed, before it stored the answer.
    await db.query(
      `UPDATE issuance.idempotency_keys SET status = NULL, body = NULL, held_until = now() - interval '1 second'
        WHERE actor_id = $1 AND key = $2`,
      [AUTH_SECRET_ACTOR_ID, unquoted(key)],
    );
    const retried = await call('POST', '/api/v1/certificates', body, key);
    expect(retried.status).toBe(201);
    expect((retried.json() as CertificateDto).id).toBe((first.json() as CertificateDto).id);
    expect(await countNamed(body.common_name)).toBe(1);
  }, 60_000);

  it('replays a revoke and keeps keys apart per route', async () => {
    const created = await call('POST', '/api/v1/certificates', { common_name: newName() });
    const id = (created.json() as CertificateDto).id;
    const key = newKey();
    const first = await call('POST', `/api/v1/certificates/${id}/revoke`, { reason: 'superseded' }, key);
    expect(first.status).toBe(200);
    const again = await call('POST', `/api/v1/certificates/${id}/revoke`, { reason: 'superseded' }, key);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    // The same key on another route is another key.
    expect((await call('POST', '/api/v1/certificates', { common_name: newName() }, key)).status).toBe(201);
  }, 60_000);

  it('refuses a malformed key with 400 idempotency_key_invalid and creates nothing', async () => {
    const body = { common_name: newName() };
    const refused = await call('POST', '/api/v1/certificates', body, '"unbalanced');
    expect({ status: refused.status, code: codeOf(refused) }).toEqual({
      status: 400,
      code: 'idempotency_key_invalid',
    });
    expect(await countNamed(body.common_name)).toBe(0);
  }, 60_000);

  it('lets go of the key when the request fails, so a corrected retry is not refused as in use', async () => {
    const key = newKey();
    const body = { common_name: newName(), issuer_id: 'iss-missing' };
    const failed = await call('POST', '/api/v1/certificates', body, key);
    expect(failed.status).toBeGreaterThanOrEqual(400);
    const rows = await db.query('SELECT 1 FROM issuance.idempotency_keys WHERE key = $1', [unquoted(key)]);
    expect(rows.rows).toEqual([]);
  }, 60_000);
});
