import { isIP } from 'node:net';
import { NodeDeploymentHost } from '@certlane/connectors';

/** How long a verification waits for the TLS handshake (below the bus request timeout). */
export const TLS_PROBE_TIMEOUT_MS = 3_000;

/** `host:port`, `[v6]:port` or a bare host (port 443). */
export function parseEndpoint(endpoint: string): { host: string; port: number } | null {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s/]+))(?::(\d{1,5}))?$/.exec(endpoint.trim());
  if (!match) return null;
  const port = match[3] ? Number(match[3]) : 443;
  if (port < 1 || port > 65535) return null;
  return { host: match[1] ?? match[2], port };
}

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
