import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * The agent's configuration (docs/decisions/0030-the-agent.md), from SERVICE_* variables or the
 * equivalent `--flag=value` options (a flag wins over the variable). Refusals are one line.
 */
export interface AgentConfig {
  /** https://host[:port], no trailing slash. */
  serverUrl: string;
  agentId: string;
  /** Never logged. */
  apiKey: string;
  /** Extra roots trusted for the server's TLS certificate (PEM), added to the system roots. */
  caBundle?: string;
  caBundlePath?: string;
  insecureSkipVerify: boolean;
  stateDir: string;
  targetsFile: string;
  pollIntervalMs: number;
  heartbeatIntervalMs: number;
  backoffMaxMs: number;
  logLevel: LogLevel;
  /** Filesystem discovery (ADR 0063); absent when SERVICE_AGENT_DISCOVERY_PATHS is unset. */
  discovery?: { roots: string[]; pkcs12Passwords: string[]; intervalMs: number };
}

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A refused configuration: printed as one line, exit code 78 (EX_CONFIG) like the services. */
export class AgentConfigError extends Error {}
export const AGENT_CONFIG_ERROR_EXIT_CODE = 78;

/** `--server-url=https://x` -> SERVICE_SERVER_URL, `--agent-id` -> SERVICE_AGENT_ID, ... */
export const AGENT_FLAGS: Record<string, string> = {
  'server-url': 'SERVICE_SERVER_URL',
  'agent-id': 'SERVICE_AGENT_ID',
  'api-key-file': 'SERVICE_AGENT_API_KEY_FILE',
  'ca-bundle': 'SERVICE_SERVER_CA_BUNDLE_PATH',
  'state-dir': 'SERVICE_AGENT_STATE_DIR',
  'targets-file': 'SERVICE_AGENT_TARGETS_FILE',
  'poll-interval': 'SERVICE_AGENT_POLL_INTERVAL_SECONDS',
  'heartbeat-interval': 'SERVICE_AGENT_HEARTBEAT_INTERVAL_SECONDS',
  'backoff-max': 'SERVICE_AGENT_BACKOFF_MAX_SECONDS',
  'log-level': 'SERVICE_LOG_LEVEL',
  'discovery-paths': 'SERVICE_AGENT_DISCOVERY_PATHS',
  'discovery-interval': 'SERVICE_AGENT_DISCOVERY_INTERVAL_SECONDS',
  'discovery-pkcs12-passwords-file': 'SERVICE_AGENT_DISCOVERY_PKCS12_PASSWORDS_FILE',
};

export const DEFAULT_STATE_DIR = '/var/lib/certlane-agent';
const AGENT_ID = /^[a-z0-9][a-z0-9._-]{0,57}$/;

/** Flags as variables; the key is deliberately not a flag (it would show in `ps`). */
export function flagsToEnv(argv: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const match = /^--([a-z-]+)(?:=(.*))?$/s.exec(arg);
    if (!match) throw new AgentConfigError(`unexpected argument "${arg}" (flags are --name=value)`);
    const variable = AGENT_FLAGS[match[1]];
    if (!variable) throw new AgentConfigError(`unknown flag --${match[1]}`);
    let value = match[2];
    if (value === undefined) {
      value = argv[++i];
      if (value === undefined) throw new AgentConfigError(`flag --${match[1]} needs a value`);
    }
    out[variable] = value;
  }
  return out;
}

function seconds(
  env: Record<string, string | undefined>,
  name: string,
  fallback: number,
  min: number,
  max: number,
) {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback * 1000;
  if (!/^\d+(\.\d+)?$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new AgentConfigError(`${name} must be a number of seconds from ${min} to ${max}`);
  }
  return Math.round(Number(raw) * 1000);
}

function bool(env: Record<string, string | undefined>, name: string): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new AgentConfigError(`${name} must be true or false`);
}

/** The server URL: https only (spec 1: agents refuse an http:// server URL at startup). */
export function parseServerUrl(raw: string | undefined): string {
  const value = (raw ?? '').trim();
  if (!value)
    throw new AgentConfigError('SERVICE_SERVER_URL is required (https://host:port of the API gateway)');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AgentConfigError('SERVICE_SERVER_URL is not a URL (expected https://host:port)');
  }
  if (url.protocol === 'http:') {
    throw new AgentConfigError(
      'SERVICE_SERVER_URL uses http://: the agent only talks TLS, use the https:// URL of the API gateway',
    );
  }
  if (url.protocol !== 'https:') throw new AgentConfigError('SERVICE_SERVER_URL must be an https:// URL');
  if (url.username || url.password)
    throw new AgentConfigError('SERVICE_SERVER_URL must not carry credentials');
  if (url.search || url.hash)
    throw new AgentConfigError('SERVICE_SERVER_URL must not carry a query or fragment');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** Reads the configuration; `readFile` is injected so tests need no files. */
