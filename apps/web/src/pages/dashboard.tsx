import { lazy, Suspense } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { countByStatus } from '../lib/agents';
import { ErrorNotice } from '../components/widgets';

const Histogram = lazy(() => import('../components/histogram').then((m) => ({ default: m.Histogram })));

const STATUSES = [
  'Active',
  'Expiring',
  'Expired',
  'RenewalInProgress',
  'Pending',
  'Failed',
  'Revoked',
  'Archived',
] as const;

function Stat({
  label,
  value,
  to,
  testId,
}: {
  label: string;
  value: number | undefined;
  to: string;
  testId: string;
}) {
  return (
    <Link to={to} className="stat" data-testid={testId}>
      <span className="stat-value">{value ?? '…'}</span>
      <span className="stat-label">{label}</span>
    </Link>
  );
}

/** Where everything stands: each number links to the list it counts. */
export function DashboardPage() {
  const summary = useQuery({
    queryKey: ['stats-summary'],
    queryFn: () => unwrap(api.GET('/api/v1/stats/summary')),
  });
  const timeline = useQuery({
    queryKey: ['expiration-timeline', 90],
    queryFn: () => unwrap(api.GET('/api/v1/stats/expiration-timeline', { params: { query: { days: 90 } } })),
  });
  const agents = useQuery({
    queryKey: ['agents-fleet'],
    // The first 100 agents by the list; a fleet summary route is still to come.
    queryFn: () => unwrap(api.GET('/api/v1/agents', { params: { query: { per_page: 100 } } })),
  });
  const approvals = useQuery({
    queryKey: ['approvals-pending-count'],
    queryFn: () =>
      unwrap(api.GET('/api/v1/approvals', { params: { query: { status: 'pending', per_page: 1 } } })),
  });
  const fleet = agents.data ? countByStatus(agents.data.data) : undefined;
  const s = summary.data;
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Dashboard</h1>
      <ErrorNotice error={summary.error ?? timeline.error ?? agents.error ?? approvals.error} />
      <h2>Certificates by status</h2>
      <div className="stats">
        <Stat label="All certificates" value={s?.total_certificates} to="/certificates" testId="stat-total" />
        {STATUSES.map((status) => (
          <Stat
            key={status}
            label={status}
            value={s?.by_status[status]}
            to={`/certificates?status=${status}`}
            testId={`stat-${status}`}
          />
        ))}
      </div>
      <h2>Expiring</h2>
      <div className="stats">
        <Stat
          label="within 7 days"
          value={s?.expiring_within.days_7}
          to="/certificates?status=Expiring"
          testId="stat-days-7"
        />
        <Stat
          label="within 30 days"
          value={s?.expiring_within.days_30}
          to="/certificates?status=Expiring"
          testId="stat-days-30"
        />
        <Stat
          label="within 90 days"
          value={s?.expiring_within.days_90}
          to="/certificates"
          testId="stat-days-90"
        />
      </div>
      <h2>Expiries over the next 90 days</h2>
      {timeline.data && (
        <Suspense fallback={<p>Loading chart…</p>}>
          <Histogram
            days={timeline.data.data.map((d) => d.date)}
            counts={timeline.data.data.map((d) => d.count)}
            label="Certificates expiring per day, next 90 days"
          />
        </Suspense>
      )}
      <h2>Agents</h2>
      <div className="stats">
        {(['Online', 'Degraded', 'Offline'] as const).map((status) => (
          <Stat
            key={status}
            label={status}
            value={fleet ? (fleet[status] ?? 0) : undefined}
            to="/agents"
            testId={`stat-agents-${status}`}
          />
        ))}
      </div>
      <h2>Waiting for someone</h2>
      <div className="stats">
        <Stat
          label="Open approvals"
          value={approvals.data?.total}
          to="/approvals?status=pending"
          testId="stat-approvals"
        />
        <Stat
          label="Jobs failed"
          value={s?.jobs_by_status.Failed ?? (s ? 0 : undefined)}
          to="/jobs?status=Failed"
          testId="stat-jobs-failed"
        />
      </div>
    </section>
  );
}
