import type { CommandResult, DeploymentHost } from '../target-connector';

/** A DeploymentHost whose commands and served fingerprints the test scripts. */
export class FakeHost implements DeploymentHost {
  readonly commands: string[][] = [];
  readonly logs: string[] = [];
  /** Per argv[0]: the results, in order (the last one repeats); exit 0 by default. */
  results = new Map<string, Partial<CommandResult>[]>();
  /** What servedFingerprint returns, in order (the last one repeats); an Error is thrown. */
  served: (string | Error)[] = [];
  servedCalls: { endpoint: string; serverName?: string; starttls?: string }[] = [];
  /** Called on each command, e.g. to change `served` when the reload runs. */
  onRun?: (argv: readonly string[]) => void;

  async run(argv: readonly string[]): Promise<CommandResult> {
    this.commands.push([...argv]);
    this.onRun?.(argv);
    const queue = this.results.get(argv[0]) ?? [];
    const next = queue.length > 1 ? queue.shift() : queue[0];
    return { exitCode: 0, stdout: '', stderr: '', timedOut: false, ...next };
  }

  async servedFingerprint(endpoint: string, serverName?: string, options?: { starttls?: 'smtp' | 'imap' }) {
    this.servedCalls.push({ endpoint, serverName, starttls: options?.starttls });
    const next = this.served.length > 1 ? this.served.shift() : this.served[0];
    if (next === undefined) throw new Error('nothing served');
    if (next instanceof Error) throw next;
    return next;
  }

  log(message: string): void {
    this.logs.push(message);
  }
}
