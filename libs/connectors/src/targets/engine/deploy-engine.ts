import { dirname, join } from 'node:path';
import type {
  CommandResult,
  DeploymentHost,
  DeploymentMaterial,
  DeploymentResult,
  DeploymentStep,
} from '../target-connector';
import { commandArgv } from './command';
import { FileOps, isLeftoverTempOf, nodeFileOps, previousCopyPath, siblingTempPath } from './file-ops';
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

/**
 * The swap journal (ADR 0029 amendment): written beside the plan's first file once every
 * `.certlane-prev` copy is in place and before the first new file is renamed in; removed when
 * the deployment ends with its set complete (done, or rolled back). Found at the start of a
 * deployment, it means a process died between the renames: every file it lists is put back from
 * its `.certlane-prev` copy (or removed, when it did not exist), so certificate, chain and key
 * are again those of one deployment.
 */
export function swapJournalPath(path: string): string {
  return `${path}.certlane-journal`;
}

interface SwapJournal {
  certlane_swap_journal: 1;
  files: { path: string; existed: boolean }[];
}

function parseJournal(data: Buffer): SwapJournal | null {
  try {
    const value = JSON.parse(data.toString('utf8')) as SwapJournal;
    const files = value?.files;
    if (value?.certlane_swap_journal !== 1 || !Array.isArray(files)) return null;
    const wellFormed = files.every(
      (file) => typeof file?.path === 'string' && typeof file?.existed === 'boolean',
    );
    return wellFormed ? value : null;
  } catch {
    return null;
  }
}

/** Writes `data` to `path` through a temporary sibling and a rename (never half a file). */
async function replaceFile(ops: FileOps, path: string, data: Buffer, mode: number, purpose: string) {
  const temp = siblingTempPath(path, purpose);
  try {
    await ops.create(temp, data, mode);
    await ops.rename(temp, path);
  } catch (error) {
    await ops.remove(temp).catch(() => undefined);
    throw error;
  }
}

/**
 * Finishes a swap a process was killed in, for the files of `paths`: each journal found beside
 * one of them is rolled back (every listed file from its `.certlane-prev` copy, in reverse order)
 * and then removed. Idempotent, so a crash during the recovery is recovered the next time. A
 * journal that cannot be read, or that lists a path outside `paths`, is refused, touching
 * nothing: the paths come from the target's own config, never from a file in its directory.
 * Returns what was restored, or throws with the reason.
 */
export async function recoverInterruptedSwap(
  paths: readonly string[],
  ops: FileOps = nodeFileOps,
): Promise<{ journal: string; restored: number }[]> {
  const recovered: { journal: string; restored: number }[] = [];
  for (const path of paths) {
    const journalPath = swapJournalPath(path);
    const stored = await ops.read(journalPath);
    if (!stored) continue;
    const journal = parseJournal(stored.data);
    if (!journal) throw new Error(`${journalPath} cannot be read; restore the files by hand`);
    const outside = journal.files.find((file) => !paths.includes(file.path));
    if (outside) throw new Error(`${journalPath} lists ${outside.path}, not a file of this target`);
    for (const file of [...journal.files].reverse()) {
      if (!file.existed) {
        await ops.remove(file.path);
        continue;
      }
      const copy = await ops.read(previousCopyPath(file.path));
      if (!copy) throw new Error(`${previousCopyPath(file.path)} is missing; restore the files by hand`);
      await replaceFile(ops, file.path, copy.data, copy.mode, 'restore');
    }
    await ops.remove(journalPath);
    recovered.push({ journal: journalPath, restored: journal.files.length });
  }
  return recovered;
}

/**
 * Removes the temporary files a process killed mid-deployment left beside `paths` (a new key or
 * certificate never renamed into place, a copy of an old one): only those old enough that no
 * running deployment can still own them. Returns the files removed.
 */
export async function removeLeftoverTemps(
  paths: readonly string[],
  ops: FileOps,
  now: number,
): Promise<string[]> {
  const removed: string[] = [];
  const byDirectory = new Map<string, string[]>();
  for (const path of paths) byDirectory.set(dirname(path), [...(byDirectory.get(dirname(path)) ?? []), path]);
  for (const [directory, inIt] of byDirectory) {
    for (const entry of await ops.list(directory)) {
      if (!inIt.some((path) => isLeftoverTempOf(path, entry, now))) continue;
      const leftover = join(directory, entry.name);
      await ops.remove(leftover);
      removed.push(leftover);
    }
  }
  return removed;
}

