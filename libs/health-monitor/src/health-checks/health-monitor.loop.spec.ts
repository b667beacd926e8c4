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
