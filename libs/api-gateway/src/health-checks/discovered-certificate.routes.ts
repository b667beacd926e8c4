import {
  AgentDiscoveryBody,
  BulkClaimDiscoveredCertificatesRequest,
  BulkDismissDiscoveredCertificatesRequest,
  ClaimDiscoveredCertificateFields,
  ListDiscoveredCertificatesRequest,
} from '@certlane/contracts';
import { BULK_REQUEST_TIMEOUT_MS } from '../bulk/bulk.routes';
import { declareRoute } from '../routes/route-declaration';

const BASE = '/api/v1/discovered-certificates';

/** Discovered-certificate triage (spec 2.14, 4.12; ADR 0057): served by health-monitor. */
export const DISCOVERED_CERTIFICATE_ROUTES = [
  declareRoute({
    method: 'GET',
    path: BASE,
    permission: 'discovery.read',
    status: 200,
    errors: [400, 401, 403],
    subject: 'health-monitor.v1.list-discovered-certificates',
    query: ListDiscoveredCertificatesRequest,
    response: 'Page<DiscoveredCertificateDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  // Literal path: before /:id.
  declareRoute({
    method: 'GET',
    path: `${BASE}/summary`,
    permission: 'discovery.read',
    status: 200,
    errors: [401, 403],
    subject: 'health-monitor.v1.get-discovered-certificate-summary',
    response: 'DiscoveredCertificateSummary',
    audit: null,
    payload: () => ({}),
  }),
  // Bulk triage (ADR 0063): per-item partial failure, one audit event per call; literal paths.
  declareRoute({
    method: 'POST',
    path: `${BASE}/bulk-dismiss`,
    permission: 'discovery.dismiss',
    status: 200,
    errors: [400, 401, 403, 413],
    subject: 'health-monitor.v1.bulk-dismiss-discovered-certificates',
    body: BulkDismissDiscoveredCertificatesRequest,
    response: 'DiscoveryBulkResult',
    audit: 'discovered_certificate.bulk_dismissed',
    payload: ({ body }) => body,
  }),
  declareRoute({
    method: 'POST',
    path: `${BASE}/bulk-claim`,
    permission: 'discovery.claim',
    status: 200,
    errors: [400, 401, 403, 413],
    subject: 'health-monitor.v1.bulk-claim-discovered-certificates',
    body: BulkClaimDiscoveredCertificatesRequest,
    response: 'DiscoveryBulkResult',
    audit: 'discovered_certificate.bulk_claimed',
    // Up to 100 imports, each a request to issuance in turn: far beyond an ordinary request's wait.
    timeoutMs: BULK_REQUEST_TIMEOUT_MS,
    payload: ({ body }) => body,
  }),
  declareRoute({
    method: 'GET',
    path: `${BASE}/:id`,
    permission: 'discovery.read',
    status: 200,
    errors: [400, 401, 403, 404],
    subject: 'health-monitor.v1.get-discovered-certificate',
    response: 'DiscoveredCertificateDto',
    audit: null,
    payload: ({ params }) => ({ id: params.id }),
  }),
  declareRoute({
    method: 'POST',
    path: `${BASE}/:id/dismiss`,
    permission: 'discovery.dismiss',
    status: 200,
    errors: [400, 401, 403, 404, 409],
    subject: 'health-monitor.v1.dismiss-discovered-certificate',
    response: 'DiscoveredCertificateDto',
    audit: 'discovered_certificate.dismissed',
    payload: ({ params }) => ({ id: params.id }),
  }),
  declareRoute({
    method: 'POST',
    path: `${BASE}/:id/claim`,
    permission: 'discovery.claim',
    status: 200,
    errors: [400, 401, 403, 404, 409, 413],
    subject: 'health-monitor.v1.claim-discovered-certificate',
    body: ClaimDiscoveredCertificateFields,
    response: 'DiscoveredCertificateDto',
    audit: 'discovered_certificate.claimed',
    payload: ({ params, body }) => ({ ...body, id: params.id }),
  }),
  /**
   * The machine-to-machine discovery endpoint (spec 4.7 note; ADR 0063): an agent pushes the
   * certificates its filesystem scan found. Only agent `:id` itself (or an admin) may push for it.
   */
  declareRoute({
    method: 'POST',
    path: '/api/v1/agents/:id/discovery',
    permission: 'discovery.push',
    status: 200,
    errors: [400, 401, 403, 413],
    subject: 'health-monitor.v1.push-agent-discovery',
    body: AgentDiscoveryBody,
    response: 'AgentDiscoveryAccepted',
    audit: 'discovery.agent_pushed',
    ownWork: true,
    payload: ({ params, body }) => ({ ...body, agent_id: params.id }),
  }),
];
