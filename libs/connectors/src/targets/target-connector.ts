import type { TargetType } from '@certlane/contracts';

/**
 * What a deployment writes: the leaf, its chain (issuing CA first) and the private key, all PEM.
 * The key exists only where the deployment runs (the agent's disk, or deployment-dispatch for
 * server-generated keys of agentless targets); it is never logged.
 */
export interface DeploymentMaterial {
  certificatePem: string;
  chainPem: string;
  privateKeyPem: string;
  /** SHA-256 of the leaf's DER, lower-case hex without separators: what verification expects. */
  fingerprintSha256: string;
}

/** The outcome of one command run without a shell (argv), with a timeout. */
export interface CommandResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** The side effects a connector may cause; injected so tests and the agent choose how. */
export interface DeploymentHost {
  /** Runs argv[0] with the rest as arguments, never through a shell. */
  run(argv: readonly string[], options?: { timeoutMs?: number }): Promise<CommandResult>;
  /** The SHA-256 fingerprint of the leaf served at `host:port` (TLS, SNI `serverName`). */
  servedFingerprint(
    endpoint: string,
    serverName?: string,
    options?: { starttls?: 'smtp' | 'imap' },
  ): Promise<string>;
  log(message: string, fields?: Record<string, unknown>): void;
}

/** One step of a deployment, in order; the report a job's error and the audit carry. */
export interface DeploymentStep {
  step: 'write' | 'validate' | 'swap' | 'reload' | 'verify' | 'rollback';
  ok: boolean;
  detail?: string;
}

export interface DeploymentResult {
  ok: boolean;
  /** True when a failure restored the previous files (and reloaded them). */
  rolledBack: boolean;
  steps: DeploymentStep[];
  /** The leaf fingerprint the endpoint served after the deployment, when verified. */
  servedFingerprintSha256?: string;
  error?: string;
}

/**
 * A target kind (ADR 0026 config keys). Deployment is atomic per target: new files are written
 * beside the old, validated, swapped in (rename), the service reloaded and the served certificate
 * verified; if validate, reload or verification fails, the previous files come back and the
 * service is reloaded with them.
 */
export interface TargetConnector {
  readonly type: TargetType;
  deploy(
    config: Readonly<Record<string, unknown>>,
    material: DeploymentMaterial,
    host: DeploymentHost,
    options?: {
      endpoint?: string;
      serverName?: string;
      /** Per command run (default 60 s). */
      commandTimeoutMs?: number;
      /** How long verification retries after the reload (default 15 s). */
      verifyDeadlineMs?: number;
    },
  ): Promise<DeploymentResult>;
}
