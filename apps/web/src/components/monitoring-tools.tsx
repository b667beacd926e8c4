import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { sparklineSegments } from '../lib/sparkline';
import { ErrorNotice, Stat, StatusBadge, Time } from './widgets';

const CHECK_STATUSES = ['healthy', 'degraded', 'down', 'cert_mismatch'] as const;

/** The health checks as a status board: how many in each state, and how many need someone. */
export function HealthSummary() {
  const summary = useQuery({
    queryKey: ['/api/v1/health-checks', 'summary'],
    queryFn: () => unwrap(api.GET('/api/v1/health-checks/summary')),
  });
  const data = summary.data;
  return (
    <section aria-label="Status board">
      <ErrorNotice error={summary.error} />
      <div className="stats">
        <Stat label="Checks" value={data?.total} to="/health-checks" testId="health-total" />
        {CHECK_STATUSES.map((status) => (
          <Stat
            key={status}
            label={status.replace('_', ' ')}
            value={data?.[status]}
            to={`/health-checks?status=${status}`}
            testId={`health-${status}`}
          />
        ))}
        <Stat label="Need attention" value={data?.alerting} to="/health-checks" testId="health-alerting" />
        <Stat
          label="Acknowledged"
          value={data?.acknowledged}
          to="/health-checks"
          testId="health-acknowledged"
        />
      </div>
    </section>
  );
}

/** What discovery found, and how much of it still waits for triage. */
export function DiscoverySummary() {
  const summary = useQuery({
    queryKey: ['/api/v1/discovered-certificates', 'summary'],
    queryFn: () => unwrap(api.GET('/api/v1/discovered-certificates/summary')),
  });
  const data = summary.data;
  const link = (status: string) => `/discovered-certificates?status=${status}`;
  return (
    <section aria-label="Triage">
      <ErrorNotice error={summary.error} />
      <div className="stats">
        <Stat label="To triage" value={data?.unmanaged} to={link('Unmanaged')} testId="discovery-unmanaged" />
        <Stat
          label="Unmanaged and expired"
          value={data?.unmanaged_expired}
          to={link('Unmanaged')}
          testId="discovery-expired"
        />
        <Stat label="Claimed" value={data?.claimed} to={link('Claimed')} testId="discovery-claimed" />
        <Stat label="Dismissed" value={data?.dismissed} to={link('Dismissed')} testId="discovery-dismissed" />
        <Stat
          label="No longer seen"
          value={data?.gone}
          to="/discovered-certificates?presence=gone"
          testId="discovery-gone"
        />
      </div>
    </section>
  );
}

const SPARK_WIDTH = 240;
const SPARK_HEIGHT = 40;
const HISTORY_SIZE = 50;

/** The handshake times of the probes, oldest first, as a line; failed probes leave a gap. */
export function Sparkline({ values, label }: { values: readonly (number | null)[]; label: string }) {
  const segments = sparklineSegments(values, SPARK_WIDTH, SPARK_HEIGHT);
  return (
    <svg
      className="sparkline"
      role="img"
      aria-label={label}
      viewBox={`-2 -2 ${SPARK_WIDTH + 4} ${SPARK_HEIGHT + 4}`}
      width={SPARK_WIDTH}
      height={SPARK_HEIGHT}
    >
      {segments.map((points) => (
        <polyline key={points} points={points} />
      ))}
    </svg>
  );
}

/** A check's recent probes: a sparkline of handshake times and the results. */
export function HealthHistory({ checkId }: { checkId: string }) {
  const history = useQuery({
    queryKey: ['/api/v1/health-checks', 'history', checkId],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/health-checks/{id}/history', {
          params: { path: { id: checkId }, query: { per_page: HISTORY_SIZE } },
        }),
      ),
  });
  const results = history.data?.data ?? [];
  // The API answers newest first; a line reads left to right, oldest first.
  const oldestFirst = [...results].reverse();
  const times = oldestFirst.map((result) => result.handshake_ms);
  const known = times.filter((time): time is number => time !== null);
  const failures = results.filter((result) => !result.success).length;
  return (
    <section aria-label="History" className="record">
      <h3>History</h3>
      <ErrorNotice error={history.error} />
      {history.data && results.length === 0 && <p className="empty">Not probed yet.</p>}
      {results.length > 0 && (
        <>
          <p>
            <Sparkline
              values={times}
              label={`Handshake times of the last ${results.length} probes${
                known.length > 0 ? `: ${Math.min(...known)} to ${Math.max(...known)} ms` : ''
              }, ${failures} failed`}
            />{' '}
            {results.length} probes, {failures} failed ({history.data?.total} in all).
          </p>
          <table>
            <thead>
              <tr>
                <th scope="col">Checked</th>
                <th scope="col">Status</th>
                <th scope="col">Handshake (ms)</th>
                <th scope="col">TLS</th>
                <th scope="col">Served certificate expires</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {results.slice(0, 10).map((result) => (
                <tr key={result.id}>
                  <td>
                    <Time value={result.checked_at} />
                  </td>
                  <td>
                    <StatusBadge status={result.status} />
                  </td>
                  <td>{result.handshake_ms ?? '—'}</td>
                  <td>{result.tls_version ?? '—'}</td>
                  <td>
                    <Time value={result.not_after} />
                  </td>
                  <td>{result.error ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