/**
 * The atomic file deployment every file-based target kind shares (ADR 0029):
 *
 * 0. recover: a swap journal left beside these paths by a process killed mid-swap is rolled back
 *    first (`recoverInterruptedSwap`), reported as a `rollback` step, and the temporary files such
 *    a process left are removed (`removeLeftoverTemps`, logged);
 * 1. write: check the material (leaf parses, has the expected fingerprint, matches the key),
 *    then write every new file beside its destination under a temporary name, with its mode;
 * 2. swap: keep a `.certlane-prev` copy of every existing file, write the swap journal, then
 *    rename each new file over its destination;
 * 3. validate: run `validate_command` (argv, no shell) against the files in place; the running
 *    server has not loaded them yet;
 * 4. reload: run `reload_command`, or `restart_command` without one;
 * 5. verify: poll the endpoint until it serves the expected leaf fingerprint on three connections
 *    in a row (old workers of a graceful reload may still answer for a moment), within a deadline.
 *
 * A failure of swap, validate, reload or verify restores the previous files byte for byte (with
 * their modes; a file that did not exist is removed) and, once the server may have loaded the
 * new files (reload or verify failed), reloads it again. Every step is reported. The journal is
 * removed when the deployment ends with a complete set (done, or fully rolled back), so after a
 * crash at any point certificate, chain and key on disk are those of one deployment again at
 * the next deployment to the same paths.
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

  const problem = materialProblem(material);
  if (problem) {
    steps.push({ step: 'write', ok: false, detail: problem });
    return fail(`write failed: ${problem}`, false);
  }

  // 0. an interrupted earlier deployment to these paths is rolled back first (the journal)
  const paths = plan.files.map((file) => file.path);
  try {
    const recovered = await recoverInterruptedSwap(paths, ops);
    for (const { journal, restored } of recovered) {
      steps.push({
        step: 'rollback',
        ok: true,
        detail: `interrupted deployment (${journal}): ${restored} file(s) restored from .certlane-prev`,
      });
    }
  } catch (error) {
    steps.push({ step: 'rollback', ok: false, detail: `interrupted deployment: ${message(error)}` });
    return fail(`rollback failed: interrupted deployment: ${message(error)}`, false);
  }

  try {
    const leftovers = await removeLeftoverTemps(paths, ops, now());
    if (leftovers.length) host.log('removed leftover temporary files', { files: leftovers });
  } catch (error) {
    // Clutter, not a reason to refuse the deployment: the next one tries again.
    host.log('leftover temporary files not removed', { error: message(error) });
  }

  // 1. write
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

  // 2. swap: every .certlane-prev copy first, then the journal, then the renames
  const journalPath = swapJournalPath(paths[0]);
  const previous: ({ data: Buffer; mode: number } | null)[] = [];
  let journaled = false;
  /** Files whose rename was attempted (a rename may fail after replacing the file). */
  let begun = 0;
  const restore = async (): Promise<boolean> => {
    const problems: string[] = [];
    for (let index = begun - 1; index >= 0; index -= 1) {
      const path = paths[index];
      const old = previous[index];
      try {
        if (old) await replaceFile(ops, path, old.data, old.mode, 'restore');
        else await ops.remove(path);
      } catch (error) {
        problems.push(`${path}: ${message(error)}`);
      }
    }
    // The journal goes only with the set complete again; otherwise the next deployment finishes this.
    if (problems.length === 0 && journaled) {
      await ops
        .remove(journalPath)
        .catch((error: unknown) => problems.push(`${journalPath}: ${message(error)}`));
    }
    steps.push({
      step: 'rollback',
      ok: problems.length === 0,
      detail: problems.length === 0 ? `${begun} file(s) restored` : problems.join('; '),
    });
    return problems.length === 0;
  };
  /** The set is complete and staying: the journal is no longer needed. */
  const finish = async (): Promise<void> => {
    await ops
      .remove(journalPath)
      .catch((error: unknown) =>
        host.log('swap journal not removed', { journal: journalPath, error: message(error) }),
      );
  };
  try {
    for (const file of plan.files) {
      const old = await ops.read(file.path);
      if (old) await replaceFile(ops, previousCopyPath(file.path), old.data, old.mode, 'copy');
      previous.push(old);
    }
    const journal: SwapJournal = {
      certlane_swap_journal: 1,
      files: plan.files.map((file, index) => ({ path: file.path, existed: previous[index] !== null })),
    };
    journaled = true;
    await replaceFile(ops, journalPath, Buffer.from(`${JSON.stringify(journal)}\n`), 0o600, 'journal');
    for (const [index, file] of plan.files.entries()) {
      begun = index + 1;
      await ops.rename(temps[index], file.path);
    }
  } catch (error) {
    // A temporary file already renamed is gone: removing it again does nothing.
    await Promise.all(temps.map((temp) => ops.remove(temp).catch(() => undefined)));
    steps.push({ step: 'swap', ok: false, detail: message(error) });
    return fail(`swap failed: ${message(error)}`, await restore());
  }
  steps.push({ step: 'swap', ok: true, detail: `${begun} file(s) replaced` });

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
    await finish();
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
        await finish();
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
