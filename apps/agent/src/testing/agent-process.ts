import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { builtEntry } from '@certlane/testing';

export interface AgentProcess {
  child: ChildProcess;
  /** Everything the agent wrote to stdout and stderr so far. */
  output(): string;
  exited: Promise<number | null>;
}

/**
 * The real agent (dist/, or `script` that runs it with extra connectors) as a child process, with
 * its files under `dir` (agent.key, targets.json; state in `stateDir`) and fast polling,
 * heartbeats and backoff so tests do not wait long.
 */
export function startAgentProcess(options: {
  dir: string;
  agentId: string;
  serverUrl: string;
  caPath: string;
  stateDir: string;
  script?: string;
  env?: Record<string, string>;
}): AgentProcess {
  const child = spawn(process.execPath, [options.script ?? builtEntry('agent')], {
    env: {
      PATH: process.env.PATH,
      ...options.env,
      SERVICE_SERVER_URL: options.serverUrl,
      SERVICE_AGENT_ID: options.agentId,
      SERVICE_AGENT_API_KEY_FILE: join(options.dir, 'agent.key'),
      SERVICE_SERVER_CA_BUNDLE_PATH: options.caPath,
      SERVICE_AGENT_STATE_DIR: options.stateDir,
      SERVICE_AGENT_TARGETS_FILE: join(options.dir, 'targets.json'),
      SERVICE_AGENT_POLL_INTERVAL_SECONDS: '0.3',
      SERVICE_AGENT_HEARTBEAT_INTERVAL_SECONDS: '1',
      SERVICE_AGENT_BACKOFF_MAX_SECONDS: '2',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, output: () => output, exited };
}