export function loadAgentConfig(
  env: Record<string, string | undefined>,
  argv: readonly string[] = [],
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): AgentConfig {
  const vars = { ...env, ...flagsToEnv(argv) };
  const serverUrl = parseServerUrl(vars.SERVICE_SERVER_URL);
  const agentId = (vars.SERVICE_AGENT_ID ?? '').trim();
  if (!agentId)
    throw new AgentConfigError('SERVICE_AGENT_ID is required (the id the agent was registered with)');
  if (!AGENT_ID.test(agentId)) {
    throw new AgentConfigError('SERVICE_AGENT_ID must be 1-58 characters of a-z, 0-9, ".", "_" or "-"');
  }
  const keyFile = vars.SERVICE_AGENT_API_KEY_FILE?.trim();
  const inlineKey = vars.SERVICE_AGENT_API_KEY?.trim();
  if (keyFile && inlineKey) {
    throw new AgentConfigError('set SERVICE_AGENT_API_KEY or SERVICE_AGENT_API_KEY_FILE, not both');
  }
  let apiKey = inlineKey ?? '';
  if (keyFile) {
    try {
      apiKey = readFile(keyFile).trim();
    } catch {
      throw new AgentConfigError(`SERVICE_AGENT_API_KEY_FILE ${keyFile} cannot be read`);
    }
  }
  if (!apiKey) {
    throw new AgentConfigError(
      'SERVICE_AGENT_API_KEY or SERVICE_AGENT_API_KEY_FILE is required (the registration key)',
    );
  }
  if (/[\s]/.test(apiKey)) throw new AgentConfigError('the agent API key must not contain white space');

  const caBundlePath = vars.SERVICE_SERVER_CA_BUNDLE_PATH?.trim() || undefined;
  let caBundle: string | undefined;
  if (caBundlePath) {
    try {
      caBundle = readFile(caBundlePath);
    } catch {
      throw new AgentConfigError(`SERVICE_SERVER_CA_BUNDLE_PATH ${caBundlePath} cannot be read`);
    }
    if (!caBundle.includes('-----BEGIN CERTIFICATE-----')) {
      throw new AgentConfigError(`SERVICE_SERVER_CA_BUNDLE_PATH ${caBundlePath} holds no PEM certificate`);
    }
  }

  const stateDir = resolve(vars.SERVICE_AGENT_STATE_DIR?.trim() || DEFAULT_STATE_DIR);
  const targetsRaw = vars.SERVICE_AGENT_TARGETS_FILE?.trim();
  const targetsFile = targetsRaw
    ? isAbsolute(targetsRaw)
      ? targetsRaw
      : resolve(targetsRaw)
    : join(stateDir, 'targets.json');
  const logLevel = (vars.SERVICE_LOG_LEVEL?.trim() || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new AgentConfigError(`SERVICE_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const pollIntervalMs = seconds(vars, 'SERVICE_AGENT_POLL_INTERVAL_SECONDS', 30, 0.1, 86400);
  const heartbeatIntervalMs = seconds(vars, 'SERVICE_AGENT_HEARTBEAT_INTERVAL_SECONDS', 60, 0.1, 86400);
  const backoffMaxMs = seconds(vars, 'SERVICE_AGENT_BACKOFF_MAX_SECONDS', 300, 0.1, 86400);
  const discovery = discoveryConfig(vars, readFile);
  return {
    serverUrl,
    agentId,
    apiKey,
    ...(caBundle ? { caBundle, caBundlePath } : {}),
    insecureSkipVerify: bool(vars, 'SERVICE_SERVER_TLS_INSECURE_SKIP_VERIFY'),
    stateDir,
    targetsFile,
    pollIntervalMs,
    heartbeatIntervalMs,
    backoffMaxMs,
    logLevel,
    ...(discovery ? { discovery } : {}),
  };
}

/**
 * Filesystem discovery (ADR 0063): SERVICE_AGENT_DISCOVERY_PATHS lists absolute directories
 * separated by ":"; SERVICE_AGENT_DISCOVERY_INTERVAL_SECONDS (default 21600, 60..604800);
 * SERVICE_AGENT_DISCOVERY_PKCS12_PASSWORDS_FILE holds one password a line for PKCS#12 files
 * whose certificates are encrypted (the empty password is always tried).
 */
function discoveryConfig(
  vars: Record<string, string | undefined>,
  readFile: (path: string) => string,
): AgentConfig['discovery'] {
  const raw = vars.SERVICE_AGENT_DISCOVERY_PATHS?.trim();
  if (!raw) return undefined;
  const roots = raw
    .split(':')
    .map((path) => path.trim())
    .filter(Boolean);
  const relative = roots.find((path) => !isAbsolute(path));
  if (relative !== undefined) {
    throw new AgentConfigError(
      `SERVICE_AGENT_DISCOVERY_PATHS must list absolute directories (${relative} is not)`,
    );
  }
  const intervalMs = seconds(vars, 'SERVICE_AGENT_DISCOVERY_INTERVAL_SECONDS', 21_600, 60, 604_800);
  const passwordsFile = vars.SERVICE_AGENT_DISCOVERY_PKCS12_PASSWORDS_FILE?.trim();
  let pkcs12Passwords: string[] = [];
  if (passwordsFile) {
    try {
      pkcs12Passwords = readFile(passwordsFile)
        .split(/\r?\n/)
        .filter((line) => line !== '');
    } catch {
      throw new AgentConfigError(
        `SERVICE_AGENT_DISCOVERY_PKCS12_PASSWORDS_FILE ${passwordsFile} cannot be read`,
      );
    }
  }
  return { roots, pkcs12Passwords, intervalMs };
}
