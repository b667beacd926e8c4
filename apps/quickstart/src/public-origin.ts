/**
 * The one public origin of a local run (ARCHITECTURE 8): https://localhost on SERVICE_PORT. It is
 * the default of SERVICE_REVOCATION_BASE_URL, so the CRL and OCSP URLs issued certificates carry
 * answer on the port the run listens on (the quick start's own listener, or the gateway's in
 * start:services), not on 8443 whatever the port.
 */
export function localPublicOrigin(env: NodeJS.ProcessEnv): string {
  return `https://localhost:${env.SERVICE_PORT || '8443'}`;
}
