import { ListScepProbesRequest, ScepProbeRequest } from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

/**
 * The SCEP probe (spec 2.17, 4.9; ADR 0057): served by the health-monitor service. Probing an
 * endpoint is a health-check action, so it takes the health_check permissions.
 */
export const SCEP_PROBE_ROUTES = [
  declareRoute({
    method: 'POST',
    path: '/api/v1/network-scan/scep-probe',
    permission: 'health_check.edit',
    status: 200,
    errors: [400, 401, 403, 413],
    subject: 'health-monitor.v1.run-scep-probe',
    body: ScepProbeRequest,
    response: 'ScepProbeResultDto',
    audit: 'scep_probe.run',
    payload: ({ body }) => body,
  }),
  declareRoute({
    method: 'GET',
    path: '/api/v1/network-scan/scep-probes',
    permission: 'health_check.read',
    status: 200,
    errors: [401, 403],
    subject: 'health-monitor.v1.list-scep-probes',
    query: ListScepProbesRequest,
    response: 'ScepProbeList',
    audit: null,
    payload: ({ query }) => query,
  }),
];
