import { SCEP_PROBE_TIMEOUT_MS } from '@certlane/contracts';
import { RouteDeclaration } from '../routes/route-declaration';
import { DISCOVERED_CERTIFICATE_ROUTES } from './discovered-certificate.routes';
import { SCEP_PROBE_ROUTES } from './scep-probe.routes';

/** The bus default a route waits when it declares no timeout (SERVICE_BUS_REQUEST_TIMEOUT). */
const BUS_DEFAULT_MS = 5_000;

const route = (routes: readonly RouteDeclaration[], method: string, path: string) => {
  const found = routes.find((entry) => entry.method === method && entry.path === path);
  if (!found) throw new Error(`no route ${method} ${path}`);
  return found;
};

describe('health-monitor routes that outlast the bus default', () => {
  it('spec 8 and 4.9: the gateway waits longer for a SCEP probe than the probe itself may take', () => {
    const probe = route(SCEP_PROBE_ROUTES, 'POST', '/api/v1/network-scan/scep-probe');
    expect(probe.timeoutMs).toBeGreaterThan(SCEP_PROBE_TIMEOUT_MS);
  });

  it('waits for a bulk claim of up to 100 sequential imports far beyond one request', () => {
    const claim = route(DISCOVERED_CERTIFICATE_ROUTES, 'POST', '/api/v1/discovered-certificates/bulk-claim');
    expect(claim.timeoutMs).toBeGreaterThanOrEqual(60 * BUS_DEFAULT_MS);
  });
});
