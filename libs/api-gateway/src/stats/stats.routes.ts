import { StatsWindowRequest } from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

/** /api/v1/stats (ADR 0024): dashboard aggregates computed by the issuance service in SQL. */
export const STATS_ROUTES = [
  declareRoute({
    method: 'GET',
    path: '/api/v1/stats/summary',
    permission: 'certificate.read',
    status: 200,
    errors: [401, 403],
    subject: 'issuance.v1.get-stats-summary',
    response: 'StatsSummaryDto',
    audit: null,
    payload: () => ({}),
  }),
  /** `days` 1..365, default 90: today (UTC) and the days after it. */
  declareRoute({
    method: 'GET',
    path: '/api/v1/stats/expiration-timeline',
    permission: 'certificate.read',
    status: 200,
    errors: [400, 401, 403],
    subject: 'issuance.v1.get-expiration-timeline',
    query: StatsWindowRequest,
    response: 'ExpirationTimelineDto',
    audit: null,
    payload: ({ query }) => query,
  }),
  /** `days` 1..365, default 30: the days before today (UTC) and today. */
  declareRoute({
    method: 'GET',
    path: '/api/v1/stats/issuance-rate',
    permission: 'certificate.read',
    status: 200,
    errors: [400, 401, 403],
    subject: 'issuance.v1.get-issuance-rate',
    query: StatsWindowRequest,
    response: 'IssuanceRateDto',
    audit: null,
    payload: ({ query }) => query,
  }),
  /** `days` 1..365, default 30: jobs finished per day, by outcome. */
  declareRoute({
    method: 'GET',
    path: '/api/v1/stats/job-trends',
    permission: 'job.read',
    status: 200,
    errors: [400, 401, 403],
    subject: 'issuance.v1.get-job-trends',
    query: StatsWindowRequest,
    response: 'JobTrendsDto',
    audit: null,
    payload: ({ query }) => query,
  }),
];
