import { readFile } from 'node:fs/promises';
import type { TargetType } from '@certlane/contracts';
import type { TargetConnector } from '@certlane/connectors';

/** What the agent needs to deploy to one target: its kind, its config and the endpoint to verify. */
export interface TargetSpec {
  type: TargetType;
  config: Record<string, unknown>;
  /** `host:port` the target serves TLS on (verification); optional. */
  endpoint?: string;
  /** SNI for verification; defaults to the certificate's common name. */
  server_name?: string;
}

/**
 * Where the agent learns a target's configuration (ADR 0030). The work item carries only the
 * target id (ADR 0027), and the server's GET /api/v1/targets/{id} is neither open to the r-agent
 * role nor complete (secret-bearing keys, `key_path` included, are redacted), so today the source
 * is a local JSON file the operator keeps beside the agent. A server-side source can replace it.
 */
export interface TargetConfigSource {
  get(targetId: string): Promise<TargetSpec | null>;
}

export class TargetConfigError extends Error {}

/**
 * `SERVICE_AGENT_TARGETS_FILE`: `{"<target id>": {"type": "nginx", "config": {...}, "endpoint":
 * "127.0.0.1:443"}}`. Read on every deployment, so edits apply without a restart; a missing file
 * means no targets.
 */
export class FileTargetConfigSource implements TargetConfigSource {
  constructor(private readonly path: string) {}

  async get(targetId: string): Promise<TargetSpec | null> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new TargetConfigError(`the targets file ${this.path} cannot be read`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new TargetConfigError(`the targets file ${this.path} is not JSON`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new TargetConfigError(`the targets file ${this.path} must hold an object keyed by target id`);
    }
    if (!Object.prototype.hasOwnProperty.call(parsed, targetId)) return null;
    const entry = (parsed as Record<string, unknown>)[targetId] as Partial<TargetSpec> | null;
    if (!entry || typeof entry !== 'object' || typeof entry.type !== 'string') {
      throw new TargetConfigError(`target ${targetId} in ${this.path} needs a "type"`);
    }
    if (
      entry.config !== undefined &&
      (typeof entry.config !== 'object' || entry.config === null || Array.isArray(entry.config))
    ) {
      throw new TargetConfigError(`target ${targetId} in ${this.path}: "config" must be an object`);
    }
    if (entry.endpoint !== undefined && typeof entry.endpoint !== 'string') {
      throw new TargetConfigError(`target ${targetId} in ${this.path}: "endpoint" must be "host:port"`);
    }
    return {
      type: entry.type,
      config: (entry.config as Record<string, unknown>) ?? {},
      ...(entry.endpoint ? { endpoint: entry.endpoint } : {}),
      ...(typeof entry.server_name === 'string' ? { server_name: entry.server_name } : {}),
    };
  }
}

/** Finds the connector of a target kind; injected so the agent runs with whichever kinds exist. */
export interface ConnectorResolver {
  connectorFor(type: string): TargetConnector | undefined;
}

export function connectorRegistry(connectors: readonly TargetConnector[]): ConnectorResolver {
  const byType = new Map<string, TargetConnector>(connectors.map((c) => [c.type, c]));
  return { connectorFor: (type) => byType.get(type) };
}
