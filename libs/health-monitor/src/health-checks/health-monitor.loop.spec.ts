import { CertlaneLogger, ServiceOutbox } from '@certlane/platform';
import { HealthCheckRepository, HealthCheckRow } from './health-check.repository';
import { HealthMonitorLoop, MAX_WAITING } from './health-monitor.loop';
import { TlsProber } from './tls-prober';

const NOW = new Date('2026-06-01T12:00:00Z');

/** A table of overdue checks: claimDue hands out the oldest `limit`, as the real query does. */
function overdueTable(count: number) {
  const due = Array.from(
    { length: count },
    (_, i) =>
      ({
        id: `hc-${i}`,
        host: '127.0.0.1',
        port: 443,
        sni: null,
        interval_seconds: 60,
        next_check_at: new Date(NOW.getTime() - 3_600_000),
      }) as HealthCheckRow,
  );
  const repository = {
    transaction: <T>(work: (manager: never) => Promise<T>) => work(undefined as never),
    claimDue: async (_manager: unknown, _horizon: Date, limit: number) => due.splice(0, limit),
    reschedule: async () => undefined,
    lockForRecording: async () => [],
    updateProgressMany: async () => undefined,
    addResults: async () => undefined,
    trimHistory: async () => undefined,
  };
  return { repository: repository as unknown as HealthCheckRepository, left: () => due.length };
}

describe(HealthMonitorLoop.name, () => {
  // Regression: the claim took batches of 500 until one came back short, so after downtime one
  // replica claimed every overdue check and the others found nothing due.
  it('claims no more than MAX_WAITING of an overdue backlog in one pass, leaving the rest due', async () => {
    const table = overdueTable(2_000);
    const prober = {
      probe: async () => ({
        observation: { kind: 'error', error: 'refused' },
        handshake_ms: null,
        tls_version: null,
        chain: [],
      }),
    } as unknown as TlsProber;
    const outbox = { addMany: async () => undefined, committed: () => undefined } as unknown as ServiceOutbox;
    const logger = { warn: () => undefined } as unknown as CertlaneLogger;
    const loop = new HealthMonitorLoop(table.repository, prober, outbox, { now: () => NOW }, logger, false);
    const probed = await loop.runDue();
    expect(probed).toHaveLength(MAX_WAITING);
    expect(table.left()).toBe(2_000 - MAX_WAITING);
  });
});

describe(`${HealthMonitorLoop.name} recording a probe whose check changed meanwhile`, () => {
  const claimed = {
    id: 'hc-1',
    name: 'web',
    host: 'old.example.test',
    port: 443,
    sni: null,
    expected_fingerprint: null,
    interval_seconds: 60,
    enabled: true,
    status: 'healthy',
    consecutive_failures: 1,
    acknowledged_at: null,
    acknowledged_by: null,
    status_changed_at: NOW,
    last_checked_at: null,
    next_check_at: new Date(NOW.getTime() - 1_000),
    last_error: null,
    last_fingerprint: null,
    last_not_after: null,
    created_at: NOW,
    updated_at: NOW,
  } as HealthCheckRow;

  /** Claims `claimed`; the recorder's locked read answers `atRecording` (the check as it is then). */
  async function run(atRecording: Partial<HealthCheckRow>) {
    const results: unknown[] = [];
    const events: unknown[] = [];
    const repository = {
      transaction: <T>(work: (manager: never) => Promise<T>) => work(undefined as never),
      claimDue: async () => [claimed],
      reschedule: async () => undefined,
      lockForRecording: async () => [{ ...claimed, ...atRecording, results_since_trim: 0 }],
      updateProgressMany: async () => undefined,
      addResults: async (_manager: unknown, rows: unknown[]) => results.push(...rows),
      trimHistory: async () => undefined,
    } as unknown as HealthCheckRepository;
    const prober = {
      probe: async () => ({
        observation: { kind: 'error', error: 'connection refused' },
        handshake_ms: null,
        tls_version: null,
        chain: [],
      }),
    } as unknown as TlsProber;
    const outbox = {
      addMany: async (_manager: unknown, _subject: string, rows: unknown[]) => events.push(...rows),
      committed: () => undefined,
    } as unknown as ServiceOutbox;
    const logger = { warn: () => undefined } as unknown as CertlaneLogger;
    await new HealthMonitorLoop(repository, prober, outbox, { now: () => NOW }, logger, false).runDue();
    return { results, events };
  }

  it('records an unchanged check (second failure: degraded, one event)', async () => {
    const { results, events } = await run({});
    expect(results).toHaveLength(1);
    expect(events).toMatchObject([{ from: 'healthy', to: 'degraded' }]);
  });

  // Regression: the recorder applied the outcome to whatever the row was by then, so a check
  // disabled mid-probe got a result and a status-change notification, and a check moved to a new
  // host was judged (and alerted on) by its old host's answer.
  it.each([
    ['disabled while probing', { enabled: false }],
    ['moved to another host while probing', { host: 'new.example.test' }],
    ['moved to another port while probing', { port: 8443 }],
    ['given another SNI name while probing', { sni: 'other.example.test' }],
  ])('drops the outcome of a check %s', async (_case, change) => {
    const { results, events } = await run(change);
    expect(results).toEqual([]);
    expect(events).toEqual([]);
  });
});
