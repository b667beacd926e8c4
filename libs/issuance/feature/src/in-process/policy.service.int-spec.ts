import { EventEnvelope, PolicyRuleDto } from '@certlane/contracts';
import { eventually } from '@certlane/testing';
import { InProcessService, startInProcessService } from '@certlane/testing-in-process';
import { IssuanceModule } from '../issuance.module';

const admin = { actor_id: 'usr-policy-admin' };

/** The policy service through its bus subjects, in process (ADR 0048; spec 2.6, 2.7; ADR 0028). */
describe('policy service', () => {
  let service: InProcessService;

  beforeAll(async () => {
    service = await startInProcessService({ services: ['issuance'], modules: [IssuanceModule.forRoot()] });
  }, 30_000);

  afterAll(async () => {
    await service?.close();
  });

  const create = (name: string, body: Partial<PolicyRuleDto> = {}) =>
    service.bus.request(
      'issuance.v1.create-policy',
      { name, type: 'AllowedIssuers', config: { allowed: ['iss-local'] }, ...body },
      { context: admin },
    );

  /** What the service wrote to its outbox about one resource, oldest first. */
  const outboxed = async (subject: string, field: 'id' | 'resource_id', id: string) =>
    (
      await service.sql.query<{ envelope: EventEnvelope<Record<string, unknown>> }>(
        `SELECT envelope FROM outbox WHERE subject = $1 AND envelope->'data'->>'${field}' = $2 ORDER BY seq`,
        [subject, id],
      )
    ).rows.map((row) => row.envelope.data);

  it('creates a rule, reads it back, and records the creation event and audit by the actor', async () => {
    const created = await create('issuers-only');
    expect(created).toMatchObject({ name: 'issuers-only', type: 'AllowedIssuers', severity: 'Warning' });
    expect(created.id).toMatch(/^pol-[0-9a-f]{16}$/);
    expect(await service.bus.request('issuance.v1.get-policy', { id: created.id })).toEqual(created);

    expect(await outboxed('issuance.v1.policy.created', 'id', created.id)).toEqual([created]);
    expect(await outboxed('issuance.v1.audit.recorded', 'resource_id', created.id)).toEqual([
      expect.objectContaining({
        action: 'policy.created',
        actor_id: admin.actor_id,
        event_category: 'config',
      }),
    ]);
  });

  it('refuses an update with a config of the wrong type and leaves the rule as it was', async () => {
    const rule = await create('issuers-then-broken');
    await expect(
      service.bus.request('issuance.v1.update-policy', { id: rule.id, config: { allowed: 'iss-local' } }),
    ).rejects.toMatchObject({ code: 'validation_failed', details: { fields: [{ field: 'config' }] } });
    expect(await service.bus.request('issuance.v1.get-policy', { id: rule.id })).toEqual(rule);
    expect(await outboxed('issuance.v1.policy.updated', 'id', rule.id)).toEqual([]);
  });

  it('keeps the stored config when an update changes only the type', async () => {
    const rule = await create('issuers-to-domains');
    const changed = await service.bus.request('issuance.v1.update-policy', {
      id: rule.id,
      type: 'AllowedDomains',
    });
    expect(changed).toMatchObject({ type: 'AllowedDomains', config: rule.config, severity: rule.severity });
    expect(await outboxed('issuance.v1.policy.updated', 'id', rule.id)).toEqual([changed]);
  });

  it('publishes the deletion on the bus once committed, and the rule is gone for every subject', async () => {
    const rule = await create('short-lived');
    const deleted: string[] = [];
    await service.bus.subscribe('issuance.v1.policy.deleted', async (event) => {
      deleted.push(event.data.id);
    });
    expect(await service.bus.request('issuance.v1.delete-policy', { id: rule.id })).toEqual({ id: rule.id });
    await eventually(() => deleted.includes(rule.id), 'the policy.deleted event');
    for (const request of [
      () => service.bus.request('issuance.v1.get-policy', { id: rule.id }),
      () => service.bus.request('issuance.v1.delete-policy', { id: rule.id }),
      () => service.bus.request('issuance.v1.update-policy', { id: rule.id, name: 'again' }),
      () => service.bus.request('issuance.v1.list-policy-violations', { id: rule.id }),
    ]) {
      await expect(request()).rejects.toMatchObject({ code: 'policy_rule_not_found' });
    }
  });

  it('dry run: reports the violation of an enabled rule and ignores a disabled one', async () => {
    const allowed = await create('only-local', { config: { allowed: ['iss-local'] } });
    const disabled = await create('only-other', { config: { allowed: ['iss-other'] }, enabled: false });
    const result = await service.bus.request('issuance.v1.evaluate-policies', {
      common_name: 'www.example.com',
      issuer_id: 'iss-elsewhere',
    });
    const ruleIds = result.violations.map((violation) => violation.rule_id);
    expect(ruleIds).toContain(allowed.id);
    expect(ruleIds).not.toContain(disabled.id);
    expect(result.violations.find((v) => v.rule_id === allowed.id)).toMatchObject({
      code: 'issuer_not_allowed',
      severity: 'Warning',
    });
  });

  it('dry run: refuses an unknown renewal policy (reference_invalid) and an inverted validity (validation_failed)', async () => {
    await expect(
      service.bus.request('issuance.v1.evaluate-policies', {
        common_name: 'www.example.com',
        renewal_policy_id: 'rp-missing',
      }),
    ).rejects.toMatchObject({ code: 'reference_invalid', details: { field: 'renewal_policy_id' } });
    await expect(
      service.bus.request('issuance.v1.evaluate-policies', {
        common_name: 'www.example.com',
        not_before: '2030-01-02T00:00:00Z',
        not_after: '2030-01-01T00:00:00Z',
      }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
  });
});
