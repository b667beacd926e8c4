import { AgentDependencyCounts, SENTINEL_AGENT_IDS } from '@certlane/contracts';
import { decideRetirement, isSentinelAgent } from './agent-retirement';

const none: AgentDependencyCounts = { active_targets: 0, active_certificates: 0, pending_jobs: 0 };
const some: AgentDependencyCounts = { active_targets: 2, active_certificates: 1, pending_jobs: 3 };

describe(decideRetirement.name, () => {
  const decide = (overrides: Partial<Parameters<typeof decideRetirement>[0]>) =>
    decideRetirement({ id: 'edge-1', retired: false, force: false, counts: none, ...overrides });

  it('retires an agent without dependencies, with no cascade', () => {
    expect(decide({})).toEqual({ outcome: 'retire', cascade: false, reason: null });
    expect(decide({ reason: ' decommissioned ' })).toEqual({
      outcome: 'retire',
      cascade: false,
      reason: 'decommissioned',
    });
  });

  it.each([
    ['targets', { ...none, active_targets: 1 }],
    ['certificates', { ...none, active_certificates: 1 }],
    ['jobs', { ...none, pending_jobs: 1 }],
  ])('blocks a retirement without force when the agent has active %s, with the counts', (_what, counts) => {
    expect(decide({ counts })).toEqual({ outcome: 'blocked', counts });
  });

  it('retires with force and a reason, cascading to the targets', () => {
    expect(decide({ counts: some, force: true, reason: 'host gone' })).toEqual({
      outcome: 'retire',
      cascade: true,
      reason: 'host gone',
    });
  });

  it('does not cascade a forced retirement that had nothing to cascade', () => {
    expect(decide({ force: true, reason: 'tidy' })).toEqual({
      outcome: 'retire',
      cascade: false,
      reason: 'tidy',
    });
  });

  it('refuses force without a reason, or with a blank one, before anything else but the sentinel rule', () => {
    expect(decide({ force: true })).toEqual({ outcome: 'reason_required' });
    expect(decide({ force: true, reason: '   ', counts: some })).toEqual({ outcome: 'reason_required' });
    expect(decide({ force: true, retired: true })).toEqual({ outcome: 'reason_required' });
  });

  it('answers already_retired for a retired agent, whatever its counts', () => {
    expect(decide({ retired: true })).toEqual({ outcome: 'already_retired' });
    expect(decide({ retired: true, counts: some })).toEqual({ outcome: 'already_retired' });
    expect(decide({ retired: true, counts: some, force: true, reason: 'again' })).toEqual({
      outcome: 'already_retired',
    });
  });

  it.each(SENTINEL_AGENT_IDS.map((id) => [id]))('never retires the sentinel %s, even with force', (id) => {
    expect(decide({ id })).toEqual({ outcome: 'sentinel' });
    expect(decide({ id, force: true, reason: 'please' })).toEqual({ outcome: 'sentinel' });
    expect(decide({ id, force: true })).toEqual({ outcome: 'sentinel' });
  });
});

describe(isSentinelAgent.name, () => {
  it('knows the four reserved ids of spec 2.4 and nothing else', () => {
    expect(SENTINEL_AGENT_IDS).toEqual(['server-scanner', 'cloud-aws-sm', 'cloud-azure-sm', 'cloud-gcp-sm']);
    expect(isSentinelAgent('cloud-aws-sm')).toBe(true);
    expect(isSentinelAgent('cloud-other-sm')).toBe(false);
    expect(isSentinelAgent('server-scanner-2')).toBe(false);
  });
});
