import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { CommandResult, commandArgv } from '@certlane/connectors';
import {
  CaChainResult,
  ConnectionTestResult,
  IssuedCertificateResult,
  IssuerCapabilities,
  IssuerConnector,
  IssuerConnectorFactory,
  IssuerError,
  IssueRequest,
  RenewRequest,
  RevokeRequest,
} from '@certlane/pki';
import { readIssuedCertificate } from '../issuers/issued-answer';
import { requestedCsr } from '../local-ca/pki-errors';
import { commandOutsideDirectory } from '@certlane/issuance-domain';
import {
  commandFailure,
  DEFAULT_SCRIPT_TIMEOUT_SECONDS,
  issueEnvironment,
  MAX_SCRIPT_OUTPUT_BYTES,
  revokeEnvironment,
  ScriptIssuerConfig,
} from './script-protocol';
import { runScript, ScriptRun } from './script-runner';

/** What the script connector needs of the issuance service. */
export interface ScriptIssuerDependencies {
  issuerId: string;
  /** SERVICE_ISSUER_SCRIPTS_DIR: the only place an issuer's commands may run from. */
  issuerScriptsDirectory: string;
}

const capabilities = (config: ScriptIssuerConfig): IssuerCapabilities =>
  Object.freeze({
    crl: false,
    ocsp: false,
    revoke: config.revokeCommand !== undefined,
    renew: false,
    caChain: false,
    synchronous: true,
  });

/**
 * The `script` issuer connector (ADR 0082): a CA reached through the operator's own programs. The
 * issue command reads the CSR on standard input and prints the certificate and its chain; the
 * revoke command, when configured, is told the serial and reason. Commands run without a shell,
 * with an environment of their own, only from SERVICE_ISSUER_SCRIPTS_DIR, and are killed with what
 * they started at the issuer's timeout.
 */
export class ScriptIssuerConnector implements IssuerConnector {
  readonly kind = 'script';
  readonly capabilities: IssuerCapabilities;

  constructor(
    private readonly config: ScriptIssuerConfig,
    private readonly dependencies: ScriptIssuerDependencies,
    private readonly run: (run: ScriptRun) => Promise<CommandResult> = runScript,
  ) {
    this.capabilities = capabilities(config);
  }

  async issue(request: IssueRequest): Promise<IssuedCertificateResult> {
    const csr = await requestedCsr(request.csrPem);
    const what = `issuer ${this.dependencies.issuerId}: issue_command`;
    const result = await this.runChecked(this.config.issueCommand, what, {
      input: request.csrPem,
      environment: issueEnvironment(this.dependencies.issuerId, request),
    });
    return readIssuedCertificate(result.stdout, csr.publicKey.spki, what);
  }

  /** Renewal is issuance (the command sees CERTLANE_OPERATION=issue either way). */
  renew(request: RenewRequest): Promise<IssuedCertificateResult> {
    return this.issue(request);
  }

  async revoke(request: RevokeRequest): Promise<void> {
    const command = this.config.revokeCommand;
    if (command === undefined)
      throw new IssuerError('unsupported', `issuer ${this.dependencies.issuerId} has no revoke_command`);
    await this.runChecked(command, `issuer ${this.dependencies.issuerId}: revoke_command`, {
      input: request.certificatePem ?? '',
      environment: revokeEnvironment(this.dependencies.issuerId, request),
    });
  }

  async getCaChain(): Promise<CaChainResult> {
    throw new IssuerError(
      'unsupported',
      `issuer ${this.dependencies.issuerId} is a script issuer: it hands out its chain with each certificate only`,
    );
  }

  /** Checks that each configured command may run and is an executable file; runs neither. */
  async testConnection(): Promise<ConnectionTestResult> {
    const started = Date.now();
    const commands: [string, string | undefined][] = [
      ['issue_command', this.config.issueCommand],
      ['revoke_command', this.config.revokeCommand],
    ];
    for (const [name, command] of commands) {
      if (command === undefined) continue;
      const problem = await this.programProblem(command);
      if (problem) return { ok: false, message: `${name}: ${problem}`, latencyMs: Date.now() - started };
    }
    return {
      ok: true,
      message:
        this.config.revokeCommand === undefined
          ? 'issue_command is an executable file; no revoke_command: revocations are recorded in Certlane only'
          : 'issue_command and revoke_command are executable files',
      latencyMs: Date.now() - started,
    };
  }

  private async programProblem(command: string): Promise<string | null> {
    let program: string;
    try {
      [program] = commandArgv(command);
    } catch (error) {
      return (error as Error).message;
    }
    const outside = commandOutsideDirectory(program, this.dependencies.issuerScriptsDirectory);
    if (outside) return outside;
    try {
      if (!(await stat(program)).isFile()) return `${program} is not a file`;
      await access(program, constants.X_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ENOENT' ? `${program} does not exist` : `${program} is not executable (${code})`;
    }
    return null;
  }

  private async runChecked(
    command: string,
    what: string,
    io: Pick<ScriptRun, 'input' | 'environment'>,
  ): Promise<CommandResult> {
    const problem = await this.programProblem(command);
    if (problem) throw new IssuerError('misconfigured', `${what}: ${problem}`);
    const result = await this.run({
      argv: commandArgv(command),
      ...io,
      timeoutMs: this.config.timeoutSeconds * 1000,
      maxOutputBytes: MAX_SCRIPT_OUTPUT_BYTES,
    });
    const failure = commandFailure(result, what, this.config.timeoutSeconds);
    if (failure) throw failure;
    return result;
  }
}

/** The `script` kind's entry in the issuer connector registry. Its config holds no secret. */
export const scriptIssuerConnectorFactory: IssuerConnectorFactory<
  ScriptIssuerConfig,
  ScriptIssuerDependencies
> = {
  kind: 'script',
  capabilities: capabilities({ issueCommand: '', revokeCommand: '', timeoutSeconds: 1 }),
  validateConfig(config: unknown): ScriptIssuerConfig {
    const stored = (config ?? {}) as Record<string, unknown>;
    if (typeof stored.issue_command !== 'string' || stored.issue_command === '')
      throw new IssuerError('misconfigured', 'a script issuer needs issue_command');
    return {
      issueCommand: stored.issue_command,
      revokeCommand:
        typeof stored.revoke_command === 'string' && stored.revoke_command !== ''
          ? stored.revoke_command
          : undefined,
      timeoutSeconds:
        typeof stored.timeout_seconds === 'number' ? stored.timeout_seconds : DEFAULT_SCRIPT_TIMEOUT_SECONDS,
    };
  },
  redact(config: ScriptIssuerConfig): Record<string, unknown> {
    return {
      issue_command: config.issueCommand,
      revoke_command: config.revokeCommand,
      timeout_seconds: config.timeoutSeconds,
    };
  },
  create(config, dependencies) {
    return new ScriptIssuerConnector(config, dependencies);
  },
};
