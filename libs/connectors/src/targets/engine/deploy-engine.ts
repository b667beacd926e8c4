import type {
  CommandResult,
  DeploymentHost,
  DeploymentMaterial,
  DeploymentResult,
  DeploymentStep,
} from '../target-connector';
import { commandArgv } from './command';
import { FileOps, nodeFileOps, previousCopyPath, siblingTempPath } from './file-ops';
import { materialProblem } from './material';

/** One file a deployment puts in place. */
export interface DeployFile {
  path: string;
  data: Buffer | string;
  /** Permission bits, e.g. 0o600 for a private key, 0o644 for a certificate. */
  mode: number;
}

/** Everything the engine needs for one target: files, commands, and where to verify. */
export interface DeploymentPlan {
  files: readonly DeployFile[];
  validateCommand?: string;
  reloadCommand?: string;
  /** Used when there is no reload command (a full restart). */
  restartCommand?: string;
  /** `host:port` served with the new certificate; without it the verify step is skipped. */
  endpoint?: string;
  serverName?: string;
  starttls?: 'smtp' | 'imap';
}

export interface DeploymentEngineOptions {
  fileOps?: FileOps;
  /** Per command (default 60 s). */
  commandTimeoutMs?: number;
  /** How long verification retries after the reload (default 15 s), and how often (500 ms). */
  verifyDeadlineMs?: number;
  verifyIntervalMs?: number;
  /**
   * After the first connection that gets the new leaf, how many more in a row must get it
   * (default 2, 200 ms apart): a graceful reload (nginx, Apache, HAProxy) can leave old workers
   * accepting connections with the old certificate for a moment.
   */
  verifyConfirmations?: number;
  verifyConfirmIntervalMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const STDERR_TAIL = 400;

function describeFailure(result: CommandResult, timeoutMs: number): string {
  const reason = result.timedOut
    ? `timed out after ${timeoutMs} ms`
    : result.exitCode === null
      ? 'could not be run'
      : `exit code ${result.exitCode}`;
  const stderr = result.stderr.trim();
  return stderr ? `${reason}: ${stderr.slice(-STDERR_TAIL)}` : reason;
}

function message(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  const text = error instanceof Error ? error.message : String(error);
  return code && !text.includes(code) ? `${code}: ${text}` : text;
}

interface Swapped {
  path: string;
  previous: { data: Buffer; mode: number } | null;
}

/**
 * The atomic file deployment every file-based target kind shares (ADR 0029):
 *
 * 1. write: check the material (leaf parses, has the expected fingerprint, matches the key),
 *    then write every new file beside its destination under a temporary name, with its mode;
 * 2. swap: keep a `.certlane-prev` copy of each existing file and rename the new one over it;
 * 3. validate: run `validate_command` (argv, no shell) against the files in place; the running
 *    server has not loaded them yet;
 * 4. reload: run `reload_command`, or `restart_command` without one;
 * 5. verify: poll the endpoint until it serves the expected leaf fingerprint on three connections
 *    in a row (old workers of a graceful reload may still answer for a moment), within a deadline.
 *
 * A failure of swap, validate, reload or verify restores the previous files byte for byte (with
 * their modes; a file that did not exist is removed) and, once the server may have loaded the
 * new files (reload or verify failed), reloads it again. Every step is reported.
 */
export async function deployFiles(
  plan: DeploymentPlan,
  material: DeploymentMaterial,
  host: DeploymentHost,
  options: DeploymentEngineOptions = {},
): Promise<DeploymentResult> {
  const ops = options.fileOps ?? nodeFileOps;
  const timeoutMs = options.commandTimeoutMs ?? 60_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? Date.now;
  const steps: DeploymentStep[] = [];
  const fail = (error: string, rolledBack: boolean): DeploymentResult => {
    host.log('deployment failed', { error, rolled_back: rolledBack });
    return { ok: false, rolledBack, steps, error };
  };

  // 1. write
  const problem = materialProblem(material);
  if (problem) {
    steps.push({ step: 'write', ok: false, detail: problem });
    return fail(`write failed: ${problem}`, false);
  }
  const temps: string[] = [];
  try {
    for (const file of plan.files) {
      const temp = siblingTempPath(file.path);
      await ops.create(temp, Buffer.from(file.data), file.mode);
      temps.push(temp);
    }
  } catch (error) {
    await Promise.all(temps.map((temp) => ops.remove(temp).catch(() => undefined)));
    steps.push({ step: 'write', ok: false, detail: message(error) });
    return fail(`write failed: ${message(error)}`, false);
  }
  steps.push({ step: 'write', ok: true, detail: `${plan.files.length} file(s) written beside the old` });

  // 2. swap
  const swapped: Swapped[] = [];
  const restore = async (): Promise<boolean> => {
    const problems: string[] = [];
    for (const { path, previous } of [...swapped].reverse()) {
      try {
        if (previous) {
          const temp = siblingTempPath(path, 'restore');
          await ops.create(temp, previous.data, previous.mode);
          await ops.rename(temp, path);
        } else {
          await ops.remove(path);
        }
      } catch (error) {
        problems.push(`${path}: ${message(error)}`);
      }
    }
    steps.push({
      step: 'rollback',
      ok: problems.length === 0,
      detail: problems.length === 0 ? `${swapped.length} file(s) restored` : problems.join('; '),
    });
    return problems.length === 0;
  };
  try {
    for (const [index, file] of plan.files.entries()) {
      const previous = await ops.read(file.path);
      if (previous) {
        const copy = siblingTempPath(previousCopyPath(file.path), 'copy');
        await ops.create(copy, previous.data, previous.mode);
        await ops.rename(copy, previousCopyPath(file.path));
      }
      await ops.rename(temps[index], file.path);
      swapped.push({ path: file.path, previous });
    }
  } catch (error) {
    await Promise.all(temps.slice(swapped.length).map((temp) => ops.remove(temp).catch(() => undefined)));
    steps.push({ step: 'swap', ok: false, detail: message(error) });
    return fail(`swap failed: ${message(error)}`, await restore());
  }
  steps.push({ step: 'swap', ok: true, detail: `${swapped.length} file(s) replaced` });

  const run = async (command: string): Promise<{ ok: boolean; detail: string }> => {
    let argv: string[];
    try {
      argv = commandArgv(command);
    } catch (error) {
      return { ok: false, detail: message(error) };
    }
    const result = await host.run(argv, { timeoutMs });
    const ok = !result.timedOut && result.exitCode === 0;
    return { ok, detail: ok ? `${argv[0]} exited 0` : `${argv[0]} ${describeFailure(result, timeoutMs)}` };
  };
  const reloadCommand = plan.reloadCommand ?? plan.restartCommand;
  const reloadAfterRollback = async (): Promise<void> => {
    if (!reloadCommand) return;
    const outcome = await run(reloadCommand);
    steps.push({ step: 'reload', ok: outcome.ok, detail: `after rollback: ${outcome.detail}` });
  };

  // 3. validate
  if (plan.validateCommand) {
    const outcome = await run(plan.validateCommand);
    steps.push({ step: 'validate', ok: outcome.ok, detail: outcome.detail });
    if (!outcome.ok) {
      // The server never loaded the new files: restoring them is enough.
      return fail(`validate failed: ${outcome.detail}`, await restore());
    }
  } else {
    steps.push({ step: 'validate', ok: true, detail: 'no validate command configured' });
  }

  // 4. reload
  if (reloadCommand) {
    const outcome = await run(reloadCommand);
    steps.push({ step: 'reload', ok: outcome.ok, detail: outcome.detail });
    if (!outcome.ok) {
      const restored = await restore();
      await reloadAfterRollback();
      return fail(`reload failed: ${outcome.detail}`, restored);
    }
  } else {
    steps.push({ step: 'reload', ok: true, detail: 'no reload command configured' });
  }

  // 5. verify
  if (!plan.endpoint) {
    steps.push({ step: 'verify', ok: true, detail: 'not verified: the target has no endpoint' });
    host.log('deployment done', { verified: false });
    return { ok: true, rolledBack: false, steps };
  }
  const expected = material.fingerprintSha256.toLowerCase();
  const deadline = now() + (options.verifyDeadlineMs ?? 15_000);
  const interval = options.verifyIntervalMs ?? 500;
  const confirmations = options.verifyConfirmations ?? 2;
  const confirmInterval = options.verifyConfirmIntervalMs ?? 200;
  const endpoint = plan.endpoint;
  const probe = async () =>
    (
      await host.servedFingerprint(
        endpoint,
        plan.serverName,
        plan.starttls ? { starttls: plan.starttls } : undefined,
      )
    ).toLowerCase();
  let served: string | undefined;
  let lastError = '';
  for (let attempt = 1; ; attempt += 1) {
    try {
      served = await probe();
      lastError = '';
      let confirmed = 0;
      while (served === expected && confirmed < confirmations) {
        await sleep(confirmInterval);
        served = await probe();
        if (served === expected) confirmed += 1;
      }
      if (served === expected) {
        steps.push({
          step: 'verify',
          ok: true,
          detail: `${plan.endpoint} serves ${served} (attempt ${attempt}, ${confirmations + 1} connections in a row)`,
        });
        host.log('deployment done', { verified: true });
        return { ok: true, rolledBack: false, steps, servedFingerprintSha256: served };
      }
    } catch (error) {
      lastError = message(error);
    }
    if (now() + interval > deadline) break;
    await sleep(interval);
  }
  const detail = lastError
    ? `${plan.endpoint} could not be checked: ${lastError}`
    : `${plan.endpoint} serves ${served}, expected ${expected}`;
  steps.push({ step: 'verify', ok: false, detail });
  const restored = await restore();
  await reloadAfterRollback();
  return { ...fail(`verify failed: ${detail}`, restored), servedFingerprintSha256: served };
}
