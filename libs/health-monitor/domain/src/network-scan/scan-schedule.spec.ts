import { scheduledScanAfterEdit, scheduledScanDecision } from './scan-schedule';

const at = (text: string) => new Date(text);
const HOUR = 3600;

describe('scan schedule', () => {
  it('first runs one period after the schedule is set, and never without one', () => {
    const now = at('2026-01-01T10:00:00Z');
    expect(scheduledScanAfterEdit(HOUR, now)).toEqual(at('2026-01-01T11:00:00Z'));
    expect(scheduledScanAfterEdit(null, now)).toBeNull();
  });

  // Every state x trigger: (previous scan running?) x (on time, late by several periods).
  const cases: [boolean, string, string, string][] = [
    [false, '2026-01-01T11:00:05Z', 'start', '2026-01-01T12:00:00.000Z'],
    [false, '2026-01-01T14:30:00Z', 'start', '2026-01-01T15:00:00.000Z'],
    [true, '2026-01-01T11:00:05Z', 'skip', '2026-01-01T12:00:00.000Z'],
    [true, '2026-01-01T14:30:00Z', 'skip', '2026-01-01T15:00:00.000Z'],
  ];
  for (const [running, now, action, next] of cases) {
    it(`due 11:00, now ${now.slice(11, 16)}, previous scan ${running ? 'running' : 'done'}: ${action}, next ${next.slice(11, 16)}`, () => {
      const decision = scheduledScanDecision({
        dueAt: at('2026-01-01T11:00:00Z'),
        scheduleSeconds: HOUR,
        now: at(now),
        previousScanRunning: running,
      });
      expect(decision.action).toBe(action);
      expect(decision.nextScanAt.toISOString()).toBe(next);
    });
  }
});
