import { AGENT_DEGRADED_WITHIN_SECONDS, AGENT_ONLINE_WITHIN_SECONDS, agentStatus } from './agent-status';

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
