import type { Readable, Writable } from 'node:stream';

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
