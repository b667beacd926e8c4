import { readFileSync } from 'node:fs';
import { httpsBaseUrl } from '@certlane/api-client';
import { parseToolSets, ToolSet } from './tool-sets';

export interface HttpTransportConfig {
  host: string;
  port: number;
  certPath: string;
  keyPath: string;
  maxSessions: number;
  idleTimeoutMs: number;
  /**
   * Browser origins allowed to call the endpoint (SERVICE_MCP_ALLOWED_ORIGINS). A request with any
   * other Origin header is refused (DNS rebinding defense); one without Origin (not a browser) is not.
   */
  allowedOrigins: string[];
}

export interface McpConfig {
  /** The https:// URL of the Certlane API (http:// is refused here, for both transports). */
  serverUrl: string;
  caBundle?: string;
  toolSets: ToolSet[];
  transport: 'stdio' | 'http';
  /** stdio only: the key the server acts with. Over HTTP each session brings its own. */
  apiKey?: string;
  http?: HttpTransportConfig;
}

const positive = (env: NodeJS.ProcessEnv, name: string, fallback: number): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
};

const port = (env: NodeJS.ProcessEnv, name: string, fallback: number): number => {
  const raw = env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535)
    throw new Error(`${name} must be a port (0-65535)`);
  return value;
};

const required = (env: NodeJS.ProcessEnv, name: string, what: string): string => {
  const value = env[name];
  if (!value) throw new Error(`set ${name} (${what})`);
  return value;
};

/** The MCP server's configuration from its environment; anything wrong throws before it starts. */
export function mcpConfig(env: NodeJS.ProcessEnv): McpConfig {
  const serverUrl = httpsBaseUrl(
    required(env, 'SERVICE_SERVER_URL', 'https://host:port of the Certlane API'),
  );
  const caPath = env.SERVICE_SERVER_CA_BUNDLE_PATH;
  const transport = env.SERVICE_MCP_TRANSPORT ?? 'stdio';
  if (transport !== 'stdio' && transport !== 'http')
    throw new Error('SERVICE_MCP_TRANSPORT must be stdio or http');
  const common = {
    serverUrl,
    ...(caPath ? { caBundle: readFileSync(caPath, 'utf8') } : {}),
    toolSets: parseToolSets(env.SERVICE_MCP_TOOL_SETS ?? 'main,est'),
  };
  if (transport === 'stdio') return { ...common, transport, apiKey: apiKey(env) };
  return {
    ...common,
    transport,
    http: {
      host: env.SERVICE_MCP_LISTEN_ADDRESS ?? '127.0.0.1',
      port: port(env, 'SERVICE_MCP_PORT', 8444),
      certPath: required(env, 'SERVICE_MCP_TLS_CERT_PATH', 'PEM certificate of the MCP HTTP listener'),
      keyPath: required(env, 'SERVICE_MCP_TLS_KEY_PATH', 'PEM private key of the MCP HTTP listener'),
      maxSessions: positive(env, 'SERVICE_MCP_MAX_SESSIONS', 64),
      idleTimeoutMs: positive(env, 'SERVICE_MCP_SESSION_IDLE_TIMEOUT_SECONDS', 1800) * 1000,
      allowedOrigins: origins(env, 'SERVICE_MCP_ALLOWED_ORIGINS'),
    },
  };
}

/** Comma-separated origins (`https://host[:port]`), each exactly as a browser sends it. */
function origins(env: NodeJS.ProcessEnv, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      let origin: string | undefined;
      try {
        origin = new URL(entry).origin;
      } catch {
        origin = undefined;
      }
      if (origin !== entry || !/^https?:/.test(entry))
        throw new Error(
          `${name}: ${entry} is not an origin (scheme://host[:port], no path or trailing slash)`,
        );
      return entry;
    });
}

/** The key from SERVICE_API_KEY_FILE or SERVICE_API_KEY: never from the command line. */
function apiKey(env: NodeJS.ProcessEnv): string {
  const file = env.SERVICE_API_KEY_FILE;
  const key = file ? readFileSync(file, 'utf8').trim() : env.SERVICE_API_KEY;
  if (!key) throw new Error('set SERVICE_API_KEY_FILE or SERVICE_API_KEY (an API key with the r-mcp role)');
  return key;
}

/** The key now in SERVICE_API_KEY_FILE (stdio), or undefined without a file or when it cannot be read. */
export function rereadApiKey(env: NodeJS.ProcessEnv): string | undefined {
  const file = env.SERVICE_API_KEY_FILE;
  if (!file) return undefined;
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
