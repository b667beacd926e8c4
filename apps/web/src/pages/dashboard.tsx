import { lazy, Suspense } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { ErrorNotice, Stat } from '../components/widgets';

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

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

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
  const jobTrends = useQuery({
    queryKey: ['job-trends', 30],
    queryFn: () => unwrap(api.GET('/api/v1/stats/job-trends', { params: { query: { days: 30 } } })),
  });
  const issuanceRate = useQuery({
    queryKey: ['issuance-rate', 30],
    queryFn: () => unwrap(api.GET('/api/v1/stats/issuance-rate', { params: { query: { days: 30 } } })),
  });
  const agents = useQuery({
    queryKey: ['agents-summary'],
    queryFn: () => unwrap(api.GET('/api/v1/agents/summary')),
  });
  const approvals = useQuery({
    queryKey: ['approvals-pending-count'],
    queryFn: () =>
      unwrap(api.GET('/api/v1/approvals', { params: { query: { status: 'pending', per_page: 1 } } })),
  });
  const violations = useQuery({
    queryKey: ['violations-summary'],
    queryFn: () => unwrap(api.GET('/api/v1/policies/violations/summary')),
  });
  // The summary counts the fleet without the four reserved sentinel agents (spec 2.4).
  const fleet = agents.data ?? (agents.error ? null : undefined);
  const s = summary.data ?? (summary.error ? null : undefined);
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Dashboard</h1>
      <ErrorNotice
        error={
          summary.error ??
          timeline.error ??
          jobTrends.error ??
          issuanceRate.error ??
          agents.error ??
          approvals.error
        }
      />
      <h2>Certificates by status</h2>
      <div className="stats">
        <Stat
          label="All certificates"
          value={s ? s.total_certificates : s}
          to="/certificates"
          testId="stat-total"
        />
        {STATUSES.map((status) => (
          <Stat
            key={status}
            label={status}
            value={s ? s.by_status[status] : s}
            to={`/certificates?status=${status}`}
            testId={`stat-${status}`}
          />
        ))}
      </div>
      <h2>Expiring</h2>
      <div className="stats">
        <Stat
          label="within 7 days"
          value={s ? s.expiring_within.days_7 : s}
          to="/certificates?status=Expiring"
          testId="stat-days-7"
        />
        <Stat
          label="within 30 days"
          value={s ? s.expiring_within.days_30 : s}
          to="/certificates?status=Expiring"
          testId="stat-days-30"
        />
        <Stat
          label="within 90 days"
          value={s ? s.expiring_within.days_90 : s}
          to="/certificates"
          testId="stat-days-90"
        />
      </div>
      <h2>Expiries over the next 90 days</h2>
      {timeline.data && (
        <Suspense fallback={<p>Loading chart…</p>}>
          <Histogram
            days={timeline.data.data.map((d) => d.date)}
            series={[
              { label: 'expiring', values: timeline.data.data.map((d) => d.count), colour: '#2563eb' },
            ]}
            label="Certificates expiring per day, next 90 days"
          />
        </Suspense>
      )}
      <h2>Job outcomes, last 30 days</h2>
      {jobTrends.data && (
        <Suspense fallback={<p>Loading chart…</p>}>
          <Histogram
            days={jobTrends.data.data.map((d) => d.date)}
            series={[
              { label: 'completed', values: jobTrends.data.data.map((d) => d.completed), colour: '#15803d' },
              { label: 'failed', values: jobTrends.data.data.map((d) => d.failed), colour: '#b91c1c' },
              { label: 'cancelled', values: jobTrends.data.data.map((d) => d.cancelled), colour: '#6b7280' },
            ]}
            label={`Jobs per day over 30 days: ${sum(jobTrends.data.data.map((d) => d.completed))} completed, ${sum(jobTrends.data.data.map((d) => d.failed))} failed, ${sum(jobTrends.data.data.map((d) => d.cancelled))} cancelled`}
          />
        </Suspense>
      )}
      <h2>Issuance rate, last 30 days</h2>
      {issuanceRate.data && (
        <Suspense fallback={<p>Loading chart…</p>}>
          <Histogram
            days={issuanceRate.data.data.map((d) => d.date)}
            series={[
              { label: 'issued', values: issuanceRate.data.data.map((d) => d.count), colour: '#7c3aed' },
            ]}
            label={`Certificates issued per day over 30 days: ${sum(issuanceRate.data.data.map((d) => d.count))} in all`}
          />
        </Suspense>
      )}
      <h2>Agents</h2>
      <div className="stats">
        {(['Online', 'Degraded', 'Offline'] as const).map((status) => (
          <Stat
            key={status}
            label={status}
            value={fleet ? fleet[status.toLowerCase() as 'online' | 'degraded' | 'offline'] : fleet}
            to="/agents"
            testId={`stat-agents-${status}`}
          />
        ))}
      </div>
      <h2>Waiting for someone</h2>
      <div className="stats">
        <Stat
          label="Open approvals"
          value={approvals.data?.total ?? (approvals.error ? null : undefined)}
          to="/approvals?status=pending"
          testId="stat-approvals"
        />
        <Stat
          label="Open violations"
          value={violations.data?.open ?? (violations.error ? null : undefined)}
          to="/policies"
          testId="stat-violations"
        />
        <Stat
          label="Jobs failed"
          value={s ? (s.jobs_by_status.Failed ?? 0) : s}
          to="/jobs?status=Failed"
          testId="stat-jobs-failed"
        />
      </div>
    </section>
  );
}
