import { ListScepProbesRequest, SCEP_PROBE_TIMEOUT_MS, ScepProbeRequest } from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

/**
 * The gateway waits out the whole probe (spec 8: 30 s) and then some for the result to be stored,
 * so a slow endpoint is answered 200 with the probe's error (spec 4.9), not 504.
 */
export const SCEP_PROBE_REQUEST_TIMEOUT_MS = SCEP_PROBE_TIMEOUT_MS + 5_000;

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
    timeoutMs: SCEP_PROBE_REQUEST_TIMEOUT_MS,
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
