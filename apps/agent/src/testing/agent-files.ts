// The files the agent reads at startup, written where startAgentProcess points it: its API key,
// its targets file and the CA bundle it trusts for the server.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The agent's API key file (0600): `dir`/agent.key. */
export function writeAgentKey(dir: string, apiKey: string): void {
  writeFileSync(join(dir, 'agent.key'), `${apiKey}\n`, { mode: 0o600 });
}

export interface AgentTarget {
  id: string;
  type: string;
  config: Record<string, string>;
  endpoint?: string;
}

/** The agent's SERVICE_AGENT_TARGETS_FILE: `dir`/targets.json. */
export function writeTargetsFile(dir: string, targets: AgentTarget[]): void {
  writeFileSync(
    join(dir, 'targets.json'),
    JSON.stringify(
      Object.fromEntries(
        targets.map(({ id, type, config, endpoint }) => [
          id,
          { type, config, ...(endpoint ? { endpoint } : {}) },
        ]),
      ),
    ),
  );
}

/** The CA bundle the agent trusts for the server: `dir`/server-ca.pem; returns its path. */
export function writeServerCa(dir: string, caPem: string): string {
  const path = join(dir, 'server-ca.pem');
  writeFileSync(path, caPem);
  return path;
}
