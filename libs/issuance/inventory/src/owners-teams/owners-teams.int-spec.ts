import { AuditEventDto, OwnerDto, TeamDto } from '@certlane/contracts';
import { eventually, httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';
import { insertCertificate } from '../inventory/testing-fixtures';

/**
 * Owners and teams (ADR 0024) through real gateway, auth and issuance processes, every status
 * code of their routes; and the references the database enforces: deleting a team, owner,
 * renewal policy or issuer that certificates (or owners) still use is 409.
 */
describe('owners and teams', () => {
  let system: TestSystem;
  let db: Client;

  const api = (method: string, path: string, body?: unknown) =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const created = async <T>(path: string, body: unknown): Promise<T> => {
    const response = await api('POST', path, body);
    expect([response.status, response.text]).toEqual([201, expect.any(String)]);
    return response.json() as T;
  };

  beforeAll(async () => {
    system = await startTestSystem('ownersteams', ['auth', 'issuance', 'api-gateway']);
    db = new Client({ connectionString: system.database.url });
    await db.connect();
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  describe('teams', () => {
    it('creates a team with a generated id (201) and returns it by id (200)', async () => {
      const team = await created<TeamDto>('/api/v1/teams', { name: 'Payments' });
      expect(team).toEqual({
        id: expect.stringMatching(/^t-[0-9a-f]{16}$/),
        name: 'Payments',
        description: '',
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const fetched = await api('GET', `/api/v1/teams/${team.id}`);
      expect(fetched.status).toBe(200);
      expect(fetched.json()).toEqual(team);
    });

    it('keeps a caller-chosen id and refuses it a second time with 409 team_exists', async () => {
      await created('/api/v1/teams', { id: 'platform', name: 'Platform', description: 'infra' });
      const again = await api('POST', '/api/v1/teams', { id: 'platform', name: 'Another' });
      expect(again.status).toBe(409);
      expect(again.json()).toMatchObject({ code: 'team_exists' });
    });

    it('refuses a name taken in another case with 409 team_exists', async () => {
      await created('/api/v1/teams', { name: 'Identity' });
      const response = await api('POST', '/api/v1/teams', { name: 'IDENTITY' });
      expect(response.status).toBe(409);
      expect(response.json()).toMatchObject({ code: 'team_exists' });
    });

    it.each([
      ['no name', {}],
      ['an empty name', { name: '' }],
      ['a 256-character name', { name: 'n'.repeat(256) }],
      ['an id with upper case', { id: 'Bad', name: 'x' }],
      ['an unknown field', { name: 'x', colour: 'red' }],
    ])('refuses %s with 400', async (_case, body) => {
      const response = await api('POST', '/api/v1/teams', body);
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ code: 'validation_failed' });
    });

    it('lists teams in id order, paginated (200)', async () => {
      for (const id of ['list-a', 'list-b', 'list-c'])
        await created('/api/v1/teams', { id, name: `List ${id}` });
      const first = await api('GET', '/api/v1/teams?per_page=2');
      expect(first.status).toBe(200);
      const body = first.json() as { data: TeamDto[]; total: number; page: number; per_page: number };
      const { rows } = await db.query('SELECT id FROM issuance.teams ORDER BY id');
      expect(body.total).toBe(rows.length);
      expect(body.page).toBe(1);
      expect(body.per_page).toBe(2);
      expect(body.data.map((t) => t.id)).toEqual(rows.slice(0, 2).map((r) => r.id));
      const second = (await api('GET', '/api/v1/teams?per_page=2&page=2')).json() as { data: TeamDto[] };
      expect(second.data.map((t) => t.id)).toEqual(rows.slice(2, 4).map((r) => r.id));
      expect((await api('GET', '/api/v1/teams?per_page=501')).status).toBe(400);
    });

    it('updates a team (200), refuses bad fields (400), an unknown id (404) and a taken name (409)', async () => {
      await created('/api/v1/teams', { id: 'edit-me', name: 'Edit me' });
      const updated = await api('PUT', '/api/v1/teams/edit-me', { description: 'edited' });
      expect(updated.status).toBe(200);
      expect(updated.json()).toMatchObject({ id: 'edit-me', name: 'Edit me', description: 'edited' });
      expect((await api('PUT', '/api/v1/teams/edit-me', { name: '' })).status).toBe(400);
      expect((await api('PUT', '/api/v1/teams/edit-me', { id: 'other' })).status).toBe(400);
      const missing = await api('PUT', '/api/v1/teams/no-such-team', { name: 'x' });
      expect(missing.status).toBe(404);
      expect(missing.json()).toMatchObject({ code: 'team_not_found' });
      const taken = await api('PUT', '/api/v1/teams/edit-me', { name: 'payments' });
      expect(taken.status).toBe(409);
      expect(taken.json()).toMatchObject({ code: 'team_exists' });
    });

    it('answers 404 team_not_found for an unknown id on GET and DELETE', async () => {
      const get = await api('GET', '/api/v1/teams/no-such-team');
      expect(get.status).toBe(404);
      expect(get.json()).toMatchObject({ code: 'team_not_found' });
      expect((await api('DELETE', '/api/v1/teams/no-such-team')).status).toBe(404);
    });

    it('deletes an unused team (204), then it is gone (404)', async () => {
      await created('/api/v1/teams', { id: 'short-lived', name: 'Short lived' });
      const deleted = await api('DELETE', '/api/v1/teams/short-lived');
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      expect((await api('GET', '/api/v1/teams/short-lived')).status).toBe(404);
    });

    it('refuses to delete a team an owner or a certificate references (409 team_in_use)', async () => {
      await created('/api/v1/teams', { id: 'owned', name: 'Owned' });
      await created('/api/v1/owners', { id: 'member', name: 'Member', team_id: 'owned' });
      const byOwner = await api('DELETE', '/api/v1/teams/owned');
      expect(byOwner.status).toBe(409);
      expect(byOwner.json()).toMatchObject({ code: 'team_in_use', details: { referenced_by: 'owners' } });
      expect((await api('PUT', '/api/v1/owners/member', { team_id: '' })).status).toBe(200);
      const certificate = await insertCertificate(db, { team_id: 'owned' });
      const byCertificate = await api('DELETE', '/api/v1/teams/owned');
      expect(byCertificate.status).toBe(409);
      expect(byCertificate.json()).toMatchObject({
        code: 'team_in_use',
        details: { referenced_by: 'certificates' },
      });
      await db.query('UPDATE issuance.certificates SET team_id = NULL WHERE id = $1', [certificate]);
      expect((await api('DELETE', '/api/v1/teams/owned')).status).toBe(204);
    });
  });

  describe('owners', () => {
    beforeAll(async () => {
      await created('/api/v1/teams', { id: 'sre', name: 'SRE' });
      await created('/api/v1/teams', { id: 'web', name: 'Web' });
    });

    it('creates an owner with a generated id (201) and returns it (200)', async () => {
      const owner = await created<OwnerDto>('/api/v1/owners', {
        name: 'Ada',
        email: 'ada@example.com',
        team_id: 'sre',
      });
      expect(owner).toEqual({
        id: expect.stringMatching(/^o-[0-9a-f]{16}$/),
        name: 'Ada',
        email: 'ada@example.com',
        team_id: 'sre',
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expect((await api('GET', `/api/v1/owners/${owner.id}`)).json()).toEqual(owner);
    });

    it('creates an owner without a team: team_id is ""', async () => {
      const owner = await created<OwnerDto>('/api/v1/owners', { name: 'Solo' });
      expect(owner).toMatchObject({ team_id: '', email: '' });
    });

    it('refuses an unknown team with 400 reference_invalid naming the field', async () => {
      const response = await api('POST', '/api/v1/owners', { name: 'Lost', team_id: 'no-such-team' });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ code: 'reference_invalid', details: { field: 'team_id' } });
      expect(response.text).toContain('team_id');
    });

    it('refuses a taken id with 409 owner_exists', async () => {
      await created('/api/v1/owners', { id: 'grace', name: 'Grace' });
      const again = await api('POST', '/api/v1/owners', { id: 'grace', name: 'Grace 2' });
      expect(again.status).toBe(409);
      expect(again.json()).toMatchObject({ code: 'owner_exists' });
    });

    it.each([
      ['no name', {}],
      ['a bad email', { name: 'x', email: 'not-an-email' }],
      ['an id with a space', { id: 'a b', name: 'x' }],
      ['a numeric team_id', { name: 'x', team_id: 7 }],
    ])('refuses %s with 400', async (_case, body) => {
      const response = await api('POST', '/api/v1/owners', body);
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ code: 'validation_failed' });
    });

    it('lists owners filtered by team_id, paginated', async () => {
      await created('/api/v1/owners', { id: 'web-1', name: 'W1', team_id: 'web' });
      await created('/api/v1/owners', { id: 'web-2', name: 'W2', team_id: 'web' });
      await created('/api/v1/owners', { id: 'web-3', name: 'W3', team_id: 'web' });
      const page = await api('GET', '/api/v1/owners?team_id=web&per_page=2&page=2');
      expect(page.status).toBe(200);
      expect(page.json()).toMatchObject({ total: 3, page: 2, per_page: 2, data: [{ id: 'web-3' }] });
      const all = (await api('GET', '/api/v1/owners')).json() as { total: number; data: OwnerDto[] };
      expect(all.total).toBe(Number((await db.query('SELECT count(*) AS n FROM issuance.owners')).rows[0].n));
      expect(all.data.map((o) => o.id)).toEqual([...all.data.map((o) => o.id)].sort());
      expect((await api('GET', '/api/v1/owners?team_id=nobody')).json()).toMatchObject({
        total: 0,
        data: [],
      });
    });

    it('updates an owner (200): moves and clears the team; 400 for bad fields or an unknown team; 404', async () => {
      await created('/api/v1/owners', { id: 'mover', name: 'Mover', team_id: 'sre' });
      const moved = await api('PUT', '/api/v1/owners/mover', { team_id: 'web', email: 'm@example.com' });
      expect(moved.status).toBe(200);
      expect(moved.json()).toMatchObject({
        id: 'mover',
        name: 'Mover',
        team_id: 'web',
        email: 'm@example.com',
      });
      expect((await api('PUT', '/api/v1/owners/mover', { team_id: '' })).json()).toMatchObject({
        team_id: '',
      });
      const unknownTeam = await api('PUT', '/api/v1/owners/mover', { team_id: 'no-such-team' });
      expect(unknownTeam.status).toBe(400);
      expect(unknownTeam.json()).toMatchObject({ code: 'reference_invalid' });
      expect((await api('PUT', '/api/v1/owners/mover', { email: 'nope' })).status).toBe(400);
      const missing = await api('PUT', '/api/v1/owners/no-such-owner', { name: 'x' });
      expect(missing.status).toBe(404);
      expect(missing.json()).toMatchObject({ code: 'owner_not_found' });
    });

    it('deletes an owner (204), 404 when unknown, 409 owner_in_use while a certificate references it', async () => {
      await created('/api/v1/owners', { id: 'leaving', name: 'Leaving' });
      expect((await api('DELETE', '/api/v1/owners/leaving')).status).toBe(204);
      expect((await api('GET', '/api/v1/owners/leaving')).status).toBe(404);
      expect((await api('DELETE', '/api/v1/owners/leaving')).status).toBe(404);
      await created('/api/v1/owners', { id: 'holder', name: 'Holder' });
      await insertCertificate(db, { owner_id: 'holder' });
      const inUse = await api('DELETE', '/api/v1/owners/holder');
      expect(inUse.status).toBe(409);
      expect(inUse.json()).toMatchObject({ code: 'owner_in_use' });
      expect((await api('GET', '/api/v1/owners/holder')).status).toBe(200);
    });

    it('audits creation, update and deletion (category config), refusals not at all', async () => {
      await created('/api/v1/owners', { id: 'audited', name: 'Audited' });
      expect((await api('PUT', '/api/v1/owners/audited', { name: 'Audited 2' })).status).toBe(200);
      expect((await api('DELETE', '/api/v1/owners/audited')).status).toBe(204);
      expect((await api('POST', '/api/v1/owners', { id: 'grace', name: 'dup' })).status).toBe(409);
      let events: AuditEventDto[] = [];
      await eventually(async () => {
        const listed = (await api('GET', '/api/v1/audit?per_page=500')).json() as { data: AuditEventDto[] };
        events = listed.data.filter((e) => e.resource_type === 'owner' && e.resource_id === 'audited');
        return events.length >= 3;
      }, 'the owner audit events');
      expect(events.map((e) => e.action).sort()).toEqual(['owner.created', 'owner.deleted', 'owner.updated']);
      expect(events.every((e) => e.event_category === 'config' && e.service === 'issuance')).toBe(true);
      const update = events.find((e) => e.action === 'owner.updated');
      expect(update?.details).toMatchObject({ changed_fields: ['name'] });
    });
  });

  describe('renewal policies and issuers referenced by certificates', () => {
    it('refuses to delete a renewal policy a certificate uses (409 renewal_policy_in_use), then allows it', async () => {
      const policy = await created<{ id: string }>('/api/v1/renewal-policies', {
        name: 'In use',
        max_retries: 1,
      });
      const certificate = await insertCertificate(db, { renewal_policy_id: policy.id });
      const refused = await api('DELETE', `/api/v1/renewal-policies/${policy.id}`);
      expect(refused.status).toBe(409);
      expect(refused.json()).toMatchObject({ code: 'renewal_policy_in_use' });
      expect((await api('GET', `/api/v1/renewal-policies/${policy.id}`)).status).toBe(200);
      await db.query('DELETE FROM issuance.certificates WHERE id = $1', [certificate]);
      expect((await api('DELETE', `/api/v1/renewal-policies/${policy.id}`)).status).toBe(204);
    });

    it('refuses to delete an issuer managed certificates use (409 issuer_in_use), then allows it', async () => {
      const issuer = await created<{ id: string }>('/api/v1/issuers', {
        name: 'Vault in use',
        type: 'vault_pki',
        config: { address: 'https://vault.example.com', mount: 'pki', role: 'web', token: 's.token' },
      });
      const certificate = await insertCertificate(db, { issuer_id: issuer.id });
      const refused = await api('DELETE', `/api/v1/issuers/${issuer.id}`);
      expect(refused.status).toBe(409);
      expect(refused.json()).toMatchObject({ code: 'issuer_in_use' });
      expect((await api('GET', `/api/v1/issuers/${issuer.id}`)).status).toBe(200);
      await db.query('DELETE FROM issuance.certificates WHERE id = $1', [certificate]);
      expect((await api('DELETE', `/api/v1/issuers/${issuer.id}`)).status).toBe(204);
    });
  });
});
