import { isIP } from 'node:net';
import { NodeDeploymentHost } from '@certlane/connectors';

/** How long a verification waits for the TLS handshake (below the bus request timeout). */
export const TLS_PROBE_TIMEOUT_MS = 3_000;

export type ProbeResult = { ok: true; fingerprintSha256: string } | { ok: false; error: string };

/**
 * The SHA-256 fingerprint (lower-case hex of the DER) of the leaf the endpoint serves, read by the
 * same probe the deploying side verifies with (libs/connectors). The chain is not verified: the
 * question is which certificate is served, not whether this process trusts it.
 */
export async function probeLeaf(
  endpoint: { host: string; port: number },
  serverName: string | undefined,
  timeoutMs = TLS_PROBE_TIMEOUT_MS,
): Promise<ProbeResult> {
  const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
  const sni = serverName && !isIP(serverName) ? serverName : undefined;
  try {
    const fingerprintSha256 = await new NodeDeploymentHost({ connectTimeoutMs: timeoutMs }).servedFingerprint(
      `${host}:${endpoint.port}`,
      sni,
    );
    return { ok: true, fingerprintSha256 };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
