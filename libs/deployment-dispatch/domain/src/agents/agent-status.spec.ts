import {
  AGENT_DEGRADED_WITHIN_SECONDS,
  AGENT_ONLINE_WITHIN_SECONDS,
  agentStatus,
  agentStatusCutoffs,
} from './agent-status';

describe(agentStatus.name, () => {
  const now = new Date('2026-01-01T12:00:00.000Z');
  const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);
  const status = (seconds: number | null, retired = false) =>
    agentStatus(
      { last_heartbeat_at: seconds === null ? null : ago(seconds), retired_at: retired ? ago(1) : null },
      now,
    );

  it('documents the thresholds: online under 120 s, degraded under 300 s', () => {
    expect(AGENT_ONLINE_WITHIN_SECONDS).toBe(120);
    expect(AGENT_DEGRADED_WITHIN_SECONDS).toBe(300);
  });

  it('is Online from a fresh heartbeat up to just under two intervals', () => {
    expect(status(0)).toBe('Online');
    expect(status(61)).toBe('Online');
    expect(status(119.999)).toBe('Online');
  });

  it('is Degraded from two intervals up to just under five minutes', () => {
    expect(status(120)).toBe('Degraded');
    expect(status(299.999)).toBe('Degraded');
  });

  it('is Offline from five minutes on, and when it never sent a heartbeat', () => {
    expect(status(300)).toBe('Offline');
    expect(status(86_400)).toBe('Offline');
    expect(status(null)).toBe('Offline');
  });

  it('treats a heartbeat in the future as fresh', () => {
    expect(status(-30)).toBe('Online');
  });

  it('is Retired once retired, whatever the heartbeat', () => {
    expect(status(0, true)).toBe('Retired');
    expect(status(null, true)).toBe('Retired');
  });
});

describe(agentStatusCutoffs.name, () => {
  const now = new Date('2026-11-25T12:00:00.000Z');
  const { onlineAfter, degradedAfter } = agentStatusCutoffs(now);
  /** What the summary's SQL counts a heartbeat as, from the cutoffs. */
  const counted = (heartbeat: Date) =>
    heartbeat > onlineAfter ? 'Online' : heartbeat > degradedAfter ? 'Degraded' : 'Offline';

  it('counts every heartbeat age as agentStatus reads it, at and around each threshold', () => {
    for (const ageMs of [-5000, 0, 119_999, 120_000, 120_001, 299_999, 300_000, 300_001, 86_400_000]) {
      const heartbeat = new Date(now.getTime() - ageMs);
      expect([ageMs, counted(heartbeat)]).toEqual([
        ageMs,
        agentStatus({ last_heartbeat_at: heartbeat, retired_at: null }, now),
      ]);
    }
  });
});
