/**
 * `host:port` or `[v6]:port` into its parts; with `defaultPort`, a bare host too. Null for
 * anything else (a URL, whitespace or a slash in the host, a port outside 1..65535). The one
 * reader of target and verification endpoints (connectors, the target probe, job verification).
 */
export function readEndpoint(endpoint: string, defaultPort?: number): { host: string; port: number } | null {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s/]+))(?::(\d{1,5}))?$/.exec(endpoint.trim());
  if (!match || (match[3] === undefined && defaultPort === undefined)) return null;
  const port = match[3] !== undefined ? Number(match[3]) : (defaultPort as number);
  if (port < 1 || port > 65535) return null;
  return { host: match[1] ?? match[2], port };
}
