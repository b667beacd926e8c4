import { EventEnvelope, ProfileDto } from '@certlane/contracts';
import { eventually } from '@certlane/testing';
import { InProcessService, startInProcessService } from '@certlane/testing-in-process';
import { IssuanceModule } from '../issuance.module';

const admin = { actor_id: 'usr-profile-admin' };

/** The profile service through its bus subjects, in process (ADR 0048; spec 2.9, 4.5; ADR 0025). */
describe('profile service', () => {
  let service: InProcessService;

  beforeAll(async () => {
    service = await startInProcessService({ services: ['issuance'], modules: [IssuanceModule.forRoot()] });
  }, 30_000);

  afterAll(async () => {
    await service?.close();
  });

  const create = (name: string, body: Partial<ProfileDto> = {}) =>
    service.bus.request('issuance.v1.create-profile', { name, ...body }, { context: admin });

  /** What the service wrote to its outbox about one resource, oldest first. */
  const outboxed = async (subject: string, field: 'id' | 'resource_id' | 'profile_id', id: string) =>
    (
      await service.sql.query<{ envelope: EventEnvelope<Record<string, unknown>> }>(
        `SELECT envelope FROM outbox WHERE subject = $1 AND envelope->'data'->>'${field}' = $2 ORDER BY seq`,
        [subject, id],
      )
    ).rows.map((row) => row.envelope.data);

  it('derives the id from the name, takes the next free one when it is taken, and refuses a taken explicit id', async () => {
    const first = await create('Web Servers');
    const second = await create('web servers');
    expect([first.id, second.id]).toEqual(['prof-web-servers', 'prof-web-servers-2']);
    await expect(create('Another', { id: 'prof-web-servers' })).rejects.toMatchObject({
      code: 'profile_exists',
    });
    expect(await service.bus.request('issuance.v1.get-profile', { id: 'prof-web-servers' })).toEqual(first);
  });

  it('applies an edit at once when no approval is involved: the updated event and an audit naming the changed fields', async () => {
    const profile = await create('Direct Edit');
    const result = await service.bus.request(
      'issuance.v1.update-profile',
      { id: profile.id, must_staple: true, description: 'stapled' },
      { context: admin },
    );
    expect(result).toMatchObject({ applied: true, profile: { must_staple: true, description: 'stapled' } });
    const updated = (result as { profile: ProfileDto }).profile;
    expect(await outboxed('issuance.v1.profile.updated', 'id', profile.id)).toEqual([updated]);
    const audits = await outboxed('issuance.v1.audit.recorded', 'resource_id', profile.id);
    expect(audits.map((audit) => audit.action)).toEqual(['profile.created', 'profile.updated']);
    expect(audits[1]).toMatchObject({
      actor_id: admin.actor_id,
      details: { changed_fields: ['description', 'must_staple'] },
    });
  });

  it('holds an edit of a profile that requires approval: nothing changes, the approval is requested and the request audited', async () => {
    const profile = await create('Guarded', { requires_approval: true });
    const result = await service.bus.request(
      'issuance.v1.update-profile',
      { id: profile.id, validity_days: 30 },
      { context: admin },
    );
    expect(Object.keys(result)).toEqual(['applied', 'pending_approval_id']);
    const approvalId = (result as { pending_approval_id: string }).pending_approval_id;
    expect(await service.bus.request('issuance.v1.get-profile', { id: profile.id })).toEqual(profile);
    expect(await outboxed('issuance.v1.profile.updated', 'id', profile.id)).toEqual([]);
    expect(await outboxed('issuance.v1.approval.requested', 'profile_id', profile.id)).toEqual([
      expect.objectContaining({
        id: approvalId,
        approval_kind: 'profile_edit',
        status: 'pending',
        requested_by: admin.actor_id,
        payload: { validity_days: 30 },
      }),
    ]);
    const audits = await outboxed('issuance.v1.audit.recorded', 'resource_id', profile.id);
    expect(audits.at(-1)).toMatchObject({
      action: 'profile.edit_requested',
      details: { approval_id: approvalId, changed_fields: ['validity_days'] },
    });
  });

  it('publishes the deletion on the bus, and answers profile_not_found for the profile afterwards', async () => {
    const profile = await create('Short Lived');
    const deleted: string[] = [];
    await service.bus.subscribe('issuance.v1.profile.deleted', async (event) => {
      deleted.push(event.data.id);
    });
    expect(await service.bus.request('issuance.v1.delete-profile', { id: profile.id })).toEqual({
      id: profile.id,
    });
    await eventually(() => deleted.includes(profile.id), 'the profile.deleted event');
    for (const request of [
      () => service.bus.request('issuance.v1.get-profile', { id: profile.id }),
      () => service.bus.request('issuance.v1.update-profile', { id: profile.id, description: 'x' }),
      () => service.bus.request('issuance.v1.delete-profile', { id: profile.id }),
    ]) {
      await expect(request()).rejects.toMatchObject({ code: 'profile_not_found' });
    }
  });
});
