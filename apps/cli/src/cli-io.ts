import { readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { UsageError } from './exit-codes';

/** The process's streams and environment, passed in so tests can run the CLI in-process. */
export interface CliIo {
  stdout: Writable & { isTTY?: boolean };
  stderr: NodeJS.WriteStream & { isTTY?: boolean };
  stdin: Readable & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

/** Both ends a person sits at: prompts and progress only then. */
export function interactive(io: CliIo): boolean {
  return Boolean(io.stdin.isTTY && io.stderr.isTTY);
}

/** Asks a yes/no question on stderr and reads one line from stdin; end of input (Ctrl-D) is no. */
export function confirm(io: CliIo, question: string): Promise<boolean> {
  io.stderr.write(`${question} [y/N] `);
  return new Promise((resolve) => {
    let answer = '';
    const settle = (yes: boolean) => {
      io.stdin.off('data', onData);
      io.stdin.off('end', onEnd);
      io.stdin.off('close', onEnd);
      io.stdin.pause();
      resolve(yes);
    };
    const onData = (chunk: Buffer | string) => {
      answer += chunk.toString();
      if (!answer.includes('\n') && !answer.includes('\r')) return;
      settle(/^\s*y(es)?\s*$/i.test(answer.split(/[\r\n]/)[0]));
    };
    const onEnd = () => {
      io.stderr.write('\n');
      settle(false);
    };
    io.stdin.on('data', onData);
    io.stdin.once('end', onEnd);
    io.stdin.once('close', onEnd);
    io.stdin.resume();
  });
}

/** Everything on stdin as text (a body file or key given as `-`). */
export async function readAllStdin(io: CliIo): Promise<string> {
  let text = '';
  for await (const chunk of io.stdin) text += chunk.toString();
  return text;
}

/**
 * A file the command line or the config names (key, CA bundle, body, ids, password): one that
 * cannot be read is a usage error (exit 2) naming what it was for, never an unexpected failure.
 */
export function readNamedFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'a directory, not a file'
            : (error as Error).message;
    throw new UsageError(`cannot read the ${what} ${path}: ${reason}`);
  }
}
