import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { arch, hostname, networkInterfaces, platform, release } from 'node:os';
import { join } from 'node:path';
import { NodeDeploymentHost, type TargetConnector } from '@certlane/connectors';
import { CertlaneAgent } from './agent';
import { AGENT_CONFIG_ERROR_EXIT_CODE, AgentConfig, AgentConfigError, loadAgentConfig } from './config';
import { DeploymentJournal } from './deployment-journal';
import { UnsentReports } from './final-reports';
import { KeyStore } from './key-store';
import { jsonLogger } from './logger';
import { HostFacts, HttpsAgentServerClient } from './server-client';
import { connectorRegistry, FileTargetConfigSource } from './targets';

/** The version stamped by tools/build.mjs (dist/build-info.json), else the package's. */
export function agentVersion(): string {
  for (const path of [
    join(__dirname, '../../../build-info.json'),
    join(__dirname, '../../../../package.json'),
  ]) {
    try {
      const parsed = JSON.parse(readFileSync(path, 'utf8')) as { version?: unknown };
      if (typeof parsed.version === 'string') return parsed.version;
    } catch {
      // next
    }
  }
  return 'unknown';
}

export function hostFacts(version: string): HostFacts {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && !i.internal && i.family === 'IPv4')?.address;
  return {
    version,
    hostname: hostname().slice(0, 253) || 'unknown',
    os: `${platform()} ${release()}`.slice(0, 128),
    architecture: arch(),
    ...(address ? { ip_address: address } : {}),
  };
}

/**
 * Creates the state directory 0700, or takes an existing one: it must be a directory of the
 * agent's own user (another account able to rename or link in it could swap the key directories
 * the agent writes to), and group or other access is removed. Returns why it cannot be used.
 */
export function prepareStateDir(stateDir: string): string | null {
  try {
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  } catch {
    return `SERVICE_AGENT_STATE_DIR ${stateDir} cannot be created`;
  }
  try {
    const info = statSync(stateDir);
    if (!info.isDirectory()) return `SERVICE_AGENT_STATE_DIR ${stateDir} is not a directory`;
    const uid = process.getuid?.();
    if (uid !== undefined && info.uid !== uid) {
      return `SERVICE_AGENT_STATE_DIR ${stateDir} belongs to uid ${info.uid}, not to the agent's uid ${uid}`;
    }
    if ((info.mode & 0o077) !== 0) chmodSync(stateDir, 0o700);
  } catch {
    return `SERVICE_AGENT_STATE_DIR ${stateDir} cannot be made private (0700)`;
  }
  return null;
}

export interface RunAgentOptions {
  env?: Record<string, string | undefined>;
  argv?: readonly string[];
  /** The target kinds this agent can deploy to (libs/connectors). */
  connectors?: readonly TargetConnector[];
}

/**
 * Starts the agent and resolves with the process exit code: 0 when stopped by a signal or when the
 * server says the agent is gone (410, 401), 78 for a refused configuration.
 */
export async function runAgent(options: RunAgentOptions = {}): Promise<number> {
  let config: AgentConfig;
  try {
    config = loadAgentConfig(options.env ?? process.env, options.argv ?? process.argv.slice(2));
  } catch (error) {
    if (error instanceof AgentConfigError) {
      process.stderr.write(`certlane-agent: configuration error: ${error.message}\n`);
      return AGENT_CONFIG_ERROR_EXIT_CODE;
    }
    throw error;
  }
  // The key must not reach the reload and validate commands the agent runs (they inherit the
  // environment): it is in `config` now, and nowhere else in the process.
  delete process.env.SERVICE_AGENT_API_KEY;
  const logger = jsonLogger(config.logLevel);
  const stateProblem = prepareStateDir(config.stateDir);
  if (stateProblem) {
    process.stderr.write(`certlane-agent: configuration error: ${stateProblem}\n`);
    return AGENT_CONFIG_ERROR_EXIT_CODE;
  }
  if (config.insecureSkipVerify) {
    logger.warn(
      'SERVICE_SERVER_TLS_INSECURE_SKIP_VERIFY is set: the server certificate is NOT verified (development only)',
    );
  }
  const version = agentVersion();
  const server = new HttpsAgentServerClient(config, `certlane-agent/${version}`);
  const connectors = options.connectors ?? [];
  const agent = new CertlaneAgent({
    server,
    keys: new KeyStore(config.stateDir),
    unsentReports: new UnsentReports(config.stateDir),
    journal: new DeploymentJournal(config.stateDir),
    targets: new FileTargetConfigSource(config.targetsFile),
    connectors: connectorRegistry(connectors),
    host: new NodeDeploymentHost({ log: (message, fields) => logger.info(message, fields) }),
    logger,
    facts: () => hostFacts(version),
    pollIntervalMs: config.pollIntervalMs,
    heartbeatIntervalMs: config.heartbeatIntervalMs,
    backoffMaxMs: config.backoffMaxMs,
    ...(config.discovery ? { discovery: config.discovery } : {}),
  });
  const onSignal = (signal: string) => {
    logger.info('stopping', { signal });
    agent.stop();
  };
  // SIGHUP would end the process (Node's default), mid-deployment too: nothing needs reloading
  // (the targets file is read at each deployment), so it is logged and ignored.
  const onHangup = () =>
    logger.info('SIGHUP ignored: the targets file is read at each deployment; restart for other settings');
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  process.on('SIGHUP', onHangup);
  logger.info('agent started', {
    agent_id: config.agentId,
    server_url: config.serverUrl,
    version,
    state_dir: config.stateDir,
    targets_file: config.targetsFile,
    targets_file_present: existsSync(config.targetsFile),
    target_kinds: connectors.map((c) => c.type),
    poll_interval_ms: config.pollIntervalMs,
    heartbeat_interval_ms: config.heartbeatIntervalMs,
    discovery_paths: config.discovery?.roots ?? [],
  });
  try {
    const outcome = await agent.run();
    if (outcome.reason === 'gone') {
      logger.warn(`agent exiting: ${outcome.message}`, { agent_id: config.agentId, status: outcome.status });
    } else {
      logger.info('agent stopped', { agent_id: config.agentId });
    }
    return 0;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    process.off('SIGHUP', onHangup);
    server.close();
  }
}
