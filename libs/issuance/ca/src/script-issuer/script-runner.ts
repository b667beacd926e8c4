import { spawn } from 'node:child_process';
import { CommandResult, commandEnvironment } from '@certlane/connectors';

export interface ScriptRun {
  argv: readonly string[];
  /** Written to the command's standard input, which is then closed. */
  input: string;
  /** Added to PATH and the locale: the service's own environment (its secrets) is never passed. */
  environment: Record<string, string>;
  timeoutMs: number;
  /** Output beyond this is a failure (the command is killed). */
  maxOutputBytes: number;
}

/**
 * Runs an issuer command without a shell, in a process group of its own so that a timeout kills
 * what it started too (a script's `openssl`, `curl`...), not only the script.
 */
export function runScript(run: ScriptRun): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(run.argv[0], run.argv.slice(1), {
      shell: false,
      detached: true,
      env: { ...commandEnvironment(), ...run.environment },
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let size = 0;
    let timedOut = false;
    let overflow = false;
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, run.timeoutMs);
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      size += chunk.length;
      if (size > run.maxOutputBytes) {
        overflow = true;
        killGroup();
        return;
      }
      into.push(chunk);
    };
    child.stdout.on('data', collect(stdout));
    child.stderr.on('data', collect(stderr));
    // A command that does not read its input closes the pipe: not an error of ours.
    child.stdin.on('error', () => undefined);
    child.stdin.end(run.input);
    let finished = false;
    const finish = (result: CommandResult) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      resolve(result);
    };
    // A program that cannot be started emits 'error' and may never emit 'close'.
    child.on('error', (error: NodeJS.ErrnoException) =>
      finish({
        exitCode: null,
        stdout: '',
        stderr: `${error.code ?? 'error'}: cannot start ${run.argv[0]}`,
        timedOut: false,
      }),
    );
    child.on('close', (code) =>
      finish({
        exitCode: overflow ? null : code,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: overflow
          ? `printed more than ${run.maxOutputBytes} bytes`
          : Buffer.concat(stderr).toString('utf8'),
        timedOut,
      }),
    );
  });
}
